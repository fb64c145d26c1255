// Thin shim over libyaml's event parser (the C library Yams wraps too).
#include <yaml.h>
