// Thin shim over libturbojpeg's TurboJPEG API.
#include <stddef.h>
#include <turbojpeg.h>
