// Holds the daemon's own declarations of libgpiod (Sources/CGPIOLines/gpiod_abi.h) against the
// real header of one generation: each function's type, each constant, and the one structure the
// caller allocates. Compiled, never run: a mismatch fails the build.
//   cc -fsyntax-only abi-check.c                  against /usr/include/gpiod.h (1.x)
//   cc -fsyntax-only -IPREFIX/include abi-check.c against libgpiod 2.x
#include <gpiod.h>
#include <stddef.h>

#include "../../../Sources/CGPIOLines/gpiod_abi.h"

#define KS_SAME_TYPE(type, name, parameters) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), type(*) parameters), #name " differs from gpiod.h");

#define KS_SAME_VALUE(ours, theirs) _Static_assert((int)(ours) == (int)(theirs), #ours " differs from " #theirs)

#ifdef GPIOD_LINE_BULK_MAX_LINES
KS_GPIOD1_FUNCTIONS(KS_SAME_TYPE)
_Static_assert(sizeof(struct ks_gpiod1_line_event) == sizeof(struct gpiod_line_event), "struct gpiod_line_event");
_Static_assert(offsetof(struct ks_gpiod1_line_event, ts) == offsetof(struct gpiod_line_event, ts), "gpiod_line_event.ts");
_Static_assert(offsetof(struct ks_gpiod1_line_event, event_type) == offsetof(struct gpiod_line_event, event_type), "gpiod_line_event.event_type");
KS_SAME_VALUE(KS_GPIOD1_FLAG_OPEN_DRAIN, GPIOD_LINE_REQUEST_FLAG_OPEN_DRAIN);
KS_SAME_VALUE(KS_GPIOD1_FLAG_ACTIVE_LOW, GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW);
KS_SAME_VALUE(KS_GPIOD1_FLAG_BIAS_DISABLE, GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE);
KS_SAME_VALUE(KS_GPIOD1_FLAG_BIAS_PULL_DOWN, GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN);
KS_SAME_VALUE(KS_GPIOD1_FLAG_BIAS_PULL_UP, GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP);
KS_SAME_VALUE(KS_GPIOD1_EVENT_RISING_EDGE, GPIOD_LINE_EVENT_RISING_EDGE);
#else
KS_GPIOD2_FUNCTIONS(KS_SAME_TYPE)
KS_SAME_VALUE(KS_GPIOD2_VALUE_ERROR, GPIOD_LINE_VALUE_ERROR);
KS_SAME_VALUE(KS_GPIOD2_VALUE_INACTIVE, GPIOD_LINE_VALUE_INACTIVE);
KS_SAME_VALUE(KS_GPIOD2_VALUE_ACTIVE, GPIOD_LINE_VALUE_ACTIVE);
KS_SAME_VALUE(KS_GPIOD2_DIRECTION_INPUT, GPIOD_LINE_DIRECTION_INPUT);
KS_SAME_VALUE(KS_GPIOD2_DIRECTION_OUTPUT, GPIOD_LINE_DIRECTION_OUTPUT);
KS_SAME_VALUE(KS_GPIOD2_EDGE_BOTH, GPIOD_LINE_EDGE_BOTH);
KS_SAME_VALUE(KS_GPIOD2_BIAS_AS_IS, GPIOD_LINE_BIAS_AS_IS);
KS_SAME_VALUE(KS_GPIOD2_BIAS_DISABLED, GPIOD_LINE_BIAS_DISABLED);
KS_SAME_VALUE(KS_GPIOD2_BIAS_PULL_UP, GPIOD_LINE_BIAS_PULL_UP);
KS_SAME_VALUE(KS_GPIOD2_BIAS_PULL_DOWN, GPIOD_LINE_BIAS_PULL_DOWN);
KS_SAME_VALUE(KS_GPIOD2_DRIVE_PUSH_PULL, GPIOD_LINE_DRIVE_PUSH_PULL);
KS_SAME_VALUE(KS_GPIOD2_DRIVE_OPEN_DRAIN, GPIOD_LINE_DRIVE_OPEN_DRAIN);
KS_SAME_VALUE(KS_GPIOD2_EDGE_EVENT_RISING_EDGE, GPIOD_EDGE_EVENT_RISING_EDGE);
#endif
