// uvcfeeder: the userspace half of the rig's USB webcam (the UVC gadget function on dummy_hcd,
// built with bulk streaming by build-uvc-bulk). It answers the host's UVC class requests (probe
// and commit; other controls stall) and, once the host commits a format, streams frames with a
// barcode (zint's module dump, drawn by feeder.c) into the gadget's video output node. The host's
// own uvcvideo driver presents the result as /dev/videoN, as it would a webcam.
//
//   uvcfeeder GADGET_NODE CODE.hex        run until SIGTERM/SIGINT (exit 0) or the node goes (3)
//
// The gadget offers YUYV 640x480 (format 1, frame 1). Each committed stream is logged on stderr.
#define _GNU_SOURCE
#define main feeder_main
#include "feeder.c"
#undef main
#include <linux/usb/ch9.h>
#include <linux/usb/g_uvc.h>
#include <linux/usb/video.h>
#include <sys/mman.h>

enum { WIDTH = 640, HEIGHT = 480, BUFFERS = 4, PAYLOAD = 16384 };

static struct uvc_streaming_control probe, commit;
static int control_selector;  // the VS control the next DATA event is for
static void *maps[BUFFERS];
static size_t lengths[BUFFERS];
static int streaming;
static const uint8_t *luma;

static void fill_control(struct uvc_streaming_control *ctrl) {
    memset(ctrl, 0, sizeof *ctrl);
    ctrl->bmHint = 1;
    ctrl->bFormatIndex = 1;
    ctrl->bFrameIndex = 1;
    ctrl->dwFrameInterval = 333333;
    ctrl->dwMaxVideoFrameSize = WIDTH * HEIGHT * 2;
    ctrl->dwMaxPayloadTransferSize = PAYLOAD;  // build-uvc-bulk's max_payload_size
    ctrl->bmFramingInfo = 3;
    ctrl->bPreferedVersion = 1;
    ctrl->bMaxVersion = 1;
}

static void setup(int fd, const struct usb_ctrlrequest *req) {
    struct uvc_request_data resp = {0};
    resp.length = -EL2HLT;  // stall what we do not answer
    int cs = req->wValue >> 8;
    int streaming_intf = (req->bRequestType & USB_RECIP_MASK) == USB_RECIP_INTERFACE && (req->wIndex & 0xff) == 1;
    if ((req->bRequestType & USB_TYPE_MASK) == USB_TYPE_CLASS && streaming_intf && (cs == UVC_VS_PROBE_CONTROL || cs == UVC_VS_COMMIT_CONTROL)) {
        struct uvc_streaming_control *ctrl = (void *)resp.data;
        switch (req->bRequest) {
        case UVC_SET_CUR: control_selector = cs; resp.length = 34; break;
        case UVC_GET_CUR: memcpy(ctrl, cs == UVC_VS_PROBE_CONTROL ? &probe : &commit, sizeof *ctrl); resp.length = req->wLength; break;
        case UVC_GET_MIN: case UVC_GET_MAX: case UVC_GET_DEF: fill_control(ctrl); resp.length = req->wLength; break;
        case UVC_GET_LEN: resp.data[0] = 34; resp.length = 2; break;
        case UVC_GET_INFO: resp.data[0] = 3; resp.length = 1; break;
        }
    }
    ioctl(fd, UVCIOC_SEND_RESPONSE, &resp);
}

static int queue_buffer(int fd, int index) {
    struct v4l2_pix_format pf = {.width = WIDTH, .height = HEIGHT, .pixelformat = V4L2_PIX_FMT_YUYV, .bytesperline = WIDTH * 2, .sizeimage = WIDTH * HEIGHT * 2};
    fill(maps[index], lengths[index], &pf, luma);
    struct v4l2_buffer buf = {.index = (unsigned)index, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP, .bytesused = pf.sizeimage};
    return xioctl(fd, VIDIOC_QBUF, &buf);
}

static void stop_stream(int fd) {
    if (!streaming) return;
    int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    xioctl(fd, VIDIOC_STREAMOFF, &type);
    for (int i = 0; i < BUFFERS; i++) if (maps[i]) munmap(maps[i], lengths[i]), maps[i] = NULL;
    struct v4l2_requestbuffers rb = {.count = 0, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP};
    xioctl(fd, VIDIOC_REQBUFS, &rb);
    streaming = 0;
    fprintf(stderr, "uvcfeeder: stream stopped\n");
}

static int start_stream(int fd) {
    stop_stream(fd);
    struct v4l2_format fmt = {.type = V4L2_BUF_TYPE_VIDEO_OUTPUT};
    fmt.fmt.pix = (struct v4l2_pix_format){.width = WIDTH, .height = HEIGHT, .pixelformat = V4L2_PIX_FMT_YUYV, .field = V4L2_FIELD_NONE, .sizeimage = WIDTH * HEIGHT * 2};
    if (xioctl(fd, VIDIOC_S_FMT, &fmt) < 0) { perror("uvcfeeder: S_FMT"); return -1; }
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
    fprintf(stderr, "uvcfeeder: streaming YUYV %dx%d\n", WIDTH, HEIGHT);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: uvcfeeder GADGET_NODE CODE.hex\n"); return 2; }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    load_code(argv[2]);
    luma = render(WIDTH, HEIGHT);
    int fd = open(argv[1], O_RDWR | O_NONBLOCK);
    if (fd < 0) { perror(argv[1]); return 3; }
    for (int type = UVC_EVENT_FIRST; type <= UVC_EVENT_LAST; type++) {
        struct v4l2_event_subscription sub = {.type = (unsigned)type};
        xioctl(fd, VIDIOC_SUBSCRIBE_EVENT, &sub);
    }
    fill_control(&probe);
    fill_control(&commit);
    fprintf(stderr, "uvcfeeder: %s open, waiting for the host\n", argv[1]);
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
                case UVC_EVENT_DATA: {
                    struct uvc_streaming_control *ctrl = control_selector == UVC_VS_COMMIT_CONTROL ? &commit : &probe;
                    fill_control(ctrl);  // one format, one frame size: whatever the host asked, this is it
                    if (control_selector == UVC_VS_COMMIT_CONTROL && start_stream(fd) < 0) fprintf(stderr, "uvcfeeder: could not start\n");
                    break;
                }
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
