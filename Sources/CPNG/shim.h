// Thin shim over libpng's simplified API (png_image).
#include <png.h>

/// PNG_IMAGE_FAILED is a macro Swift cannot call.
static inline int ks_png_image_failed(png_imagep image) { return PNG_IMAGE_FAILED(*image); }
/// PNG_IMAGE_VERSION as a value.
static inline unsigned ks_png_image_version(void) { return PNG_IMAGE_VERSION; }
