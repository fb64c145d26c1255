/* A plain C face for zxing-cpp, so that Swift sees no C++. No logic beyond translating types. */
#ifndef CZXING_H
#define CZXING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Formats, as zxing-cpp's BarcodeFormat bits. */
enum {
    CZX_AZTEC = 1 << 0, CZX_CODABAR = 1 << 1, CZX_CODE39 = 1 << 2, CZX_CODE93 = 1 << 3, CZX_CODE128 = 1 << 4,
    CZX_DATABAR = 1 << 5, CZX_DATABAR_EXPANDED = 1 << 6, CZX_DATAMATRIX = 1 << 7, CZX_EAN8 = 1 << 8,
    CZX_EAN13 = 1 << 9, CZX_ITF = 1 << 10, CZX_PDF417 = 1 << 12, CZX_QRCODE = 1 << 13, CZX_UPCA = 1 << 14,
    CZX_UPCE = 1 << 15,
};

/* How hard to look. */
typedef struct {
    int formats;
    int try_harder;
    int try_rotate;
    int try_downscale;
    int binarizer; /* 0 local average, 1 global histogram, 2 fixed threshold, 3 bool cast */
    int max_symbols; /* 0: the library's default (255) */
} czx_options;

/* zxing-cpp's ContentType: what the data holds. */
enum { CZX_TEXT, CZX_BINARY, CZX_MIXED, CZX_GS1, CZX_ISO15434, CZX_UNKNOWN_ECI };

/* One decoded symbol. `bytes` and `text` are owned by the result list. */
typedef struct {
    int format;
    const uint8_t *bytes; /* the data as encoded, no character set applied */
    size_t length;
    const char *text; /* the data as UTF-8, from its ECIs or the guessed character set */
    size_t text_length;
    int content_type;
    int has_eci; /* whether the symbol names its character set */
    char symbology_identifier[8];
    int x[4], y[4]; /* top-left, top-right, bottom-right, bottom-left, in the symbol's own orientation */
    int orientation; /* degrees */
} czx_symbol;

typedef struct czx_results czx_results;

/* Decodes a luma plane; returns NULL if decoding threw (the error text goes to `error`, if given). */
czx_results *czx_read(const uint8_t *luma, int width, int height, int stride, const czx_options *options,
                      char *error, size_t error_capacity);
int czx_count(const czx_results *results);
const czx_symbol *czx_symbol_at(const czx_results *results, int index);
void czx_free(czx_results *results);

#ifdef __cplusplus
}
#endif

#endif
