/* libcameraemu: an emulated libcamera camera at the daemon's libcamera boundary, the C table of
 * Sources/CLibcameraAPI/ks_libcamera.h. The daemon loads it in place of
 * libkiosk-scanner-libcamera.so (KS_LIBCAMERA_SHIM=.build/emulators/libcameraemu.so) and runs its
 * real libcamera source over it: open and its failures, the frame loop, an unplug as libcamera's
 * cameraRemoved reports it, controls and autofocus by libcamera's names.
 *
 * The camera is scripted by a node file, as libv4l2emu's is (see its README: frame, background,
 * noise, open, stall, formats, sizes, fps), plus `autofocus=0` for a fixed-focus camera. The file
 * present is the camera plugged; removing it unplugs the camera: a streaming camera reports
 * KS_LC_REMOVED, and open finds no camera.
 *
 * Environment: KSCAMEMU_NODE (the node file), KSCAMEMU_ID (the camera's id, default
 * "/base/emu/imx708@1a"), KSEMU_LOG (event lines: open, open-failed, control, af, frame, removed,
 * close).
 *
 * Frames are rendered in the caller's thread, at the scene's fps, into one of four buffers in the
 * chosen format; the frame handed out points into its buffer, as the real library's mapped
 * buffers do. Formats are offered as libcamera offers them, by V4L2 fourcc (GREY stands for R8). */
#include "emu.h"
#include "ks_libcamera.h"

#include <errno.h>
#include <linux/videodev2.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BUFFERS = 4 };

struct ks_lc_camera {
    char node[PATH_MAX], id[128], description[64], notes[1024];
    struct ksemu_scene scene;
    uint32_t fourcc;
    int width, height, stride;
    size_t size;
    uint8_t *buffers[BUFFERS], *luma;
    uint64_t rng, sequence, next_due;
    int next_buffer;
};

static void say(char *message, size_t size, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    if (message && size) vsnprintf(message, size, format, arguments);
    va_end(arguments);
}

static const char *camera_id(void) {
    const char *id = getenv("KSCAMEMU_ID");
    return id && *id ? id : "/base/emu/imx708@1a";
}

static void note(struct ks_lc_camera *c, const char *format, ...) {
    size_t used = strlen(c->notes);
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(c->notes + used, sizeof c->notes - used, format, arguments);
    va_end(arguments);
    used = strlen(c->notes);
    if (used + 1 < sizeof c->notes) strcat(c->notes, "\n");
}

/* The controls this camera has, as libcamera names them. */
static const char *const known_controls[] = {"ExposureTime", "AnalogueGain", "Brightness", "Contrast", NULL};

static void apply_settings(struct ks_lc_camera *c, const struct ks_lc_settings *settings) {
    for (int i = 0; i < settings->ncontrols; i++) {
        const char *name = settings->controls[i].name;
        int known = 0;
        for (const char *const *control = known_controls; *control; control++) known |= !strcmp(*control, name);
        if (known)
            ksemu_log("control", "name=%s value=%g", name, settings->controls[i].value);
        else
            note(c, "camera has no control '%s'; ignored (available: ExposureTime,AnalogueGain,Brightness,Contrast%s)", name,
                 c->scene.autofocus ? ",AfMode,LensPosition,AfTrigger" : "");
    }
    switch (settings->autofocus) {
    case KS_LC_AF_CONTINUOUS:
        if (c->scene.autofocus) ksemu_log("af", "mode=continuous");
        break;
    case KS_LC_AF_AUTO:
        if (c->scene.autofocus)
            ksemu_log("af", "mode=auto trigger=start");
        else
            note(c, "autofocus: auto asked, but the camera has no autofocus (no AfMode control)");
        break;
    case KS_LC_AF_MANUAL:
        if (c->scene.autofocus)
            ksemu_log("af", "mode=manual lens=%g", settings->lens_position);
        else if (settings->lens_position >= 0)
            note(c, "lens_position: the camera has no movable lens (no LensPosition control)");
        break;
    default: break;
    }
}

/* Luma first and whole, then packed YUV, JPEG last: the shim's order. */
static const uint32_t preferred[] = {V4L2_PIX_FMT_GREY, V4L2_PIX_FMT_NV12, V4L2_PIX_FMT_YUV420, V4L2_PIX_FMT_YUYV,
                                     V4L2_PIX_FMT_UYVY, V4L2_PIX_FMT_MJPEG};

static struct ks_lc_camera *emu_open(const struct ks_lc_settings *settings, int *result, char *message, size_t size) {
    const char *node = getenv("KSCAMEMU_NODE");
    struct ks_lc_camera *c = calloc(1, sizeof *c);
    if (!c) {
        *result = KS_LC_FAILED;
        say(message, size, "out of memory");
        return NULL;
    }
    snprintf(c->node, sizeof c->node, "%s", node ? node : "");
    snprintf(c->id, sizeof c->id, "%s", camera_id());
    const char *wanted = settings->camera_id && *settings->camera_id ? settings->camera_id : NULL;
    int failure = KS_LC_OK;
    if (!node || ksemu_scene_refresh(node, &c->scene) != 0 || c->scene.open == OPEN_MISSING) {
        failure = KS_LC_NO_CAMERA;
        say(message, size, "libcamera finds no camera: is one connected (and its driver loaded)?");
    } else if (wanted && strcmp(wanted, c->id) != 0) {
        failure = KS_LC_NO_CAMERA;
        say(message, size, "libcamera has no camera '%s' (it has: %s)", wanted, c->id);
    } else if (c->scene.open == OPEN_BUSY) {
        failure = KS_LC_BUSY;
        say(message, size, "camera %s is in use by another process (acquire: Device or resource busy)", c->id);
    } else if (c->scene.open == OPEN_DENIED) {
        failure = KS_LC_DENIED;
        say(message, size, "no permission to open /dev/media0; add the daemon's user to the 'video' group");
    }
    for (size_t i = 0; failure == KS_LC_OK && !c->fourcc && i < sizeof preferred / sizeof *preferred; i++)
        for (int j = 0; j < c->scene.nformats; j++)
            if (c->scene.formats[j] == preferred[i]) c->fourcc = preferred[i];
    if (failure == KS_LC_OK && !c->fourcc) {
        failure = KS_LC_UNSUPPORTED;
        say(message, size, "camera %s offers no format we read", c->id);
    }
    if (failure != KS_LC_OK) {
        ksemu_log("open-failed", "result=%d", failure);
        *result = failure;
        free(c);
        return NULL;
    }
    /* The size nearest the one asked for, as validate() adjusts it. */
    long best = -1;
    for (int i = 0; i < c->scene.nsizes; i++) {
        long distance = labs((long)c->scene.widths[i] * c->scene.heights[i] - (long)settings->width * settings->height);
        if (best < 0 || distance < best) best = distance, c->width = c->scene.widths[i], c->height = c->scene.heights[i];
    }
    uint32_t bytesperline, sizeimage;
    ksemu_geometry(c->fourcc, c->width, c->height, &bytesperline, &sizeimage);
    c->stride = c->fourcc == V4L2_PIX_FMT_MJPEG ? 0 : (int)bytesperline;
    c->size = sizeimage;
    c->luma = malloc((size_t)c->width * c->height);
    for (int i = 0; i < BUFFERS; i++) c->buffers[i] = malloc(c->size);
    c->rng = 0x9e3779b97f4a7c15ULL;
    snprintf(c->description, sizeof c->description, "%.4s %dx%d", (const char *)&c->fourcc, c->width, c->height);
    ksemu_log("open", "id=%s format=%.4s size=%dx%d", c->id, (const char *)&c->fourcc, c->width, c->height);
    apply_settings(c, settings);
    c->next_due = ksemu_now_ns();
    *result = KS_LC_OK;
    return c;
}

static void sleep_until(uint64_t due) {
    struct timespec at = {(time_t)(due / 1000000000ULL), (long)(due % 1000000000ULL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {}
}

static int emu_next(struct ks_lc_camera *c, int timeout_ms, struct ks_lc_frame *frame, char *message, size_t size) {
    uint64_t limit = ksemu_now_ns() + (uint64_t)timeout_ms * 1000000ULL;
    if (ksemu_scene_refresh(c->node, &c->scene) != 0) {
        ksemu_log("removed", "id=%s", c->id);
        say(message, size, "camera %s was disconnected", c->id);
        return KS_LC_REMOVED;
    }
    if (c->scene.stall || c->next_due > limit) {
        sleep_until(limit);
        if (!c->scene.stall) return KS_LC_TIMEOUT;
        return ksemu_scene_refresh(c->node, &c->scene) != 0 ? (say(message, size, "camera %s was disconnected", c->id), KS_LC_REMOVED)
                                                           : KS_LC_TIMEOUT;
    }
    sleep_until(c->next_due);
    c->next_due += 1000000000ULL / (uint64_t)(c->scene.fps > 0 ? c->scene.fps : 30);
    uint8_t *buffer = c->buffers[c->next_buffer];
    c->next_buffer = (c->next_buffer + 1) % BUFFERS;
    ksemu_render_luma(&c->scene, c->luma, c->width, c->height, &c->rng);
    size_t used = ksemu_pack(c->fourcc, c->luma, c->width, c->height, buffer, c->size);
    if (!used) return KS_LC_TIMEOUT;
    *frame = (struct ks_lc_frame){
        .data = buffer, .used = used, .length = c->size, .fourcc = c->fourcc, .width = c->width, .height = c->height,
        .stride = c->stride, .timestamp_ns = ksemu_now_ns(), .sequence = c->sequence++, .skipped = 0,
    };
    ksemu_log("frame", "seq=%llu", (unsigned long long)frame->sequence);
    return KS_LC_OK;
}

static const char *emu_camera_id(struct ks_lc_camera *c) { return c->id; }
static const char *emu_describe(struct ks_lc_camera *c) { return c->description; }
static const char *emu_notes(struct ks_lc_camera *c) { return c->notes; }

static void emu_close(struct ks_lc_camera *c) {
    ksemu_log("close", "id=%s", c->id);
    for (int i = 0; i < BUFFERS; i++) free(c->buffers[i]);
    free(c->luma);
    free(c);
}

static const struct ks_lc_api api = {
    .abi = KS_LC_ABI,
    .version = "libcameraemu",
    .open = emu_open,
    .next = emu_next,
    .camera_id = emu_camera_id,
    .describe = emu_describe,
    .notes = emu_notes,
    .close = emu_close,
};

const struct ks_lc_api *ks_libcamera_api(void) { return &api; }
