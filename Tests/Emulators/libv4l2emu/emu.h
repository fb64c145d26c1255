/* Shared declarations of the emulated camera (see README.md): the scene a node file scripts,
 * and how frames are rendered from it. */
#ifndef KSEMU_H
#define KSEMU_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KSEMU_MAX_FORMATS 8
#define KSEMU_MAX_SIZES 8
#define KSEMU_MAX_BUFFERS 8
#define KSEMU_CONTROLS 5

enum ksemu_open { OPEN_OK, OPEN_BUSY, OPEN_DENIED, OPEN_MISSING };

/* What the node file says. */
struct ksemu_scene {
    char frame[PATH_MAX];
    char sequence[PATH_MAX]; /* printf pattern with one %d: frame i of a sequence (producer.c only) */
    int frames;              /* the sequence's length */
    int background, noise, stall, fps;
    int autofocus; /* libcameraemu only: the camera has AfMode and LensPosition (default 1) */
    enum ksemu_open open;
    uint32_t formats[KSEMU_MAX_FORMATS];
    int nformats;
    uint32_t emulated[KSEMU_MAX_FORMATS]; /* of those, the ones listed as libv4l2's conversions */
    int nemulated;
    int widths[KSEMU_MAX_SIZES], heights[KSEMU_MAX_SIZES];
    int nsizes;
    unsigned generation; /* bumped whenever the file is re-read */
};

/* Each control's default value, in ioctl.c's order. */
void ksemu_control_defaults(int32_t *values);

/* Re-reads `node` into `scene` when it changed; returns 0 while the node exists, -1 when it is gone. */
int ksemu_scene_refresh(const char *node, struct ksemu_scene *scene);

/* Renders the scene's luma (background, image centred at 1:1, noise) into `luma` (w*h). */
void ksemu_render_luma(const struct ksemu_scene *scene, uint8_t *luma, int width, int height, uint64_t *rng);

/* Packs luma into `fourcc` at `out`; returns bytes used (0 on failure). */
size_t ksemu_pack(uint32_t fourcc, const uint8_t *luma, int width, int height, uint8_t *out, size_t capacity);

/* Bytes per line and image size of a format. */
void ksemu_geometry(uint32_t fourcc, int width, int height, uint32_t *bytesperline, uint32_t *sizeimage);

/* Appends "EVENT key=value ...\n" with t=<monotonic ns> to $KSEMU_LOG, if set. */
void ksemu_log(const char *event, const char *format, ...) __attribute__((format(printf, 2, 3)));

uint64_t ksemu_now_ns(void);

/* The library (v4l2emu.c) and the producer (producer.c), a helper process it starts at
 * VIDIOC_STREAMON, share one SOCK_SEQPACKET pair per handle. The library's end is the app's fd:
 * the producer sends it one FILLED record per filled buffer, so it polls readable once per frame,
 * and shuts the pair down on unplug, so it hangs up. The library sends the producer SETUP (with
 * the buffer memfds attached), then QUEUE for every VIDIOC_QBUF, and STOP or UNPLUG. The producer
 * answers STOP with STOPPED; WAKE is the library's own, to wake a blocking VIDIOC_DQBUF. */
enum ksemu_kind { KSEMU_SETUP = 1, KSEMU_QUEUE, KSEMU_STOP, KSEMU_UNPLUG, KSEMU_FILLED, KSEMU_STOPPED, KSEMU_WAKE };

struct ksemu_message {
    uint32_t kind;
    uint32_t index;      /* QUEUE, FILLED: the buffer */
    uint32_t sequence;   /* SETUP, STOPPED: the last frame's so far; FILLED: this frame's */
    uint32_t used;       /* FILLED: bytes written */
    uint64_t timestamp;  /* FILLED: CLOCK_MONOTONIC ns when it was filled */
    uint64_t rng;        /* SETUP, STOPPED: the noise generator's state */
    /* SETUP only: the format, the buffers (their memfds ride along as SCM_RIGHTS, in index order),
     * the app's fd for the log lines, and the buffers already queued, oldest first. */
    uint32_t fourcc;
    int32_t width, height, nbuffers, app_fd, nqueued;
    uint64_t length;
    uint32_t queued[KSEMU_MAX_BUFFERS];
};

#endif
