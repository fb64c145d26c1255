// The two libgpiod generations behind include/gpio_lines.h. Only plumbing: load the library,
// resolve the chip and line, request, set, read events, release. Policy (patterns, debouncing)
// lives in Swift. The library is loaded at first use (gpiod_abi.h says why and what is called):
// a daemon without libgpiod still runs, and every GPIO call then fails with ELIBACC.
#define _GNU_SOURCE
#include "gpio_lines.h"
#include "gpiod_abi.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KS_MAX_CHIPS 64

#define KS_FIELD(type, name, parameters) type(*name) parameters;
static struct { KS_GPIOD1_FUNCTIONS(KS_FIELD) } v1;
static struct { KS_GPIOD2_FUNCTIONS(KS_FIELD) } v2;
#undef KS_FIELD

static int generation;  // 1 or 2 once loaded; 0 when neither library could be
static char not_loaded[320];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

// Every function of a generation from `handle`; -1 at the first one missing.
static int resolve_v1(void *handle) {
#define KS_RESOLVE(type, name, parameters) if (!(*(void **)&v1.name = dlsym(handle, #name))) return -1;
    KS_GPIOD1_FUNCTIONS(KS_RESOLVE)
#undef KS_RESOLVE
    return 0;
}

static int resolve_v2(void *handle) {
#define KS_RESOLVE(type, name, parameters) if (!(*(void **)&v2.name = dlsym(handle, #name))) return -1;
    KS_GPIOD2_FUNCTIONS(KS_RESOLVE)
#undef KS_RESOLVE
    return 0;
}

static void load(void) {
    // What the process holds already comes first, as it would for a linked library: a library
    // preloaded in front of libgpiod (the tests' emulated chip) stands in for the installed one.
    if (resolve_v2(RTLD_DEFAULT) == 0) { generation = 2; return; }
    if (resolve_v1(RTLD_DEFAULT) == 0) { generation = 1; return; }
    void *handle = dlopen("libgpiod.so.3", RTLD_NOW | RTLD_LOCAL);
    if (handle && resolve_v2(handle) == 0) { generation = 2; return; }
    const char *why3 = handle ? "libgpiod.so.3 lacks a function" : dlerror();
    char first[160];
    snprintf(first, sizeof first, "%s", why3 ? why3 : "");
    handle = dlopen("libgpiod.so.2", RTLD_NOW | RTLD_LOCAL);
    if (handle && resolve_v1(handle) == 0) { generation = 1; return; }
    const char *why2 = handle ? "libgpiod.so.2 lacks a function" : dlerror();
    snprintf(not_loaded, sizeof not_loaded, "not installed (%s; %s)", first, why2 ? why2 : "");
}

// The generation loaded, or 0 with errno set to ELIBACC.
static int loaded(void) {
    pthread_once(&load_once, load);
    if (!generation) errno = ELIBACC;
    return generation;
}

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
    struct gpiod_chip *chip;  // 1.x: the chip stays open while the line is held
    struct gpiod_line *line;
    struct gpiod_line_request *request;  // 2.x
    struct gpiod_edge_event_buffer *events;
};

/* ---- libgpiod 1.x ---- */

static int gpio_chip_info_at_v1(const char *path, ks_gpio_chip_info *info) {
    struct gpiod_chip *chip = v1.gpiod_chip_open(path);
    if (!chip) return -1;
    copy_text(info->path, sizeof info->path, path);
    copy_text(info->name, sizeof info->name, v1.gpiod_chip_name(chip));
    copy_text(info->label, sizeof info->label, v1.gpiod_chip_label(chip));
    info->lines = v1.gpiod_chip_num_lines(chip);
    v1.gpiod_chip_close(chip);
    return 0;
}

static int gpio_line_info_at_v1(const char *path, unsigned offset, char *name, size_t name_size, char *consumer, size_t consumer_size, int *used) {
    struct gpiod_chip *chip = v1.gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_line *line = v1.gpiod_chip_get_line(chip, offset);
    if (!line) {
        v1.gpiod_chip_close(chip);
        return -1;
    }
    copy_text(name, name_size, v1.gpiod_line_name(line));
    copy_text(consumer, consumer_size, v1.gpiod_line_consumer(line));
    *used = v1.gpiod_line_is_used(line);
    v1.gpiod_chip_close(chip);
    return 0;
}

static ks_gpio_line *open_line(const char *chip_text, const char *line_text) {
    ks_gpio_line *result = calloc(1, sizeof *result);
    if (!result) return NULL;
    if (ks_gpio_find_chip(chip_text, result->chip_path, sizeof result->chip_path) < 0 ||
        !(result->chip = v1.gpiod_chip_open(result->chip_path))) {
        free(result);
        return NULL;
    }
    result->line = all_digits(line_text) ? v1.gpiod_chip_get_line(result->chip, (unsigned)strtoul(line_text, NULL, 10))
                                         : v1.gpiod_chip_find_line(result->chip, line_text);
    if (!result->line) {
        int saved = errno ? errno : ENOENT;
        v1.gpiod_chip_close(result->chip);
        free(result);
        errno = saved;
        return NULL;
    }
    result->offset = v1.gpiod_line_offset(result->line);
    return result;
}

static void close_line(ks_gpio_line *line) {
    int saved = errno;
    v1.gpiod_chip_close(line->chip);
    free(line);
    errno = saved;
}

static ks_gpio_line *gpio_request_output_v1(const char *chip, const char *line_text, int active_low, int drive, int value, const char *consumer) {
    ks_gpio_line *line = open_line(chip, line_text);
    if (!line) return NULL;
    int flags = (active_low ? KS_GPIOD1_FLAG_ACTIVE_LOW : 0) | (drive == KS_GPIO_OPEN_DRAIN ? KS_GPIOD1_FLAG_OPEN_DRAIN : 0);
    if (v1.gpiod_line_request_output_flags(line->line, consumer, flags, value) < 0) {
        close_line(line);
        return NULL;
    }
    return line;
}

static ks_gpio_line *gpio_request_input_v1(const char *chip, const char *line_text, int active_low, int bias, const char *consumer) {
    ks_gpio_line *line = open_line(chip, line_text);
    if (!line) return NULL;
    int flags = active_low ? KS_GPIOD1_FLAG_ACTIVE_LOW : 0;
    if (bias == KS_GPIO_BIAS_DISABLED) flags |= KS_GPIOD1_FLAG_BIAS_DISABLE;
    if (bias == KS_GPIO_BIAS_PULL_UP) flags |= KS_GPIOD1_FLAG_BIAS_PULL_UP;
    if (bias == KS_GPIO_BIAS_PULL_DOWN) flags |= KS_GPIOD1_FLAG_BIAS_PULL_DOWN;
    if (v1.gpiod_line_request_both_edges_events_flags(line->line, consumer, flags) < 0) {
        close_line(line);
        return NULL;
    }
    return line;
}

static int gpio_set_value_v1(ks_gpio_line *line, int value) { return v1.gpiod_line_set_value(line->line, value); }
static int gpio_get_value_v1(ks_gpio_line *line) { return v1.gpiod_line_get_value(line->line); }
static int gpio_event_fd_v1(ks_gpio_line *line) { return v1.gpiod_line_event_get_fd(line->line); }

static int gpio_read_event_v1(ks_gpio_line *line, uint64_t *timestamp_ns) {
    struct ks_gpiod1_line_event event;
    if (v1.gpiod_line_event_read(line->line, (struct gpiod_line_event *)&event) < 0) return -1;
    *timestamp_ns = (uint64_t)event.ts.tv_sec * 1000000000u + (uint64_t)event.ts.tv_nsec;
    return event.event_type == KS_GPIOD1_EVENT_RISING_EDGE ? 1 : 0;
}

static void gpio_release_v1(ks_gpio_line *line) {
    if (!line) return;
    v1.gpiod_line_release(line->line);
    close_line(line);
}

/* ---- libgpiod 2.x ---- */

static void gpio_release_v2(ks_gpio_line *line);

static int gpio_chip_info_at_v2(const char *path, ks_gpio_chip_info *info) {
    struct gpiod_chip *chip = v2.gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_chip_info *chip_info = v2.gpiod_chip_get_info(chip);
    if (!chip_info) {
        v2.gpiod_chip_close(chip);
        return -1;
    }
    copy_text(info->path, sizeof info->path, path);
    copy_text(info->name, sizeof info->name, v2.gpiod_chip_info_get_name(chip_info));
    copy_text(info->label, sizeof info->label, v2.gpiod_chip_info_get_label(chip_info));
    info->lines = (unsigned)v2.gpiod_chip_info_get_num_lines(chip_info);
    v2.gpiod_chip_info_free(chip_info);
    v2.gpiod_chip_close(chip);
    return 0;
}

static int gpio_line_info_at_v2(const char *path, unsigned offset, char *name, size_t name_size, char *consumer, size_t consumer_size, int *used) {
    struct gpiod_chip *chip = v2.gpiod_chip_open(path);
    if (!chip) return -1;
    struct gpiod_line_info *info = v2.gpiod_chip_get_line_info(chip, offset);
    if (!info) {
        v2.gpiod_chip_close(chip);
        return -1;
    }
    copy_text(name, name_size, v2.gpiod_line_info_get_name(info));
    copy_text(consumer, consumer_size, v2.gpiod_line_info_get_consumer(info));
    *used = v2.gpiod_line_info_is_used(info);
    v2.gpiod_line_info_free(info);
    v2.gpiod_chip_close(chip);
    return 0;
}

static ks_gpio_line *request_v2(const char *chip_text, const char *line_text, struct gpiod_line_settings *settings, const char *consumer) {
    ks_gpio_line *result = calloc(1, sizeof *result);
    struct gpiod_chip *chip = NULL;
    struct gpiod_line_config *line_config = v2.gpiod_line_config_new();
    struct gpiod_request_config *request_config = v2.gpiod_request_config_new();
    int saved = 0;
    if (!result || !line_config || !request_config) {
        saved = ENOMEM;
        goto done;
    }
    if (ks_gpio_find_chip(chip_text, result->chip_path, sizeof result->chip_path) < 0 || !(chip = v2.gpiod_chip_open(result->chip_path))) {
        saved = errno;
        goto done;
    }
    if (all_digits(line_text)) {
        result->offset = (unsigned)strtoul(line_text, NULL, 10);
    } else {
        int offset = v2.gpiod_chip_get_line_offset_from_name(chip, line_text);
        if (offset < 0) {
            saved = errno ? errno : ENOENT;
            goto done;
        }
        result->offset = (unsigned)offset;
    }
    v2.gpiod_request_config_set_consumer(request_config, consumer);
    if (v2.gpiod_line_config_add_line_settings(line_config, &result->offset, 1, settings) < 0 ||
        !(result->request = v2.gpiod_chip_request_lines(chip, request_config, line_config))) {
        saved = errno;
    }
done:
    if (chip) v2.gpiod_chip_close(chip);
    v2.gpiod_line_config_free(line_config);
    v2.gpiod_request_config_free(request_config);
    v2.gpiod_line_settings_free(settings);
    if (saved || !result->request) {
        free(result);
        errno = saved ? saved : EIO;
        return NULL;
    }
    return result;
}

static ks_gpio_line *gpio_request_output_v2(const char *chip, const char *line, int active_low, int drive, int value, const char *consumer) {
    struct gpiod_line_settings *settings = v2.gpiod_line_settings_new();
    if (!settings) return NULL;
    v2.gpiod_line_settings_set_direction(settings, KS_GPIOD2_DIRECTION_OUTPUT);
    v2.gpiod_line_settings_set_active_low(settings, active_low != 0);
    v2.gpiod_line_settings_set_drive(settings, drive == KS_GPIO_OPEN_DRAIN ? KS_GPIOD2_DRIVE_OPEN_DRAIN : KS_GPIOD2_DRIVE_PUSH_PULL);
    v2.gpiod_line_settings_set_output_value(settings, value ? KS_GPIOD2_VALUE_ACTIVE : KS_GPIOD2_VALUE_INACTIVE);
    return request_v2(chip, line, settings, consumer);
}

static ks_gpio_line *gpio_request_input_v2(const char *chip, const char *line_text, int active_low, int bias, const char *consumer) {
    struct gpiod_line_settings *settings = v2.gpiod_line_settings_new();
    if (!settings) return NULL;
    static const unsigned biases[] = {KS_GPIOD2_BIAS_AS_IS, KS_GPIOD2_BIAS_DISABLED, KS_GPIOD2_BIAS_PULL_UP, KS_GPIOD2_BIAS_PULL_DOWN};
    v2.gpiod_line_settings_set_direction(settings, KS_GPIOD2_DIRECTION_INPUT);
    v2.gpiod_line_settings_set_active_low(settings, active_low != 0);
    v2.gpiod_line_settings_set_bias(settings, biases[bias >= 0 && bias <= 3 ? bias : 0]);
    v2.gpiod_line_settings_set_edge_detection(settings, KS_GPIOD2_EDGE_BOTH);
    ks_gpio_line *line = request_v2(chip, line_text, settings, consumer);
    if (line && !(line->events = v2.gpiod_edge_event_buffer_new(1))) {
        gpio_release_v2(line);
        errno = ENOMEM;
        return NULL;
    }
    return line;
}

static int gpio_set_value_v2(ks_gpio_line *line, int value) {
    return v2.gpiod_line_request_set_value(line->request, line->offset, value ? KS_GPIOD2_VALUE_ACTIVE : KS_GPIOD2_VALUE_INACTIVE);
}

static int gpio_get_value_v2(ks_gpio_line *line) {
    int value = v2.gpiod_line_request_get_value(line->request, line->offset);
    return value == KS_GPIOD2_VALUE_ERROR ? -1 : value == KS_GPIOD2_VALUE_ACTIVE;
}

static int gpio_event_fd_v2(ks_gpio_line *line) { return v2.gpiod_line_request_get_fd(line->request); }

static int gpio_read_event_v2(ks_gpio_line *line, uint64_t *timestamp_ns) {
    if (v2.gpiod_line_request_read_edge_events(line->request, line->events, 1) < 1) return -1;
    struct gpiod_edge_event *event = v2.gpiod_edge_event_buffer_get_event(line->events, 0);
    *timestamp_ns = v2.gpiod_edge_event_get_timestamp_ns(event);
    return v2.gpiod_edge_event_get_event_type(event) == KS_GPIOD2_EDGE_EVENT_RISING_EDGE ? 1 : 0;
}

static void gpio_release_v2(ks_gpio_line *line) {
    if (!line) return;
    if (line->events) v2.gpiod_edge_event_buffer_free(line->events);
    if (line->request) v2.gpiod_line_request_release(line->request);
    free(line);
}

/* ---- the calls of gpio_lines.h, to the generation loaded ---- */

#define KS_DISPATCH(failed, call_v1, call_v2) \
    switch (loaded()) {                      \
    case 1: return call_v1;                  \
    case 2: return call_v2;                  \
    default: return failed;                  \
    }

int ks_gpio_api_generation(void) {
    pthread_once(&load_once, load);
    return generation;
}

const char *ks_gpio_library_version(void) { KS_DISPATCH(not_loaded, v1.gpiod_version_string(), v2.gpiod_api_version()) }

int ks_gpio_chip_info_at(const char *path, ks_gpio_chip_info *info) {
    KS_DISPATCH(-1, gpio_chip_info_at_v1(path, info), gpio_chip_info_at_v2(path, info))
}

int ks_gpio_line_info_at(const char *path, unsigned offset, char *name, size_t name_size, char *consumer, size_t consumer_size, int *used) {
    KS_DISPATCH(-1, gpio_line_info_at_v1(path, offset, name, name_size, consumer, consumer_size, used),
                gpio_line_info_at_v2(path, offset, name, name_size, consumer, consumer_size, used))
}

ks_gpio_line *ks_gpio_request_output(const char *chip, const char *line, int active_low, int drive, int value, const char *consumer) {
    KS_DISPATCH(NULL, gpio_request_output_v1(chip, line, active_low, drive, value, consumer),
                gpio_request_output_v2(chip, line, active_low, drive, value, consumer))
}

ks_gpio_line *ks_gpio_request_input(const char *chip, const char *line, int active_low, int bias, const char *consumer) {
    KS_DISPATCH(NULL, gpio_request_input_v1(chip, line, active_low, bias, consumer), gpio_request_input_v2(chip, line, active_low, bias, consumer))
}

// A line exists only once a generation is loaded.
int ks_gpio_set_value(ks_gpio_line *line, int value) { return generation == 1 ? gpio_set_value_v1(line, value) : gpio_set_value_v2(line, value); }
int ks_gpio_get_value(ks_gpio_line *line) { return generation == 1 ? gpio_get_value_v1(line) : gpio_get_value_v2(line); }
int ks_gpio_event_fd(ks_gpio_line *line) { return generation == 1 ? gpio_event_fd_v1(line) : gpio_event_fd_v2(line); }

int ks_gpio_read_event(ks_gpio_line *line, uint64_t *timestamp_ns) {
    return generation == 1 ? gpio_read_event_v1(line, timestamp_ns) : gpio_read_event_v2(line, timestamp_ns);
}

void ks_gpio_release(ks_gpio_line *line) {
    if (generation == 1) gpio_release_v1(line);
    else gpio_release_v2(line);
}

unsigned ks_gpio_line_offset(const ks_gpio_line *line) { return line->offset; }
const char *ks_gpio_line_chip(const ks_gpio_line *line) { return line->chip_path; }
