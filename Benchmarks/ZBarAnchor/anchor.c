/* The anchor of the decode benchmark: bare libzbar, no Swift, on the frames our path decodes. */
#include "ZBarAnchor.h"

#include <time.h>
#include <zbar.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

int zbar_anchor_scan(const uint8_t *luma, int width, int height, int iterations, uint64_t *nanoseconds) {
    static const zbar_symbol_type_t enabled[] = {
        ZBAR_EAN13, ZBAR_EAN8, ZBAR_UPCA, ZBAR_UPCE, ZBAR_I25, ZBAR_CODE39, ZBAR_CODE93,
        ZBAR_CODE128, ZBAR_CODABAR, ZBAR_DATABAR, ZBAR_DATABAR_EXP, ZBAR_QRCODE,
    };
    zbar_image_scanner_t *scanner = zbar_image_scanner_create();
    zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    for (unsigned i = 0; i < sizeof enabled / sizeof enabled[0]; i++)
        zbar_image_scanner_set_config(scanner, enabled[i], ZBAR_CFG_ENABLE, 1);
    zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1);
    int found = 0;
    uint64_t start = now_ns();
    for (int i = 0; i < iterations; i++) {
        zbar_image_t *image = zbar_image_create();
        zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
        zbar_image_set_size(image, (unsigned)width, (unsigned)height);
        zbar_image_set_data(image, luma, (unsigned long)width * (unsigned long)height, NULL);
        found = zbar_scan_image(scanner, image);
        zbar_image_destroy(image);
    }
    *nanoseconds = now_ns() - start;
    zbar_image_scanner_destroy(scanner);
    return found;
}
