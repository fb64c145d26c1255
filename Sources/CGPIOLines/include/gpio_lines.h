// One GPIO line as kiosk-scanner uses it, the same over libgpiod 1.6 and 2.x.
// gpio_lines.c loads whichever generation is installed at the first call (libgpiod.so.3, else
// libgpiod.so.2). Functions that fail return NULL or -1 with errno set: ELIBACC when neither loads.
#ifndef KS_GPIO_LINES_H
#define KS_GPIO_LINES_H

#include <stddef.h>
#include <stdint.h>

typedef struct ks_gpio_line ks_gpio_line;

enum ks_gpio_drive { KS_GPIO_PUSH_PULL = 0, KS_GPIO_OPEN_DRAIN = 1 };
enum ks_gpio_bias { KS_GPIO_BIAS_AS_IS = 0, KS_GPIO_BIAS_DISABLED = 1, KS_GPIO_BIAS_PULL_UP = 2, KS_GPIO_BIAS_PULL_DOWN = 3 };

/// The libgpiod generation loaded (1 or 2, 0 if none), and the library's version string (if none,
/// why not).
int ks_gpio_api_generation(void);
const char *ks_gpio_library_version(void);

/// What a chip says of itself.
typedef struct {
    char path[256];
    char name[64];
    char label[64];
    unsigned lines;
} ks_gpio_chip_info;

/// Fills `info` for the chip at `path`.
int ks_gpio_chip_info_at(const char *path, ks_gpio_chip_info *info);

/// What a line says of itself: its name ("" if none) and who holds it ("" if nobody).
int ks_gpio_line_info_at(const char *path, unsigned offset, char *name, size_t name_size, char *consumer, size_t consumer_size, int *used);

/// Finds a chip by path, number ("0"), name ("gpiochip0") or label ("pinctrl-bcm2711"); writes its path.
int ks_gpio_find_chip(const char *chip, char *path, size_t path_size);

/// Requests `line` (offset "17" or name "GPIO17") of `chip` as an output at logical `value`.
ks_gpio_line *ks_gpio_request_output(const char *chip, const char *line, int active_low, int drive, int value, const char *consumer);

/// Requests `line` of `chip` as an input reporting both edges.
ks_gpio_line *ks_gpio_request_input(const char *chip, const char *line, int active_low, int bias, const char *consumer);

/// The offset and chip path a request resolved to.
unsigned ks_gpio_line_offset(const ks_gpio_line *line);
const char *ks_gpio_line_chip(const ks_gpio_line *line);

/// Sets or reads the logical value (1 = active).
int ks_gpio_set_value(ks_gpio_line *line, int value);
int ks_gpio_get_value(ks_gpio_line *line);

/// The descriptor that polls readable when an edge event is waiting (inputs).
int ks_gpio_event_fd(ks_gpio_line *line);

/// Reads one edge event: 1 for rising (to active), 0 for falling, with its kernel timestamp.
int ks_gpio_read_event(ks_gpio_line *line, uint64_t *timestamp_ns);

/// Releases the line and everything held for it.
void ks_gpio_release(ks_gpio_line *line);

#endif
