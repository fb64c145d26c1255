// The parts of libgpiod's two ABIs that gpio_lines.c calls. The daemon loads the library at run
// time (libgpiod.so.3, the 2.x generation, else libgpiod.so.2, 1.6), so one binary runs on
// Debian 12 and 13 alike and builds against neither header. Each list names a function, its
// return type and its parameters; Tests/Emulators/libgpiodemu/abi-check.c holds every entry and
// constant against the real header of its generation, so that a mismatch fails the build.
#ifndef KS_GPIOD_ABI_H
#define KS_GPIOD_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct gpiod_chip;
struct gpiod_line;
struct gpiod_line_event;
struct gpiod_chip_info;
struct gpiod_line_info;
struct gpiod_line_settings;
struct gpiod_line_config;
struct gpiod_request_config;
struct gpiod_line_request;
struct gpiod_edge_event_buffer;
struct gpiod_edge_event;

/* ---- libgpiod 1.x (libgpiod.so.2) ---- */

#define KS_GPIOD1_FUNCTIONS(X)                                                                       \
    X(const char *, gpiod_version_string, (void))                                                    \
    X(struct gpiod_chip *, gpiod_chip_open, (const char *))                                          \
    X(void, gpiod_chip_close, (struct gpiod_chip *))                                                 \
    X(const char *, gpiod_chip_name, (struct gpiod_chip *))                                          \
    X(const char *, gpiod_chip_label, (struct gpiod_chip *))                                         \
    X(unsigned int, gpiod_chip_num_lines, (struct gpiod_chip *))                                     \
    X(struct gpiod_line *, gpiod_chip_get_line, (struct gpiod_chip *, unsigned int))                 \
    X(struct gpiod_line *, gpiod_chip_find_line, (struct gpiod_chip *, const char *))                \
    X(unsigned int, gpiod_line_offset, (struct gpiod_line *))                                        \
    X(const char *, gpiod_line_name, (struct gpiod_line *))                                          \
    X(const char *, gpiod_line_consumer, (struct gpiod_line *))                                      \
    X(bool, gpiod_line_is_used, (struct gpiod_line *))                                               \
    X(int, gpiod_line_request_output_flags, (struct gpiod_line *, const char *, int, int))           \
    X(int, gpiod_line_request_both_edges_events_flags, (struct gpiod_line *, const char *, int))     \
    X(int, gpiod_line_set_value, (struct gpiod_line *, int))                                         \
    X(int, gpiod_line_get_value, (struct gpiod_line *))                                              \
    X(int, gpiod_line_event_get_fd, (struct gpiod_line *))                                           \
    X(int, gpiod_line_event_read, (struct gpiod_line *, struct gpiod_line_event *))                  \
    X(void, gpiod_line_release, (struct gpiod_line *))

/// struct gpiod_line_event of 1.x, the one structure the caller allocates.
struct ks_gpiod1_line_event {
    struct timespec ts;
    int event_type;
};

enum {
    KS_GPIOD1_FLAG_OPEN_DRAIN = 1 << 0,
    KS_GPIOD1_FLAG_ACTIVE_LOW = 1 << 2,
    KS_GPIOD1_FLAG_BIAS_DISABLE = 1 << 3,
    KS_GPIOD1_FLAG_BIAS_PULL_DOWN = 1 << 4,
    KS_GPIOD1_FLAG_BIAS_PULL_UP = 1 << 5,
    KS_GPIOD1_EVENT_RISING_EDGE = 1,
};

/* ---- libgpiod 2.x (libgpiod.so.3) ---- */

// The 2.x enums are passed as their underlying type: unsigned int, or int for gpiod_line_value
// (which has -1 for an error).
#define KS_GPIOD2_FUNCTIONS(X)                                                                       \
    X(const char *, gpiod_api_version, (void))                                                       \
    X(struct gpiod_chip *, gpiod_chip_open, (const char *))                                          \
    X(void, gpiod_chip_close, (struct gpiod_chip *))                                                 \
    X(struct gpiod_chip_info *, gpiod_chip_get_info, (struct gpiod_chip *))                          \
    X(const char *, gpiod_chip_info_get_name, (struct gpiod_chip_info *))                            \
    X(const char *, gpiod_chip_info_get_label, (struct gpiod_chip_info *))                           \
    X(size_t, gpiod_chip_info_get_num_lines, (struct gpiod_chip_info *))                             \
    X(void, gpiod_chip_info_free, (struct gpiod_chip_info *))                                        \
    X(struct gpiod_line_info *, gpiod_chip_get_line_info, (struct gpiod_chip *, unsigned int))       \
    X(const char *, gpiod_line_info_get_name, (struct gpiod_line_info *))                            \
    X(const char *, gpiod_line_info_get_consumer, (struct gpiod_line_info *))                        \
    X(bool, gpiod_line_info_is_used, (struct gpiod_line_info *))                                     \
    X(void, gpiod_line_info_free, (struct gpiod_line_info *))                                        \
    X(int, gpiod_chip_get_line_offset_from_name, (struct gpiod_chip *, const char *))                \
    X(struct gpiod_line_settings *, gpiod_line_settings_new, (void))                                 \
    X(void, gpiod_line_settings_free, (struct gpiod_line_settings *))                                \
    X(int, gpiod_line_settings_set_direction, (struct gpiod_line_settings *, unsigned int))          \
    X(void, gpiod_line_settings_set_active_low, (struct gpiod_line_settings *, bool))                \
    X(int, gpiod_line_settings_set_drive, (struct gpiod_line_settings *, unsigned int))              \
    X(int, gpiod_line_settings_set_output_value, (struct gpiod_line_settings *, int))                \
    X(int, gpiod_line_settings_set_bias, (struct gpiod_line_settings *, unsigned int))               \
    X(int, gpiod_line_settings_set_edge_detection, (struct gpiod_line_settings *, unsigned int))     \
    X(struct gpiod_line_config *, gpiod_line_config_new, (void))                                     \
    X(void, gpiod_line_config_free, (struct gpiod_line_config *))                                    \
    X(int, gpiod_line_config_add_line_settings,                                                      \
      (struct gpiod_line_config *, const unsigned int *, size_t, struct gpiod_line_settings *))      \
    X(struct gpiod_request_config *, gpiod_request_config_new, (void))                               \
    X(void, gpiod_request_config_free, (struct gpiod_request_config *))                              \
    X(void, gpiod_request_config_set_consumer, (struct gpiod_request_config *, const char *))        \
    X(struct gpiod_line_request *, gpiod_chip_request_lines,                                         \
      (struct gpiod_chip *, struct gpiod_request_config *, struct gpiod_line_config *))              \
    X(int, gpiod_line_request_set_value, (struct gpiod_line_request *, unsigned int, int))           \
    X(int, gpiod_line_request_get_value, (struct gpiod_line_request *, unsigned int))                \
    X(int, gpiod_line_request_get_fd, (struct gpiod_line_request *))                                 \
    X(int, gpiod_line_request_read_edge_events,                                                      \
      (struct gpiod_line_request *, struct gpiod_edge_event_buffer *, size_t))                       \
    X(void, gpiod_line_request_release, (struct gpiod_line_request *))                               \
    X(struct gpiod_edge_event_buffer *, gpiod_edge_event_buffer_new, (size_t))                       \
    X(void, gpiod_edge_event_buffer_free, (struct gpiod_edge_event_buffer *))                        \
    X(struct gpiod_edge_event *, gpiod_edge_event_buffer_get_event,                                  \
      (struct gpiod_edge_event_buffer *, unsigned long))                                             \
    X(uint64_t, gpiod_edge_event_get_timestamp_ns, (struct gpiod_edge_event *))                      \
    X(unsigned int, gpiod_edge_event_get_event_type, (struct gpiod_edge_event *))

enum {
    KS_GPIOD2_VALUE_ERROR = -1,
    KS_GPIOD2_VALUE_INACTIVE = 0,
    KS_GPIOD2_VALUE_ACTIVE = 1,
    KS_GPIOD2_DIRECTION_INPUT = 2,
    KS_GPIOD2_DIRECTION_OUTPUT = 3,
    KS_GPIOD2_EDGE_BOTH = 4,
    KS_GPIOD2_BIAS_AS_IS = 1,
    KS_GPIOD2_BIAS_DISABLED = 3,
    KS_GPIOD2_BIAS_PULL_UP = 4,
    KS_GPIOD2_BIAS_PULL_DOWN = 5,
    KS_GPIOD2_DRIVE_PUSH_PULL = 1,
    KS_GPIOD2_DRIVE_OPEN_DRAIN = 2,
    KS_GPIOD2_EDGE_EVENT_RISING_EDGE = 1,
};

#endif
