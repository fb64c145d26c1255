/* The daemon's side of the libcamera source: a plain C table of functions.
 *
 * libkiosk-scanner-libcamera.so (Sources/KSLibcamera, C++ over libcamera) exports
 * ks_libcamera_api(), and the daemon loads it with dlopen only when camera.device names
 * libcamera: libcamera brings 20 or so libraries the daemon has no other use for (lttng-ust
 * starts threads as it loads, gnutls), which a daemon reading a V4L2 camera should never map. The tests load an emulator with the same table
 * (Tests/Emulators/libcameraemu). No libcamera type crosses this line. */
#ifndef KS_LIBCAMERA_H
#define KS_LIBCAMERA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the table or a struct below changes; the daemon refuses another. */
#define KS_LC_ABI 1

enum ks_lc_result {
    KS_LC_OK = 0,
    KS_LC_TIMEOUT,     /* next: no frame in time (or only a failed one) */
    KS_LC_NO_CAMERA,   /* open: no camera, or none with that id */
    KS_LC_BUSY,        /* open: another process holds the camera */
    KS_LC_DENIED,      /* open: the device nodes are there but not ours to open */
    KS_LC_UNSUPPORTED, /* open: no stream format we read */
    KS_LC_REMOVED,     /* next: the camera was unplugged (cameraRemoved / disconnected) */
    KS_LC_FAILED,      /* anything else; the message says what */
};

enum ks_lc_autofocus {
    KS_LC_AF_CONTINUOUS = 0, /* AfMode continuous where the camera has it; a fixed-focus camera is left be */
    KS_LC_AF_OFF,            /* the camera's own default: nothing set */
    KS_LC_AF_MANUAL,         /* AfMode manual at lens_position */
    KS_LC_AF_AUTO,           /* one autofocus sweep at start (AfMode auto, AfTrigger start) */
};

/* A control by libcamera's name (ExposureTime, AnalogueGain, Brightness...). */
struct ks_lc_control {
    const char *name;
    double value;
};

struct ks_lc_settings {
    const char *camera_id; /* NULL or "": the first camera */
    int width, height, fps;
    int autofocus;         /* enum ks_lc_autofocus */
    double lens_position;  /* dioptres (1/m; 0 is infinity), for KS_LC_AF_MANUAL; < 0 unset */
    const struct ks_lc_control *controls;
    int ncontrols;
};

struct ks_lc_frame {
    /* The first plane, mapped once per buffer: Y of NV12/YUV420 (no copy), else the packed or
     * compressed image. Valid until the next call of next or close. */
    const uint8_t *data;
    size_t used, length;
    uint32_t fourcc; /* as V4L2 spells it: NV12, YU12, GREY, YUYV, UYVY, MJPG */
    int width, height, stride;
    uint64_t timestamp_ns; /* CLOCK_MONOTONIC */
    uint64_t sequence;
    int skipped; /* completed frames given back unread because a newer one was ready */
};

struct ks_lc_camera;

struct ks_lc_api {
    int abi;
    const char *version; /* the libcamera version it runs on (or the emulator's name) */
    /* Opens, configures and starts a camera; NULL with *result and message set on failure. */
    struct ks_lc_camera *(*open)(const struct ks_lc_settings *settings, int *result, char *message, size_t size);
    /* Waits at most timeout_ms for the newest frame: KS_LC_OK with *frame, KS_LC_TIMEOUT,
     * KS_LC_REMOVED or KS_LC_FAILED with message. The previous frame's buffer is given back first. */
    int (*next)(struct ks_lc_camera *camera, int timeout_ms, struct ks_lc_frame *frame, char *message, size_t size);
    /* The camera's id, as `cam -l` prints it. */
    const char *(*camera_id)(struct ks_lc_camera *camera);
    /* The negotiated stream: "FOURCC WxH". */
    const char *(*describe)(struct ks_lc_camera *camera);
    /* What open could not do as asked (an unknown control, no autofocus), one line each; "" if none. */
    const char *(*notes)(struct ks_lc_camera *camera);
    void (*close)(struct ks_lc_camera *camera);
};

const struct ks_lc_api *ks_libcamera_api(void);

#ifdef __cplusplus
}
#endif
#endif
