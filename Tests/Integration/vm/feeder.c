// feeder: draws a barcode (zint's `--dump` of its modules: one line of hex bytes per row) into
// frames and streams them to a V4L2 video output node, so that vivid's video loop hands them to
// whoever captures from the capture node.
//
//   feeder --pgm OUT.pgm WIDTH HEIGHT CODE.hex      render one frame as a PGM and exit
//   feeder OUTPUT_NODE CAPTURE_NODE CODE.hex         stream until SIGTERM/SIGINT or the node goes
//
// In streaming mode it follows the capture node's format (the loop needs the same pixel format
// on both sides; the daemon chooses it when it opens the camera): every 200 ms it reads the
// capture format and restarts its own stream when it changed, and it keeps vivid's loop_video
// control on. Exit: 0 on a signal, 3 when a node went away (unplug), 1 on other errors.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef V4L2_CID_USER_BASE
#define V4L2_CID_USER_BASE 0x00980900
#endif
#define VIVID_CID_LOOP_VIDEO 0x00f0f025

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static uint8_t *rows[64];
static int row_bits, row_count;

static void load_code(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); exit(1); }
    char line[4096];
    while (fgets(line, sizeof line, f) && row_count < 64) {
        uint8_t *bits = calloc(4096 * 4, 1);
        int n = 0;
        for (char *p = line; *p; ) {
            while (*p == ' ' || *p == '\t') p++;
            if (*p == '\n' || *p == '\r' || !*p) break;
            unsigned v;
            int used;
            if (sscanf(p, "%2x%n", &v, &used) != 1) break;
            // zint prints a nibble per 4 modules: a row ending in a lone digit ends in 4 modules.
            for (int b = used == 1 ? 3 : 7; b >= 0; b--) bits[n++] = (v >> b) & 1;
            p += used;
        }
        if (n == 0) { free(bits); continue; }
        if (n > row_bits) row_bits = n;
        rows[row_count++] = bits;
    }
    fclose(f);
    if (!row_count) { fprintf(stderr, "feeder: %s: no rows\n", path); exit(1); }
}

// Luma image: white, with the symbol centred. Returns a malloc'd width*height plane.
static uint8_t *render(int width, int height) {
    uint8_t *y = malloc((size_t)width * height);
    memset(y, 235, (size_t)width * height);
    int scale = (width * 7 / 10) / row_bits;
    if (scale > 3) scale = 3;
    if (scale < 1) scale = 1;
    int row_height = row_count == 1 ? height / 3 : scale;
    int w = row_bits * scale, h = row_count * row_height;
    int x0 = (width - w) / 2, y0 = (height - h) / 2;
    for (int r = 0; r < row_count; r++)
        for (int yy = 0; yy < row_height; yy++)
            for (int m = 0; m < row_bits; m++)
                if (rows[r][m])
                    memset(y + (size_t)(y0 + r * row_height + yy) * width + x0 + m * scale, 16, scale);
    return y;
}

static int fill(uint8_t *buf, size_t size, const struct v4l2_pix_format *pf, const uint8_t *luma) {
    int w = pf->width, h = pf->height, bpl = pf->bytesperline;
    memset(buf, 128, size);
    switch (pf->pixelformat) {
    case V4L2_PIX_FMT_GREY:
    case V4L2_PIX_FMT_NV12: case V4L2_PIX_FMT_NV21: case V4L2_PIX_FMT_NV16: case V4L2_PIX_FMT_NV61:
    case V4L2_PIX_FMT_YUV420: case V4L2_PIX_FMT_YVU420: case V4L2_PIX_FMT_YUV422P:
        for (int r = 0; r < h; r++) memcpy(buf + (size_t)r * bpl, luma + (size_t)r * w, w);
        return 0;
    case V4L2_PIX_FMT_YUYV: case V4L2_PIX_FMT_YVYU:
    case V4L2_PIX_FMT_UYVY: case V4L2_PIX_FMT_VYUY: {
        int off = (pf->pixelformat == V4L2_PIX_FMT_UYVY || pf->pixelformat == V4L2_PIX_FMT_VYUY) ? 1 : 0;
        for (int r = 0; r < h; r++)
            for (int c = 0; c < w; c++) buf[(size_t)r * bpl + 2 * c + off] = luma[(size_t)r * w + c];
        return 0;
    }
    default:
        return -1;
    }
}

static int xioctl(int fd, unsigned long req, void *arg) {
    int r;
    do r = ioctl(fd, req, arg); while (r < 0 && errno == EINTR);
    return r;
}

static int gone(int err) { return err == ENODEV || err == ENXIO || err == EIO || err == EPIPE; }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *fourcc(uint32_t f, char s[5]) {
    for (int i = 0; i < 4; i++) s[i] = (f >> (8 * i)) & 0xff;
    s[4] = 0;
    return s;
}

// Stops an output stream and gives its n mmap buffers back (uvcfeeder uses it too).
static void release_output(int fd, void **maps, size_t *lens, int n) {
    int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
    xioctl(fd, VIDIOC_STREAMOFF, &type);
    for (int i = 0; i < n; i++) if (maps[i]) munmap(maps[i], lens[i]), maps[i] = NULL;
    struct v4l2_requestbuffers rb = { .count = 0, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP };
    xioctl(fd, VIDIOC_REQBUFS, &rb);
}

#define NBUF 3

int main(int argc, char **argv) {
    if (argc == 6 && !strcmp(argv[1], "--pgm")) {
        int w = atoi(argv[3]), h = atoi(argv[4]);
        load_code(argv[5]);
        uint8_t *y = render(w, h);
        FILE *f = fopen(argv[2], "wb");
        if (!f) { perror(argv[2]); return 1; }
        fprintf(f, "P5\n%d %d\n255\n", w, h);
        fwrite(y, 1, (size_t)w * h, f);
        return fclose(f) ? 1 : 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: feeder OUTPUT_NODE CAPTURE_NODE CODE.hex | feeder --pgm OUT W H CODE.hex\n");
        return 2;
    }
    load_code(argv[3]);
    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    int out = open(argv[1], O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (out < 0) { fprintf(stderr, "feeder: open %s: %s\n", argv[1], strerror(errno)); return gone(errno) || errno == ENOENT ? 3 : 1; }
    int cap = open(argv[2], O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (cap < 0) { fprintf(stderr, "feeder: open %s: %s\n", argv[2], strerror(errno)); return gone(errno) || errno == ENOENT ? 3 : 1; }

    struct v4l2_pix_format current = {0}, outpix = {0};
    void *maps[NBUF] = {0};
    size_t lens[NBUF] = {0};
    int streaming = 0, rc = 0;
    unsigned long frames = 0;
    double next_check = 0;
    char fc[5];

    while (!stop) {
        if (now() >= next_check) {
            next_check = now() + 0.2;
            struct v4l2_control ctrl = { .id = VIVID_CID_LOOP_VIDEO, .value = 1 };
            if (xioctl(cap, VIDIOC_S_CTRL, &ctrl) < 0 && gone(errno)) { rc = 3; break; }
            struct v4l2_format cf = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
            if (xioctl(cap, VIDIOC_G_FMT, &cf) < 0) { if (gone(errno)) { rc = 3; break; } continue; }
            if (!streaming || cf.fmt.pix.pixelformat != current.pixelformat ||
                cf.fmt.pix.width != current.width || cf.fmt.pix.height != current.height) {
                if (streaming) {
                    release_output(out, maps, lens, NBUF);
                    streaming = 0;
                }
                struct v4l2_format of = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
                of.fmt.pix.width = cf.fmt.pix.width;
                of.fmt.pix.height = cf.fmt.pix.height;
                of.fmt.pix.pixelformat = cf.fmt.pix.pixelformat;
                of.fmt.pix.field = cf.fmt.pix.field;
                if (xioctl(out, VIDIOC_S_FMT, &of) < 0) {
                    if (gone(errno)) { rc = 3; break; }
                    fprintf(stderr, "feeder: S_FMT output %s %ux%u: %s\n", fourcc(cf.fmt.pix.pixelformat, fc), cf.fmt.pix.width, cf.fmt.pix.height, strerror(errno));
                    usleep(200000);
                    continue;
                }
                current = cf.fmt.pix;
                outpix = of.fmt.pix;
                uint8_t *luma = render(of.fmt.pix.width, of.fmt.pix.height);
                struct v4l2_requestbuffers rb = { .count = NBUF, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP };
                if (xioctl(out, VIDIOC_REQBUFS, &rb) < 0 || rb.count < 1) {
                    free(luma);
                    if (gone(errno)) { rc = 3; break; }
                    fprintf(stderr, "feeder: REQBUFS: %s\n", strerror(errno));
                    rc = 1; break;
                }
                int ok = 1;
                for (unsigned i = 0; i < rb.count && i < NBUF && ok; i++) {
                    struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP, .index = i };
                    if (xioctl(out, VIDIOC_QUERYBUF, &b) < 0) { ok = 0; break; }
                    lens[i] = b.length;
                    maps[i] = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, out, b.m.offset);
                    if (maps[i] == MAP_FAILED) { maps[i] = NULL; ok = 0; break; }
                    if (fill(maps[i], b.length, &of.fmt.pix, luma) < 0) {
                        fprintf(stderr, "feeder: cannot draw pixel format %s\n", fourcc(of.fmt.pix.pixelformat, fc));
                        ok = 0; break;
                    }
                    b.bytesused = of.fmt.pix.sizeimage;
                    if (xioctl(out, VIDIOC_QBUF, &b) < 0) { ok = 0; break; }
                }
                free(luma);
                if (!ok) { rc = gone(errno) ? 3 : 1; fprintf(stderr, "feeder: buffers: %s\n", strerror(errno)); break; }
                int type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
                if (xioctl(out, VIDIOC_STREAMON, &type) < 0) { rc = gone(errno) ? 3 : 1; fprintf(stderr, "feeder: STREAMON: %s\n", strerror(errno)); break; }
                streaming = 1;
                fprintf(stderr, "feeder: streaming %s %ux%u to %s\n", fourcc(of.fmt.pix.pixelformat, fc), of.fmt.pix.width, of.fmt.pix.height, argv[1]);
            }
        }
        struct pollfd p = { .fd = out, .events = POLLOUT };
        int n = poll(&p, 1, 100);
        if (n < 0) { if (errno == EINTR) continue; rc = 1; break; }
        if (n == 0) continue;
        if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) {
            struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP };
            if (xioctl(out, VIDIOC_DQBUF, &b) < 0 && gone(errno)) { rc = 3; break; }
            if (p.revents & (POLLHUP | POLLNVAL)) { rc = 3; break; }
            usleep(50000);
            continue;
        }
        struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT, .memory = V4L2_MEMORY_MMAP };
        if (xioctl(out, VIDIOC_DQBUF, &b) < 0) {
            if (errno == EAGAIN) continue;
            rc = gone(errno) ? 3 : 1;
            break;
        }
        b.bytesused = outpix.sizeimage;
        if (xioctl(out, VIDIOC_QBUF, &b) < 0) { rc = gone(errno) ? 3 : 1; break; }
        frames++;
    }
    fprintf(stderr, "feeder: stopping after %lu frames (%s)\n", frames, rc == 3 ? "device gone" : rc ? "error" : "signal");
    return rc;
}
