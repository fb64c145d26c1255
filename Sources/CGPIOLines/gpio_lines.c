// The two libgpiod generations behind include/gpio_lines.h. Only plumbing: resolve the chip and
// line, request, set, read events, release. Policy (patterns, debouncing) lives in Swift.
#define _GNU_SOURCE
#include "gpio_lines.h"

#include <ctype.h>
#include <errno.h>
#include <gpiod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KS_MAX_CHIPS 64

static int all_digits(const char *text) {
    if (!*text) return 0;
    for (; *text; text++) if (!isdigit((unsigned char)*text)) return 0;
    return 1;
}

static void copy_text(char *out, size_t size, const char *text) {
    if (size == 0) return;
    snprintf(out, size, "%s", text ? text : "");
}

int ks_gpio_find_chip(const char *chip, char *path, size_t path_size) {
    if (chip[0] == '/') {
        copy_text(path, path_size, chip);
        return 0;
    }
    if (all_digits(chip)) {
        snprintf(path, path_size, "/dev/gpiochip%s", chip);
        return 0;
    }
    if (strncmp(chip, "gpiochip", 8) == 0 && all_digits(chip + 8)) {
        snprintf(path, path_size, "/dev/%s", chip);
        return 0;
    }
    // A label: ask each chip.
    for (int number = 0; number < KS_MAX_CHIPS; number++) {
        char candidate[64];
        ks_gpio_chip_info info;
        snprintf(candidate, sizeof candidate, "/dev/gpiochip%d", number);
        if (ks_gpio_chip_info_at(candidate, &info) == 0 && strcmp(info.label, chip) == 0) {
            copy_text(path, path_size, candidate);
            return 0;
        }
    }
    errno = ENODEV;
    return -1;
}

struct ks_gpio_line {
    char chip_path[256];
    unsigned offset;
#ifdef GPIOD_LINE_BULK_MAX_LINES
    struct gpiod_chip *chip;
    struct gpiod_line *line;
#else
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *events;
#endif
};

#ifdef GPIOD_LINE_BULK_MAX_LINES
/* ---- libgpiod 1.x ---- */

int ks_gpio_api_generation(void) { return 1; }
const char *ks_gpio_library_version(void) { return gpiod_version_string(); }

int ks_gpio_chip_info_at(const char *path, ks_gpio_chip_info *info) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
    copy_text(info->path, sizeof info->path, path);
    copy_text(info->name, sizeof info->name, gpiod_chip_name(chip));
    copy_text(info->label, sizeof info->label, gpiod_chip_label(chip));
    info->lines = gpiod_chip_num_lines(chip);
    gpiod_chip_close(chip);
    return 0;
}

int ks_gpio_line_info_at(const char *path, unsigned offset, char *name, size_t name_size, char *consumer, size_t consumer_size, int *used) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_line *line = gpiod_chip_get_line(chip, offset);
    if (!line) {
        gpiod_chip_close(chip);
        return -1;
    }
    copy_text(name, name_size, gpiod_line_name(line));
    copy_text(consumer, consumer_size, gpiod_line_consumer(line));
    *used = gpiod_line_is_used(line);
    gpiod_chip_close(chip);
    return 0;
}

static ks_gpio_line *open_line(const char *chip_text, const char *line_text) {
    ks_gpio_line *result = calloc(1, sizeof *result);
    if (!result) return NULL;
    if (ks_gpio_find_chip(chip_text, result->chip_path, sizeof result->chip_path) < 0 ||
        !(result->chip = gpiod_chip_open(result->chip_path))) {
        free(result);
        return NULL;
    }
    result->line = all_digits(line_text) ? gpiod_chip_get_line(result->chip, (unsigned)strtoul(line_text, NULL, 10))
                                         : gpiod_chip_find_line(result->chip, line_text);
    if (!result->line) {
        int saved = errno ? errno : ENOENT;
        gpiod_chip_close(result->chip);
        free(result);
        errno = saved;
        return NULL;
    }
    result->offset = gpiod_line_offset(result->line);
    return result;
}

static void close_line(ks_gpio_line *line) {
    int saved = errno;
    gpiod_chip_close(line->chip);
    free(line);
    errno = saved;
}

ks_gpio_line *ks_gpio_request_output(const char *chip, const char *line_text, int active_low, int drive, int value, const char *consumer) {
    ks_gpio_line *line = open_line(chip, line_text);
    if (!line) return NULL;
    int flags = (active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0) | (drive == KS_GPIO_OPEN_DRAIN ? GPIOD_LINE_REQUEST_FLAG_OPEN_DRAIN : 0);
    if (gpiod_line_request_output_flags(line->line, consumer, flags, value) < 0) {
        close_line(line);
        return NULL;
    }
    return line;
}

ks_gpio_line *ks_gpio_request_input(const char *chip, const char *line_text, int active_low, int bias, const char *consumer) {
    ks_gpio_line *line = open_line(chip, line_text);
    if (!line) return NULL;
    int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
    if (bias == KS_GPIO_BIAS_DISABLED) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    if (bias == KS_GPIO_BIAS_PULL_UP) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    if (bias == KS_GPIO_BIAS_PULL_DOWN) flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    if (gpiod_line_request_both_edges_events_flags(line->line, consumer, flags) < 0) {
        close_line(line);
        return NULL;
    }
    return line;
}

int ks_gpio_set_value(ks_gpio_line *line, int value) { return gpiod_line_set_value(line->line, value); }
int ks_gpio_get_value(ks_gpio_line *line) { return gpiod_line_get_value(line->line); }
int ks_gpio_event_fd(ks_gpio_line *line) { return gpiod_line_event_get_fd(line->line); }

int ks_gpio_read_event(ks_gpio_line *line, uint64_t *timestamp_ns) {
    struct gpiod_line_event event;
    if (gpiod_line_event_read(line->line, &event) < 0) return -1;
    *timestamp_ns = (uint64_t)event.ts.tv_sec * 1000000000u + (uint64_t)event.ts.tv_nsec;
    return event.event_type == GPIOD_LINE_EVENT_RISING_EDGE ? 1 : 0;
}

void ks_gpio_release(ks_gpio_line *line) {
    if (!line) return;
    gpiod_line_release(line->line);
    close_line(line);
}

#else
/* ---- libgpiod 2.x ---- */

int ks_gpio_api_generation(void) { return 2; }
const char *ks_gpio_library_version(void) { return gpiod_api_version(); }

int ks_gpio_chip_info_at(const char *path, ks_gpio_chip_info *info) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_chip_info *chip_info = gpiod_chip_get_info(chip);
    if (!chip_info) {
        gpiod_chip_close(chip);
        return -1;
    }
    copy_text(info->path, sizeof info->path, path);
    copy_text(info->name, sizeof info->name, gpiod_chip_info_get_name(chip_info));
    copy_text(info->label, sizeof info->label, gpiod_chip_info_get_label(chip_info));
    info->lines = (unsigned)gpiod_chip_info_get_num_lines(chip_info);
    gpiod_chip_info_free(chip_info);
    gpiod_chip_close(chip);
    return 0;
}

int ks_gpio_line_info_at(const char *path, unsigned offset, char *name, size_t name_size, char *consumer, size_t consumer_size, int *used) {
    struct gpiod_chip *chip = gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, offset);
    if (!info) {
        gpiod_chip_close(chip);
        return -1;
    }
    copy_text(name, name_size, gpiod_line_info_get_name(info));
    copy_text(consumer, consumer_size, gpiod_line_info_get_consumer(info));
    *used = gpiod_line_info_is_used(info);
    gpiod_line_info_free(info);
    gpiod_chip_close(chip);
    return 0;
}

static ks_gpio_line *request(const char *chip_text, const char *line_text, struct gpiod_line_settings *settings, const char *consumer) {
    ks_gpio_line *result = calloc(1, sizeof *result);
    struct gpiod_chip *chip = NULL;
    struct gpiod_line_config *line_config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    int saved = 0;
    if (!result || !line_config || !request_config) {
        saved = ENOMEM;
        goto done;
    }
    if (ks_gpio_find_chip(chip_text, result->chip_path, sizeof result->chip_path) < 0 || !(chip = gpiod_chip_open(result->chip_path))) {
        saved = errno;
        goto done;
    }
    if (all_digits(line_text)) {
        result->offset = (unsigned)strtoul(line_text, NULL, 10);
    } else {
        int offset = gpiod_chip_get_line_offset_from_name(chip, line_text);
        if (offset < 0) {
            saved = errno ? errno : ENOENT;
            goto done;
        }
        result->offset = (unsigned)offset;
    }
    gpiod_request_config_set_consumer(request_config, consumer);
    if (gpiod_line_config_add_line_settings(line_config, &result->offset, 1, settings) < 0 ||
        !(result->request = gpiod_chip_request_lines(chip, request_config, line_config))) {
        saved = errno;
    }
done:
    if (chip) gpiod_chip_close(chip);
    gpiod_line_config_free(line_config);
    gpiod_request_config_free(request_config);
    gpiod_line_settings_free(settings);
    if (saved || !result->request) {
        free(result);
        errno = saved ? saved : EIO;
        return NULL;
    }
    return result;
}

ks_gpio_line *ks_gpio_request_output(const char *chip, const char *line, int active_low, int drive, int value, const char *consumer) {
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) return NULL;
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_active_low(settings, active_low != 0);
    gpiod_line_settings_set_drive(settings, drive == KS_GPIO_OPEN_DRAIN ? GPIOD_LINE_DRIVE_OPEN_DRAIN : GPIOD_LINE_DRIVE_PUSH_PULL);
    gpiod_line_settings_set_output_value(settings, value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
    return request(chip, line, settings, consumer);
}

ks_gpio_line *ks_gpio_request_input(const char *chip, const char *line_text, int active_low, int bias, const char *consumer) {
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    if (!settings) return NULL;
    static const enum gpiod_line_bias biases[] = {GPIOD_LINE_BIAS_AS_IS, GPIOD_LINE_BIAS_DISABLED, GPIOD_LINE_BIAS_PULL_UP, GPIOD_LINE_BIAS_PULL_DOWN};
    gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_active_low(settings, active_low != 0);
    gpiod_line_settings_set_bias(settings, biases[bias >= 0 && bias <= 3 ? bias : 0]);
    gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH);
    ks_gpio_line *line = request(chip, line_text, settings, consumer);
    if (line && !(line->events = gpiod_edge_event_buffer_new(1))) {
        ks_gpio_release(line);
        errno = ENOMEM;
        return NULL;
    }
    return line;
}

int ks_gpio_set_value(ks_gpio_line *line, int value) {
    return gpiod_line_request_set_value(line->request, line->offset, value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

int ks_gpio_get_value(ks_gpio_line *line) {
    enum gpiod_line_value value = gpiod_line_request_get_value(line->request, line->offset);
    return value == GPIOD_LINE_VALUE_ERROR ? -1 : value == GPIOD_LINE_VALUE_ACTIVE;
}

int ks_gpio_event_fd(ks_gpio_line *line) { return gpiod_line_request_get_fd(line->request); }

int ks_gpio_read_event(ks_gpio_line *line, uint64_t *timestamp_ns) {
    if (gpiod_line_request_read_edge_events(line->request, line->events, 1) < 1) return -1;
    struct gpiod_edge_event *event = gpiod_edge_event_buffer_get_event(line->events, 0);
    *timestamp_ns = gpiod_edge_event_get_timestamp_ns(event);
    return gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE ? 1 : 0;
}

void ks_gpio_release(ks_gpio_line *line) {
    if (!line) return;
    if (line->events) gpiod_edge_event_buffer_free(line->events);
    if (line->request) gpiod_line_request_release(line->request);
    free(line);
}
#endif

unsigned ks_gpio_line_offset(const ks_gpio_line *line) { return line->offset; }
const char *ks_gpio_line_chip(const ks_gpio_line *line) { return line->chip_path; }
