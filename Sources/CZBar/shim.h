// Thin shim over libzbar: the header as it is, and nothing else.
#include <zbar.h>
