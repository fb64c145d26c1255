/* libcamera's C++ headers, for Sources/KSLibcamera only (no Swift target imports this). */
#include <libcamera/libcamera.h>
