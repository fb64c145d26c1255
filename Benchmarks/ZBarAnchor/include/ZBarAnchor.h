/* The anchor of the decode benchmark: the textbook libzbar loop, as zbarimg runs it, in C. */
#ifndef ZBAR_ANCHOR_H
#define ZBAR_ANCHOR_H

#include <stdint.h>

/* Scans a width x height Y800 frame `iterations` times with one zbar image scanner configured
 * like ours (same symbologies, QR binary), creating and destroying a zbar image per frame as
 * zbarimg does. Returns symbols found in the last pass; `*nanoseconds` gets the total time. */
int zbar_anchor_scan(const uint8_t *luma, int width, int height, int iterations, uint64_t *nanoseconds);

#endif
