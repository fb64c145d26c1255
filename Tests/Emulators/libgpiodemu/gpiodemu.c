// An emulated GPIO chip at the libgpiod boundary, preloaded (LD_PRELOAD) in front of the real
// library. The same source builds against libgpiod 1.6's header and 2.x's: it defines the functions
// kiosk-scanner's CGPIOLines calls, for the generation the header declares.
//
// KSGPIO_DIR holds:
//   chips    one chip per line: NAME LABEL LINES [OFFSET=LINENAME ...]   (missing: no chips at all)
//   busy     lines another program holds: NAME OFFSET CONSUMER
//   log      written: "<monotonic ns> <chip> <offset> <event> ..." for every request, set and release
//   NAME-OFFSET.edges   a FIFO made when an input is requested; write "rising [ns]" or "falling [ns]"
//            lines to inject edges (ns defaults to now, CLOCK_MONOTONIC)
#define _GNU_SOURCE
#include <gpiod.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_CHIPS 8
#define MAX_LINES 64

struct emu_line {
    char name[32];
    char consumer[64];
    int requested, busy, value, active_low, fifo;
    char pending[256];
    size_t pending_size;
};

struct emu_chip {
    char name[32];
    char label[64];
    unsigned count;
    struct emu_line lines[MAX_LINES];
};

static struct emu_chip chips[MAX_CHIPS];
static int chip_count = -1;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *dir(void) {
    const char *value = getenv("KSGPIO_DIR");
    return value ? value : "/nonexistent";
}

static uint64_t now_ns(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

static void logf_(const struct emu_chip *chip, unsigned offset, const char *format, ...) {
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/log", dir());
    int length = snprintf(line, sizeof line, "%llu %s %u ", (unsigned long long)now_ns(), chip->name, offset);
    va_list args;
    va_start(args, format);
    length += vsnprintf(line + length, sizeof line - (size_t)length - 1, format, args);
    va_end(args);
    line[length++] = '\n';
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        (void)!write(fd, line, (size_t)length);
        close(fd);
    }
}

static void load(void) {
    if (chip_count >= 0) return;
    chip_count = 0;
    char path[512], text[1024];
    snprintf(path, sizeof path, "%s/chips", dir());
    FILE *file = fopen(path, "r");
    while (file && chip_count < MAX_CHIPS && fgets(text, sizeof text, file)) {
        struct emu_chip *chip = &chips[chip_count];
        char *save = NULL, *word = strtok_r(text, " \t\n", &save);
        if (!word || word[0] == '#') continue;
        snprintf(chip->name, sizeof chip->name, "%s", word);
        if ((word = strtok_r(NULL, " \t\n", &save))) snprintf(chip->label, sizeof chip->label, "%s", word);
        chip->count = (word = strtok_r(NULL, " \t\n", &save)) ? (unsigned)atoi(word) : 8;
        if (chip->count > MAX_LINES) chip->count = MAX_LINES;
        while ((word = strtok_r(NULL, " \t\n", &save))) {
            char *equals = strchr(word, '=');
            unsigned offset = (unsigned)atoi(word);
            if (equals && offset < chip->count) snprintf(chip->lines[offset].name, sizeof chip->lines[offset].name, "%s", equals + 1);
        }
        for (unsigned offset = 0; offset < chip->count; offset++) chip->lines[offset].fifo = -1;
        chip_count++;
    }
    if (file) fclose(file);
    snprintf(path, sizeof path, "%s/busy", dir());
    file = fopen(path, "r");
    char name[32], consumer[64];
    unsigned offset;
    while (file && fscanf(file, "%31s %u %63s", name, &offset, consumer) == 3) {
        for (int index = 0; index < chip_count; index++) {
            if (strcmp(chips[index].name, name) == 0 && offset < chips[index].count) {
                chips[index].lines[offset].busy = 1;
                snprintf(chips[index].lines[offset].consumer, sizeof chips[index].lines[offset].consumer, "%s", consumer);
            }
        }
    }
    if (file) fclose(file);
}

static struct emu_chip *find_chip(const char *path) {
    pthread_mutex_lock(&lock);
    load();
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    struct emu_chip *found = NULL;
    for (int index = 0; index < chip_count; index++) if (strcmp(chips[index].name, base) == 0) found = &chips[index];
    pthread_mutex_unlock(&lock);
    if (!found) errno = ENOENT;
    return found;
}

static int find_offset(struct emu_chip *chip, const char *name) {
    for (unsigned offset = 0; offset < chip->count; offset++) if (strcmp(chip->lines[offset].name, name) == 0) return (int)offset;
    errno = ENOENT;
    return -1;
}

static int claim(struct emu_chip *chip, unsigned offset, const char *consumer) {
    if (offset >= chip->count) {
        errno = EINVAL;
        return -1;
    }
    struct emu_line *line = &chip->lines[offset];
    if (line->busy || line->requested) {
        errno = EBUSY;
        return -1;
    }
    line->requested = 1;
    snprintf(line->consumer, sizeof line->consumer, "%s", consumer ? consumer : "");
    return 0;
}

static int open_fifo(struct emu_chip *chip, unsigned offset) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s-%u.edges", dir(), chip->name, offset);
    mkfifo(path, 0644);
    // Read-write, so the FIFO stays open between the test's writes.
    chip->lines[offset].fifo = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    return chip->lines[offset].fifo;
}

// One injected edge: 1 rising, 0 falling, -1 with errno.
static int next_edge(struct emu_chip *chip, unsigned offset, uint64_t *timestamp) {
    struct emu_line *line = &chip->lines[offset];
    for (;;) {
        char *newline = memchr(line->pending, '\n', line->pending_size);
        if (newline) {
            *newline = 0;
            char kind[16] = "";
            unsigned long long at = 0;
            int fields = sscanf(line->pending, "%15s %llu", kind, &at);
            size_t used = (size_t)(newline - line->pending) + 1;
            memmove(line->pending, newline + 1, line->pending_size - used);
            line->pending_size -= used;
            if (fields < 1) continue;
            *timestamp = fields == 2 ? at : now_ns();
            int rising = strcmp(kind, "rising") == 0;
            line->value = rising;
            logf_(chip, offset, "edge %s %llu", rising ? "rising" : "falling", (unsigned long long)*timestamp);
            return rising;
        }
        ssize_t count = read(line->fifo, line->pending + line->pending_size, sizeof line->pending - line->pending_size - 1);
        if (count <= 0) {
            if (count == 0) errno = EIO;
            return -1;
        }
        line->pending_size += (size_t)count;
    }
}

static void release_line(struct emu_chip *chip, unsigned offset) {
    struct emu_line *line = &chip->lines[offset];
    if (line->fifo >= 0) close(line->fifo);
    line->fifo = -1;
    line->requested = 0;
    line->consumer[0] = 0;
    line->pending_size = 0;
    logf_(chip, offset, "release value=%d", line->value);
}

/* A chip handle of either generation is the emulated chip it opened. */
struct gpiod_chip { struct emu_chip *emu; };

struct gpiod_chip *gpiod_chip_open(const char *path) {
    struct emu_chip *emu = find_chip(path);
    if (!emu) return NULL;
    struct gpiod_chip *chip = calloc(1, sizeof *chip);
    chip->emu = emu;
    return chip;
}

void gpiod_chip_close(struct gpiod_chip *chip) { free(chip); }

#ifdef GPIOD_LINE_BULK_MAX_LINES
/* ---- libgpiod 1.x ---- */

struct gpiod_line { struct emu_chip *emu; unsigned offset; };
static struct gpiod_line handles[MAX_CHIPS][MAX_LINES];

const char *gpiod_version_string(void) { return "1.6-emulated"; }

const char *gpiod_chip_name(struct gpiod_chip *chip) { return chip->emu->name; }
const char *gpiod_chip_label(struct gpiod_chip *chip) { return chip->emu->label; }
unsigned int gpiod_chip_num_lines(struct gpiod_chip *chip) { return chip->emu->count; }

struct gpiod_line *gpiod_chip_get_line(struct gpiod_chip *chip, unsigned int offset) {
    if (offset >= chip->emu->count) {
        errno = EINVAL;
        return NULL;
    }
    struct gpiod_line *line = &handles[chip->emu - chips][offset];
    line->emu = chip->emu;
    line->offset = offset;
    return line;
}

struct gpiod_line *gpiod_chip_find_line(struct gpiod_chip *chip, const char *name) {
    int offset = find_offset(chip->emu, name);
    return offset < 0 ? NULL : gpiod_chip_get_line(chip, (unsigned)offset);
}

unsigned int gpiod_line_offset(struct gpiod_line *line) { return line->offset; }
const char *gpiod_line_name(struct gpiod_line *line) { return line->emu->lines[line->offset].name[0] ? line->emu->lines[line->offset].name : NULL; }
const char *gpiod_line_consumer(struct gpiod_line *line) { return line->emu->lines[line->offset].consumer[0] ? line->emu->lines[line->offset].consumer : NULL; }
bool gpiod_line_is_used(struct gpiod_line *line) { return line->emu->lines[line->offset].busy || line->emu->lines[line->offset].requested; }

int gpiod_line_request_output_flags(struct gpiod_line *line, const char *consumer, int flags, int default_val) {
    pthread_mutex_lock(&lock);
    int result = claim(line->emu, line->offset, consumer);
    if (result == 0) {
        line->emu->lines[line->offset].value = default_val != 0;
        line->emu->lines[line->offset].active_low = (flags & GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) != 0;
        logf_(line->emu, line->offset, "request-output value=%d active_low=%d drive=%s consumer=%s", default_val != 0,
              (flags & GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) != 0, (flags & GPIOD_LINE_REQUEST_FLAG_OPEN_DRAIN) ? "open-drain" : "push-pull", consumer);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

int gpiod_line_request_both_edges_events_flags(struct gpiod_line *line, const char *consumer, int flags) {
    pthread_mutex_lock(&lock);
    int result = claim(line->emu, line->offset, consumer);
    if (result == 0) {
        const char *bias = (flags & GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP) ? "pull-up" : (flags & GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN) ? "pull-down"
                         : (flags & GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE) ? "disabled" : "as-is";
        line->emu->lines[line->offset].value = 0;
        if (open_fifo(line->emu, line->offset) < 0) result = -1;
        logf_(line->emu, line->offset, "request-input edges=both bias=%s active_low=%d consumer=%s", bias, (flags & GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) != 0, consumer);
    }
    pthread_mutex_unlock(&lock);
    return result;
}

int gpiod_line_set_value(struct gpiod_line *line, int value) {
    pthread_mutex_lock(&lock);
    line->emu->lines[line->offset].value = value != 0;
    logf_(line->emu, line->offset, "set %d", value != 0);
    pthread_mutex_unlock(&lock);
    return 0;
}

int gpiod_line_get_value(struct gpiod_line *line) { return line->emu->lines[line->offset].value; }
int gpiod_line_event_get_fd(struct gpiod_line *line) { return line->emu->lines[line->offset].fifo; }

int gpiod_line_event_read(struct gpiod_line *line, struct gpiod_line_event *event) {
    pthread_mutex_lock(&lock);
    uint64_t timestamp = 0;
    int edge = next_edge(line->emu, line->offset, &timestamp);
    pthread_mutex_unlock(&lock);
    if (edge < 0) return -1;
    event->ts.tv_sec = (time_t)(timestamp / 1000000000u);
    event->ts.tv_nsec = (long)(timestamp % 1000000000u);
    event->event_type = edge ? GPIOD_LINE_EVENT_RISING_EDGE : GPIOD_LINE_EVENT_FALLING_EDGE;
    return 0;
}

void gpiod_line_release(struct gpiod_line *line) {
    pthread_mutex_lock(&lock);
    release_line(line->emu, line->offset);
    pthread_mutex_unlock(&lock);
}

#else
/* ---- libgpiod 2.x ---- */

struct gpiod_chip_info { struct emu_chip *emu; };
struct gpiod_line_info { struct emu_chip *emu; unsigned offset; };
struct gpiod_line_settings { int output, active_low, open_drain, value, bias; };
struct gpiod_line_config { unsigned offset; struct gpiod_line_settings settings; int set; };
struct gpiod_request_config { char consumer[64]; };
struct gpiod_line_request { struct emu_chip *emu; unsigned offset; };
struct gpiod_edge_event { uint64_t timestamp; int rising; };
struct gpiod_edge_event_buffer { struct gpiod_edge_event event; };

const char *gpiod_api_version(void) { return "2.x-emulated"; }

struct gpiod_chip_info *gpiod_chip_get_info(struct gpiod_chip *chip) {
    struct gpiod_chip_info *info = calloc(1, sizeof *info);
    info->emu = chip->emu;
    return info;
}

void gpiod_chip_info_free(struct gpiod_chip_info *info) { free(info); }
const char *gpiod_chip_info_get_name(struct gpiod_chip_info *info) { return info->emu->name; }
const char *gpiod_chip_info_get_label(struct gpiod_chip_info *info) { return info->emu->label; }
size_t gpiod_chip_info_get_num_lines(struct gpiod_chip_info *info) { return info->emu->count; }

struct gpiod_line_info *gpiod_chip_get_line_info(struct gpiod_chip *chip, unsigned int offset) {
    if (offset >= chip->emu->count) {
        errno = EINVAL;
        return NULL;
    }
    struct gpiod_line_info *info = calloc(1, sizeof *info);
    info->emu = chip->emu;
    info->offset = offset;
    return info;
}

void gpiod_line_info_free(struct gpiod_line_info *info) { free(info); }
const char *gpiod_line_info_get_name(struct gpiod_line_info *info) { return info->emu->lines[info->offset].name[0] ? info->emu->lines[info->offset].name : NULL; }
const char *gpiod_line_info_get_consumer(struct gpiod_line_info *info) { return info->emu->lines[info->offset].consumer[0] ? info->emu->lines[info->offset].consumer : NULL; }
bool gpiod_line_info_is_used(struct gpiod_line_info *info) { return info->emu->lines[info->offset].busy || info->emu->lines[info->offset].requested; }

int gpiod_chip_get_line_offset_from_name(struct gpiod_chip *chip, const char *name) { return find_offset(chip->emu, name); }

struct gpiod_line_settings *gpiod_line_settings_new(void) { return calloc(1, sizeof(struct gpiod_line_settings)); }
void gpiod_line_settings_free(struct gpiod_line_settings *settings) { free(settings); }
int gpiod_line_settings_set_direction(struct gpiod_line_settings *settings, enum gpiod_line_direction direction) {
    settings->output = direction == GPIOD_LINE_DIRECTION_OUTPUT;
    return 0;
}
void gpiod_line_settings_set_active_low(struct gpiod_line_settings *settings, bool active_low) { settings->active_low = active_low; }
int gpiod_line_settings_set_drive(struct gpiod_line_settings *settings, enum gpiod_line_drive drive) {
    settings->open_drain = drive == GPIOD_LINE_DRIVE_OPEN_DRAIN;
    return 0;
}
int gpiod_line_settings_set_output_value(struct gpiod_line_settings *settings, enum gpiod_line_value value) {
    settings->value = value == GPIOD_LINE_VALUE_ACTIVE;
    return 0;
}
int gpiod_line_settings_set_bias(struct gpiod_line_settings *settings, enum gpiod_line_bias bias) {
    settings->bias = bias;
    return 0;
}
int gpiod_line_settings_set_edge_detection(struct gpiod_line_settings *settings, enum gpiod_line_edge edge) {
    (void)settings;
    (void)edge;
    return 0;
}

struct gpiod_line_config *gpiod_line_config_new(void) { return calloc(1, sizeof(struct gpiod_line_config)); }
void gpiod_line_config_free(struct gpiod_line_config *config) { free(config); }
int gpiod_line_config_add_line_settings(struct gpiod_line_config *config, const unsigned int *offsets, size_t num_offsets, struct gpiod_line_settings *settings) {
    if (num_offsets != 1) {
        errno = EINVAL;
        return -1;
    }
    config->offset = offsets[0];
    config->settings = *settings;
    config->set = 1;
    return 0;
}

struct gpiod_request_config *gpiod_request_config_new(void) { return calloc(1, sizeof(struct gpiod_request_config)); }
void gpiod_request_config_free(struct gpiod_request_config *config) { free(config); }
void gpiod_request_config_set_consumer(struct gpiod_request_config *config, const char *consumer) {
    snprintf(config->consumer, sizeof config->consumer, "%s", consumer ? consumer : "");
}

struct gpiod_line_request *gpiod_chip_request_lines(struct gpiod_chip *chip, struct gpiod_request_config *request_config, struct gpiod_line_config *line_config) {
    static const char *biases[] = {"as-is", "as-is", "as-is", "disabled", "pull-up", "pull-down"};
    const char *consumer = request_config ? request_config->consumer : "";
    const struct gpiod_line_settings *settings = &line_config->settings;
    pthread_mutex_lock(&lock);
    struct gpiod_line_request *request = NULL;
    if (!line_config->set) {
        errno = EINVAL;
    } else if (claim(chip->emu, line_config->offset, consumer) == 0) {
        request = calloc(1, sizeof *request);
        request->emu = chip->emu;
        request->offset = line_config->offset;
        struct emu_line *line = &chip->emu->lines[request->offset];
        line->active_low = settings->active_low;
        if (settings->output) {
            line->value = settings->value;
            logf_(chip->emu, request->offset, "request-output value=%d active_low=%d drive=%s consumer=%s", settings->value, settings->active_low,
                  settings->open_drain ? "open-drain" : "push-pull", consumer);
        } else {
            line->value = 0;
            open_fifo(chip->emu, request->offset);
            logf_(chip->emu, request->offset, "request-input edges=both bias=%s active_low=%d consumer=%s",
                  settings->bias >= 0 && settings->bias <= 5 ? biases[settings->bias] : "?", settings->active_low, consumer);
        }
    }
    pthread_mutex_unlock(&lock);
    return request;
}

int gpiod_line_request_set_value(struct gpiod_line_request *request, unsigned int offset, enum gpiod_line_value value) {
    if (offset != request->offset) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&lock);
    request->emu->lines[offset].value = value == GPIOD_LINE_VALUE_ACTIVE;
    logf_(request->emu, offset, "set %d", value == GPIOD_LINE_VALUE_ACTIVE);
    pthread_mutex_unlock(&lock);
    return 0;
}

enum gpiod_line_value gpiod_line_request_get_value(struct gpiod_line_request *request, unsigned int offset) {
    if (offset != request->offset) {
        errno = EINVAL;
        return GPIOD_LINE_VALUE_ERROR;
    }
    return request->emu->lines[offset].value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
}

int gpiod_line_request_get_fd(struct gpiod_line_request *request) { return request->emu->lines[request->offset].fifo; }

struct gpiod_edge_event_buffer *gpiod_edge_event_buffer_new(size_t capacity) {
    (void)capacity;
    return calloc(1, sizeof(struct gpiod_edge_event_buffer));
}
void gpiod_edge_event_buffer_free(struct gpiod_edge_event_buffer *buffer) { free(buffer); }
struct gpiod_edge_event *gpiod_edge_event_buffer_get_event(struct gpiod_edge_event_buffer *buffer, unsigned long index) {
    return index == 0 ? &buffer->event : NULL;
}
uint64_t gpiod_edge_event_get_timestamp_ns(struct gpiod_edge_event *event) { return event->timestamp; }
enum gpiod_edge_event_type gpiod_edge_event_get_event_type(struct gpiod_edge_event *event) {
    return event->rising ? GPIOD_EDGE_EVENT_RISING_EDGE : GPIOD_EDGE_EVENT_FALLING_EDGE;
}

int gpiod_line_request_read_edge_events(struct gpiod_line_request *request, struct gpiod_edge_event_buffer *buffer, size_t max_events) {
    if (max_events < 1) return 0;
    pthread_mutex_lock(&lock);
    int edge = next_edge(request->emu, request->offset, &buffer->event.timestamp);
    pthread_mutex_unlock(&lock);
    if (edge < 0) return -1;
    buffer->event.rising = edge;
    return 1;
}

void gpiod_line_request_release(struct gpiod_line_request *request) {
    pthread_mutex_lock(&lock);
    release_line(request->emu, request->offset);
    pthread_mutex_unlock(&lock);
    free(request);
}
#endif
