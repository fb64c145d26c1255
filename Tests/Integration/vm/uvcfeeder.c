// uvcfeeder: the userspace half of the rig's USB webcam (the UVC gadget function on dummy_hcd,
// built with bulk streaming by build-uvc-bulk). It answers the host's UVC class requests (probe
// and commit on the streaming interface, the camera's controls on the control interface) and,
// once the host commits a format, streams frames with a barcode (zint's module dump, drawn by
// feeder.c) into the gadget's video output node. The host's own uvcvideo driver presents the
// result as /dev/videoN, as it would a webcam.
//
//   uvcfeeder [--blink N [--stamps FILE]] GADGET_NODE CODE.hex
//                                         run until SIGTERM/SIGINT (exit 0) or the node goes (3)
//
// Formats and frame sizes are whatever the gadget's configfs offers (asked from the gadget node):
// YUYV frames are drawn, MJPEG frames are encoded with libturbojpeg. Each committed stream and
// each SET_CUR of a control is logged on stderr.
#define _GNU_SOURCE
#define main feeder_main
#include "feeder.c"
#undef main
#include <linux/usb/ch9.h>
#include <linux/usb/g_uvc.h>
#include <linux/usb/video.h>
#include <sys/mman.h>
#include <turbojpeg.h>

enum { BUFFERS = 4, PAYLOAD = 16384, MAX_FORMATS = 4, MAX_FRAMES = 8 };

// What the gadget offers, in descriptor order (bFormatIndex and bFrameIndex count from 1).
static struct { uint32_t fourcc; int frames; struct { int width, height; } frame[MAX_FRAMES]; } formats[MAX_FORMATS];
static int format_count;

static struct uvc_streaming_control probe, commit;
static struct { int entity, selector; } pending;  // what the next DATA event (a SET_CUR) is for
static uint8_t request_error;                      // the last stall's reason, for uvcvideo to ask
static void *maps[BUFFERS];
static size_t lengths[BUFFERS];
static int streaming;
static struct v4l2_pix_format current;
static uint8_t *luma;
static unsigned char *jpeg;
static unsigned long jpeg_size;

// The controls f_uvc's descriptors advertise (build-uvc-bulk's bmControls): the camera terminal
// is unit 1 and the processing unit 2 (f_uvc's uvc_alloc_inst). Ranges as a typical webcam's.
static struct control {
    int entity, selector, size;
    int32_t min, max, res, def, cur;
    const char *name;
} controls[] = {
    {1, UVC_CT_AE_MODE_CONTROL, 1, 1, 8, 0x09, 8, 8, "auto-exposure mode"},  // res: manual (1) and aperture priority (8)
    {1, UVC_CT_EXPOSURE_TIME_ABSOLUTE_CONTROL, 4, 3, 2047, 1, 250, 250, "exposure time absolute"},
    {1, UVC_CT_FOCUS_ABSOLUTE_CONTROL, 2, 0, 250, 5, 0, 0, "focus absolute"},
    {1, UVC_CT_FOCUS_AUTO_CONTROL, 1, 0, 1, 1, 1, 1, "focus auto"},
    {2, UVC_PU_BRIGHTNESS_CONTROL, 2, 0, 255, 1, 128, 128, "brightness"},
};

static struct control *find_control(int entity, int selector) {
    for (size_t i = 0; i < sizeof controls / sizeof *controls; i++)
        if (controls[i].entity == entity && controls[i].selector == selector) return &controls[i];
    return NULL;
}

static void discover_formats(int fd) {
    for (int f = 0; f < MAX_FORMATS; f++) {
        struct v4l2_fmtdesc desc = {.index = (unsigned)f, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT};
        if (xioctl(fd, VIDIOC_ENUM_FMT, &desc) < 0) break;
        formats[f].fourcc = desc.pixelformat;
        for (int n = 0; n < MAX_FRAMES; n++) {
            struct v4l2_frmsizeenum size = {.index = (unsigned)n, .pixel_format = desc.pixelformat};
            if (xioctl(fd, VIDIOC_ENUM_FRAMESIZES, &size) < 0) break;
            formats[f].frame[n].width = (int)size.discrete.width;
            formats[f].frame[n].height = (int)size.discrete.height;
            formats[f].frames = n + 1;
        }
        if (formats[f].frames) format_count = f + 1;
    }
    if (!format_count) {  // a gadget that cannot say: the rig's first camera, YUYV 640x480
        formats[0].fourcc = V4L2_PIX_FMT_YUYV, formats[0].frames = 1;
        formats[0].frame[0].width = 640, formats[0].frame[0].height = 480;
        format_count = 1;
    }
}

// The probe/commit answer for the host's choice of format and frame, clamped to what exists.
static void fill_control(struct uvc_streaming_control *ctrl, int format, int frame) {
    if (format < 1 || format > format_count) format = 1;
    if (frame < 1 || frame > formats[format - 1].frames) frame = 1;
    memset(ctrl, 0, sizeof *ctrl);
    ctrl->bmHint = 1;
    ctrl->bFormatIndex = (uint8_t)format;
    ctrl->bFrameIndex = (uint8_t)frame;
    ctrl->dwFrameInterval = 333333;
    ctrl->dwMaxVideoFrameSize = (uint32_t)(formats[format - 1].frame[frame - 1].width * formats[format - 1].frame[frame - 1].height * 2);
    ctrl->dwMaxPayloadTransferSize = PAYLOAD;  // build-uvc-bulk's max_payload_size
    ctrl->bmFramingInfo = 3;
    ctrl->bPreferedVersion = 1;
    ctrl->bMaxVersion = 1;
}

static void put_value(uint8_t *data, int size, int32_t value) {
    for (int i = 0; i < size; i++) data[i] = (uint8_t)((uint32_t)value >> (8 * i));
}

static int32_t get_value(const uint8_t *data, int size) {
    uint32_t value = 0;
    for (int i = 0; i < size; i++) value |= (uint32_t)data[i] << (8 * i);
    if (size == 2) return (int16_t)value;  // brightness is signed
    return (int32_t)value;
}

// A request to the control interface (0): a unit's control, or the error code of the last stall.
static int control_request(const struct usb_ctrlrequest *req, struct uvc_request_data *resp) {
    int entity = req->wIndex >> 8, selector = req->wValue >> 8;
    if (entity == 0 && selector == UVC_VC_REQUEST_ERROR_CODE_CONTROL && req->bRequest == UVC_GET_CUR) {
        resp->data[0] = request_error;
        return 1;
    }
    struct control *c = find_control(entity, selector);
    if (!c) { request_error = 6; return -EL2HLT; }  // invalid control
    int32_t value;
    switch (req->bRequest) {
    case UVC_SET_CUR: pending.entity = entity, pending.selector = selector; return c->size;
    case UVC_GET_INFO: resp->data[0] = UVC_CONTROL_CAP_GET | UVC_CONTROL_CAP_SET; return 1;
    case UVC_GET_LEN: put_value(resp->data, 2, c->size); return 2;
    case UVC_GET_CUR: value = c->cur; break;
    case UVC_GET_MIN: value = c->min; break;
    case UVC_GET_MAX: value = c->max; break;
    case UVC_GET_RES: value = c->res; break;
    case UVC_GET_DEF: value = c->def; break;
    default: request_error = 7; return -EL2HLT;  // invalid request
    }
    put_value(resp->data, c->size, value);
    return c->size;
}

static void setup(int fd, const struct usb_ctrlrequest *req) {
    struct uvc_request_data resp = {0};
    resp.length = -EL2HLT;  // stall what we do not answer
    int cs = req->wValue >> 8, intf = req->wIndex & 0xff;
    int class_intf = (req->bRequestType & USB_TYPE_MASK) == USB_TYPE_CLASS && (req->bRequestType & USB_RECIP_MASK) == USB_RECIP_INTERFACE;
    pending.entity = pending.selector = -1;
    if (class_intf && intf == 0) {
        resp.length = control_request(req, &resp);
        if (resp.length > 0) request_error = 0;
    } else if (class_intf && intf == 1 && (cs == UVC_VS_PROBE_CONTROL || cs == UVC_VS_COMMIT_CONTROL)) {
        struct uvc_streaming_control *ctrl = (void *)resp.data;
        switch (req->bRequest) {
        case UVC_SET_CUR: pending.entity = -2, pending.selector = cs; resp.length = 34; break;
        case UVC_GET_CUR: memcpy(ctrl, cs == UVC_VS_PROBE_CONTROL ? &probe : &commit, sizeof *ctrl); resp.length = req->wLength; break;
        case UVC_GET_MIN: case UVC_GET_MAX: case UVC_GET_DEF: fill_control(ctrl, probe.bFormatIndex, probe.bFrameIndex); resp.length = req->wLength; break;
        case UVC_GET_LEN: resp.data[0] = 34; resp.length = 2; break;
        case UVC_GET_INFO: resp.data[0] = 3; resp.length = 1; break;
        }
    }
    ioctl(fd, UVCIOC_SEND_RESPONSE, &resp);
}

static char *fourcc_name(uint32_t f) { static char s[5]; return fourcc(f, s); }

// --blink MS (the camera benchmark): the code for MS milliseconds, then a blank for MS, and so
// on, by the clock (the gadget sends as fast as the host takes, not at a frame rate); uncompressed
// frames only, MJPEG ones always show the code. The wall clock of queueing each first frame with
// the code goes to --stamps FILE, one line each.
static int blink;
static FILE *stamps;
static uint8_t *blank;
static int was_shown;

static long long now_ms(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int queue_buffer(int fd, int index) {
    struct v4l2_buffer buf = {.index = (unsigned)index, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP, .bytesused = current.sizeimage};
    int shown = !blink || (now_ms(CLOCK_MONOTONIC) / blink) % 2 == 0;
    if (blink && stamps && shown && !was_shown) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        fprintf(stamps, "%lld.%09ld\n", (long long)now.tv_sec, now.tv_nsec);
        fflush(stamps);
    }
    was_shown = shown;
    if (current.pixelformat == V4L2_PIX_FMT_MJPEG) {
        if (jpeg_size > lengths[index]) return -1;
        memcpy(maps[index], jpeg, jpeg_size);
        buf.bytesused = (unsigned)jpeg_size;
    } else {
        fill(maps[index], lengths[index], &current, shown ? luma : blank);
    }
    return xioctl(fd, VIDIOC_QBUF, &buf);
}

// The frame as a webcam's MJPEG: 4:2:2 like most, grey chroma.
static int encode_jpeg(int width, int height) {
    size_t chroma = (size_t)(width / 2) * height;
    uint8_t *gray = malloc(chroma);
    memset(gray, 128, chroma);
    const unsigned char *planes[3] = {luma, gray, gray};
    tjhandle tj = tjInitCompress();
    tjFree(jpeg), jpeg = NULL, jpeg_size = 0;
    int rc = tj ? tjCompressFromYUVPlanes(tj, planes, width, NULL, height, TJSAMP_422, &jpeg, &jpeg_size, 90, 0) : -1;
    if (rc < 0) fprintf(stderr, "uvcfeeder: JPEG: %s\n", tjGetErrorStr2(tj));
    if (tj) tjDestroy(tj);
    free(gray);
    return rc;
}

static void stop_stream(int fd) {
    if (!streaming) return;
    release_output(fd, maps, lengths, BUFFERS);
    streaming = 0;
    fprintf(stderr, "uvcfeeder: stream stopped\n");
}

static int start_stream(int fd) {
    stop_stream(fd);
    int f = commit.bFormatIndex - 1, n = commit.bFrameIndex - 1;
    int width = formats[f].frame[n].width, height = formats[f].frame[n].height;
    struct v4l2_format fmt = {.type = V4L2_BUF_TYPE_VIDEO_OUTPUT};
    fmt.fmt.pix = (struct v4l2_pix_format){.width = (unsigned)width, .height = (unsigned)height, .pixelformat = formats[f].fourcc, .field = V4L2_FIELD_NONE, .sizeimage = (unsigned)(width * height * 2)};
    if (xioctl(fd, VIDIOC_S_FMT, &fmt) < 0) { perror("uvcfeeder: S_FMT"); return -1; }
    current = fmt.fmt.pix;
    free(luma);
    luma = render(width, height);
    free(blank);
    blank = malloc((size_t)width * height);
    memset(blank, 235, (size_t)width * height);
    if (current.pixelformat == V4L2_PIX_FMT_MJPEG && encode_jpeg(width, height) < 0) return -1;
    struct v4l2_requestbuffers rb = {.count = BUFFERS, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP};
    if (xioctl(fd, VIDIOC_REQBUFS, &rb) < 0) { perror("uvcfeeder: REQBUFS"); return -1; }
    for (int i = 0; i < (int)rb.count; i++) {
        struct v4l2_buffer buf = {.index = (unsigned)i, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP};
        if (xioctl(fd, VIDIOC_QUERYBUF, &buf) < 0) return -1;
        lengths[i] = buf.length;
        maps[i] = mmap(NULL, buf.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, buf.m.offset);
        if (maps[i] == MAP_FAILED) { maps[i] = NULL; return -1; }
        if (queue_buffer(fd, i) < 0) { perror("uvcfeeder: QBUF"); return -1; }
    }
    int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    if (xioctl(fd, VIDIOC_STREAMON, &type) < 0) { perror("uvcfeeder: STREAMON"); return -1; }
    streaming = 1;
    if (current.pixelformat == V4L2_PIX_FMT_MJPEG)
        fprintf(stderr, "uvcfeeder: streaming MJPG %dx%d (%lu-byte JPEG frames)\n", width, height, jpeg_size);
    else
        fprintf(stderr, "uvcfeeder: streaming %s %dx%d\n", fourcc_name(current.pixelformat), width, height);
    return 0;
}

// The data stage of a SET_CUR: probe, commit (which starts the stream) or a control's new value.
static void data(int fd, const struct uvc_request_data *d) {
    if (pending.entity == -2) {
        const struct uvc_streaming_control *asked = (const void *)d->data;
        struct uvc_streaming_control *ctrl = pending.selector == UVC_VS_COMMIT_CONTROL ? &commit : &probe;
        fill_control(ctrl, d->length >= 4 ? asked->bFormatIndex : 1, d->length >= 4 ? asked->bFrameIndex : 1);
        if (pending.selector == UVC_VS_COMMIT_CONTROL && start_stream(fd) < 0) fprintf(stderr, "uvcfeeder: could not start\n");
        return;
    }
    struct control *c = find_control(pending.entity, pending.selector);
    if (!c || d->length < c->size) return;
    c->cur = get_value(d->data, c->size);
    fprintf(stderr, "uvcfeeder: SET_CUR %s (unit %d, selector %d) = %d\n", c->name, c->entity, c->selector, c->cur);
}

int main(int argc, char **argv) {
    while (argc > 3 && argv[1][0] == '-') {
        if (!strcmp(argv[1], "--blink")) blink = atoi(argv[2]);
        else if (!strcmp(argv[1], "--stamps") && !(stamps = fopen(argv[2], "w"))) { perror(argv[2]); return 2; }
        argc -= 2, argv += 2;
    }
    if (argc != 3) { fprintf(stderr, "usage: uvcfeeder [--blink N [--stamps FILE]] GADGET_NODE CODE.hex\n"); return 2; }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    load_code(argv[2]);
    int fd = open(argv[1], O_RDWR | O_NONBLOCK);
    if (fd < 0) { perror(argv[1]); return 3; }
    for (int type = UVC_EVENT_FIRST; type <= UVC_EVENT_LAST; type++) {
        struct v4l2_event_subscription sub = {.type = (unsigned)type};
        xioctl(fd, VIDIOC_SUBSCRIBE_EVENT, &sub);
    }
    discover_formats(fd);
    fill_control(&probe, 1, 1);
    fill_control(&commit, 1, 1);
    fprintf(stderr, "uvcfeeder: %s open, offering", argv[1]);
    for (int f = 0; f < format_count; f++) fprintf(stderr, " %s %dx%d", fourcc_name(formats[f].fourcc), formats[f].frame[0].width, formats[f].frame[0].height);
    fprintf(stderr, "; waiting for the host\n");
    while (!stop) {
        struct pollfd p = {.fd = fd, .events = POLLPRI | (streaming ? POLLOUT : 0)};
        int n = poll(&p, 1, 200);
        if (n < 0) { if (errno == EINTR) continue; break; }
        if (p.revents & (POLLERR | POLLHUP) && !(p.revents & POLLPRI)) { if (!streaming) { usleep(100000); continue; } }
        if (p.revents & POLLPRI) {
            struct v4l2_event ev;
            while (xioctl(fd, VIDIOC_DQEVENT, &ev) == 0) {
                struct uvc_event *uvc = (void *)&ev.u.data;
                switch (ev.type) {
                case UVC_EVENT_SETUP: setup(fd, &uvc->req); break;
                case UVC_EVENT_DATA: data(fd, &uvc->data); break;
                case UVC_EVENT_DISCONNECT: case UVC_EVENT_STREAMOFF: stop_stream(fd); break;
                default: break;
                }
            }
        }
        if (streaming && (p.revents & POLLOUT)) {
            struct v4l2_buffer buf = {.type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP};
            static unsigned long sent;
            if (xioctl(fd, VIDIOC_DQBUF, &buf) == 0) {
                if (++sent % 30 == 1) fprintf(stderr, "uvcfeeder: %lu frames sent\n", sent);
                queue_buffer(fd, (int)buf.index);
            }
            else if (gone(errno)) { stop_stream(fd); }
        }
    }
    stop_stream(fd);
    close(fd);
    return 0;
}
