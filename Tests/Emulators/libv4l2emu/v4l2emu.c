/* An emulated camera at the libv4l2 boundary: preloaded in front of libv4l2, it answers
 * v4l2_open/ioctl/mmap/munmap/close for the node named by $KSEMU_DEVICE and forwards every other
 * call to the real library. The node file scripts the scene (see README.md); removing it unplugs
 * the camera. The app gets a real pollable fd: one end of a socketpair that carries one record
 * per filled buffer, and hangs up on unplug. */
#define _GNU_SOURCE
#include "emu.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_BUFFERS 8
#define MAX_HANDLES 4
/* Frames of an unchanged scene are cycled from this many pre-rendered variants (the noise differs),
 * so the emulator's own CPU use stays small beside the app's it is measured with. */
#define VARIANTS 8

/* The emulator runs inside the app's process, and a benchmark measures that process's RSS: like a
 * camera, whose frames arrive by DMA into buffers that only the app maps, it keeps no frame in the
 * app's memory. Variants live in a memfd and are copied into a buffer's memfd by the kernel; the
 * scratch of a render is unmapped as soon as it is stored. */
struct buffer {
    int memfd;
    void *app_mapping;     /* the app's mapping, from v4l2_mmap */
    size_t length, used;
    int queued;
    uint32_t sequence;
    uint64_t timestamp;
};

struct handle {
    int in_use, app_fd, emu_fd, nonblocking, dead, streaming, stop;
    uint32_t fourcc, bytesperline, sizeimage;
    int width, height, nbuffers;
    struct buffer buffers[MAX_BUFFERS];
    int filled[MAX_BUFFERS], nfilled;  /* FIFO of filled buffer indices */
    uint32_t sequence;
    uint64_t rng;
    pthread_t producer;
    pthread_cond_t changed;
    int variant_fd;                    /* VARIANTS slots of length bytes; -1 until the first render */
    size_t variant_used[VARIANTS];
    unsigned variant_generation[VARIANTS]; /* scene generation + 1 it was rendered for; 0 = none */
    int32_t controls[3];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle handles[MAX_HANDLES];
static struct ksemu_scene scene;


#define REAL(name, ret, ...) \
    static ret (*real_##name)(__VA_ARGS__); \
    if (!real_##name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name)

static const char *node(void) { return getenv("KSEMU_DEVICE"); }

static int is_node(const char *path) {
    const char *device = node();
    if (!device || !path) return 0;
    if (!strcmp(path, device)) return 1;
    char resolved[PATH_MAX], target[PATH_MAX];
    return realpath(path, resolved) && realpath(device, target) && !strcmp(resolved, target);
}

static struct handle *find(int fd) {
    for (int i = 0; i < MAX_HANDLES; i++)
        if (handles[i].in_use && handles[i].app_fd == fd) return &handles[i];
    return NULL;
}

/* Marks a handle unplugged: the app's fd hangs up, waiters wake. Call with the lock held. */
static void kill_handle(struct handle *h) {
    if (h->dead) return;
    h->dead = 1;
    shutdown(h->emu_fd, SHUT_RDWR);
    pthread_cond_broadcast(&h->changed);
    ksemu_log("unplug", "fd=%d", h->app_fd);
}

static int check_plugged(struct handle *h) {
    if (!h->dead && ksemu_scene_refresh(node(), &scene) != 0) kill_handle(h);
    return h->dead ? -1 : 0;
}

/* Copies count bytes from offset `from` of one file to the start of another, in the kernel. */
static int copy_range(int in, off_t from, int out, size_t count) {
    off_t to = 0;
    while (count > 0) {
        ssize_t copied = copy_file_range(in, &from, out, &to, count, 0);
        if (copied <= 0) {
            ksemu_log("copy-failed", "errno=%d", copied < 0 ? errno : 0);
            return -1;
        }
        count -= (size_t)copied;
    }
    return 0;
}

/* Renders the scene into variant slot `variant` of the handle's variant memfd. */
static int render_variant(struct handle *h, int variant, size_t length) {
    if (h->variant_fd < 0) {
        h->variant_fd = memfd_create("ksemu-variants", MFD_CLOEXEC);
        if (h->variant_fd < 0 || ftruncate(h->variant_fd, (off_t)(VARIANTS * length)) != 0) return -1;
    }
    size_t pixels = (size_t)h->width * (size_t)h->height;
    uint8_t *scratch = mmap(NULL, pixels + length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (scratch == MAP_FAILED) return -1;
    ksemu_render_luma(&scene, scratch, h->width, h->height, &h->rng);
    size_t used = ksemu_pack(h->fourcc, scratch, h->width, h->height, scratch + pixels, length);
    ssize_t stored = pwrite(h->variant_fd, scratch + pixels, used, (off_t)variant * (off_t)length);
    munmap(scratch, pixels + length);
    if (stored != (ssize_t)used) return -1;
    h->variant_used[variant] = used;
    return 0;
}

static void *produce(void *argument) {
    struct handle *h = argument;
    pthread_mutex_lock(&lock);
    while (!h->stop) {
        struct timespec wait;
        clock_gettime(CLOCK_REALTIME, &wait);
        long period = 1000000000L / (scene.fps > 0 ? scene.fps : 30);
        wait.tv_nsec += period;
        if (wait.tv_nsec >= 1000000000L) wait.tv_sec++, wait.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&h->changed, &lock, &wait);
        if (h->stop) break;
        if (check_plugged(h) != 0) continue;
        if (scene.stall) continue;
        h->sequence++;
        int index = -1;
        uint32_t oldest = UINT32_MAX;
        for (int i = 0; i < h->nbuffers; i++)
            if (h->buffers[i].queued && (uint32_t)h->buffers[i].queued < oldest) oldest = (uint32_t)h->buffers[i].queued, index = i;
        if (index < 0) {
            ksemu_log("drop", "seq=%u", h->sequence);
            continue;
        }
        struct buffer *b = &h->buffers[index];
        int variant = (int)(h->sequence % VARIANTS);
        if (h->variant_generation[variant] != scene.generation + 1) {
            /* Rendered once per scene and variant, then copied: a copy costs far less than noise. */
            if (render_variant(h, variant, b->length) != 0) continue;
            h->variant_generation[variant] = scene.generation + 1;
        }
        if (copy_range(h->variant_fd, (off_t)variant * (off_t)b->length, b->memfd, h->variant_used[variant]) != 0) continue;
        b->used = h->variant_used[variant];
        b->queued = 0;
        b->sequence = h->sequence;
        b->timestamp = ksemu_now_ns();
        h->filled[h->nfilled++] = index;
        char record = 1;
        send(h->emu_fd, &record, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
        pthread_cond_broadcast(&h->changed);
        ksemu_log("frame", "seq=%u image=%s", b->sequence, *scene.frame ? scene.frame : "-");
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void stop_streaming(struct handle *h) {
    if (!h->streaming) return;
    h->stop = 1;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&lock);
    pthread_join(h->producer, NULL);
    pthread_mutex_lock(&lock);
    h->streaming = 0, h->stop = 0, h->nfilled = 0;
    for (int i = 0; i < h->nbuffers; i++) h->buffers[i].queued = 0;
    char drain[64];
    while (recv(h->app_fd, drain, sizeof drain, MSG_DONTWAIT) > 0) {}
    ksemu_log("streamoff", "fd=%d", h->app_fd);
}

static void free_buffers(struct handle *h) {
    for (int i = 0; i < VARIANTS; i++) h->variant_generation[i] = 0;
    if (h->variant_fd >= 0) close(h->variant_fd), h->variant_fd = -1;
    for (int i = 0; i < h->nbuffers; i++) close(h->buffers[i].memfd);
    h->nbuffers = 0;
}

static int choose_format(struct handle *h, struct v4l2_format *format, int apply) {
    if (format->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
    struct v4l2_pix_format *pix = &format->fmt.pix;
    uint32_t fourcc = scene.formats[0];
    for (int i = 0; i < scene.nformats; i++)
        if (scene.formats[i] == pix->pixelformat) fourcc = pix->pixelformat;
    int best = 0;
    long best_distance = -1;
    for (int i = 0; i < scene.nsizes; i++) {
        long distance = labs((long)scene.widths[i] * scene.heights[i] - (long)pix->width * pix->height);
        if (best_distance < 0 || distance < best_distance) best = i, best_distance = distance;
    }
    memset(pix, 0, sizeof *pix);
    pix->pixelformat = fourcc;
    pix->width = (uint32_t)scene.widths[best];
    pix->height = (uint32_t)scene.heights[best];
    pix->field = V4L2_FIELD_NONE;
    pix->colorspace = V4L2_COLORSPACE_SRGB;
    ksemu_geometry(fourcc, (int)pix->width, (int)pix->height, &pix->bytesperline, &pix->sizeimage);
    if (apply) {
        if (h->nbuffers) return EBUSY;
        h->fourcc = fourcc, h->width = (int)pix->width, h->height = (int)pix->height;
        h->bytesperline = pix->bytesperline, h->sizeimage = pix->sizeimage;
    }
    return 0;
}

static int request_buffers(struct handle *h, struct v4l2_requestbuffers *request) {
    if (request->memory != V4L2_MEMORY_MMAP || request->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
    if (h->streaming) return EBUSY;
    free_buffers(h);
    if (request->count == 0) return 0;
    uint32_t count = request->count < 2 ? 2 : request->count > MAX_BUFFERS ? MAX_BUFFERS : request->count;
    size_t length = ((size_t)h->sizeimage + 4095) & ~(size_t)4095;
    for (uint32_t i = 0; i < count; i++) {
        struct buffer *b = &h->buffers[i];
        memset(b, 0, sizeof *b);
        b->memfd = memfd_create("ksemu-buffer", MFD_CLOEXEC);
        if (b->memfd < 0 || ftruncate(b->memfd, (off_t)length) != 0) return ENOMEM;
        b->length = length;
        h->nbuffers = (int)i + 1;
    }
    request->count = count;
    return 0;
}

static void describe_buffer(struct handle *h, int index, struct v4l2_buffer *buffer) {
    struct buffer *b = &h->buffers[index];
    buffer->index = (uint32_t)index;
    buffer->length = (uint32_t)b->length;
    buffer->m.offset = (uint32_t)index << 20;
    buffer->bytesused = (uint32_t)b->used;
    buffer->sequence = b->sequence;
    buffer->timestamp.tv_sec = (time_t)(b->timestamp / 1000000000ull);
    buffer->timestamp.tv_usec = (suseconds_t)(b->timestamp % 1000000000ull / 1000);
    buffer->flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC | (b->queued ? V4L2_BUF_FLAG_QUEUED : 0);
    buffer->field = V4L2_FIELD_NONE;
}

static int dequeue(struct handle *h, struct v4l2_buffer *buffer) {
    while (h->nfilled == 0) {
        if (h->dead) return ENODEV;
        if (!h->streaming || h->nonblocking) return EAGAIN;
        pthread_cond_wait(&h->changed, &lock);
    }
    int index = h->filled[0];
    memmove(h->filled, h->filled + 1, (size_t)--h->nfilled * sizeof h->filled[0]);
    char record;
    recv(h->app_fd, &record, 1, MSG_DONTWAIT);
    describe_buffer(h, index, buffer);
    return 0;
}

int ksemu_ioctl(struct handle *h, unsigned long request, void *argument);  /* in ioctl.c */

int v4l2_open(const char *file, int oflag, ...) {
    REAL(v4l2_open, int, const char *, int, ...);
    if (!is_node(file)) return real_v4l2_open(file, oflag, 0);
    pthread_mutex_lock(&lock);
    int error = 0;
    if (ksemu_scene_refresh(node(), &scene) != 0 || scene.open == OPEN_MISSING) error = ENOENT;
    else if (scene.open == OPEN_BUSY) error = EBUSY;
    else if (scene.open == OPEN_DENIED) error = EACCES;
    struct handle *h = NULL;
    for (int i = 0; !error && i < MAX_HANDLES && !h; i++)
        if (!handles[i].in_use) h = &handles[i];
    int pair[2];
    if (!error && !h) error = EMFILE;
    if (!error && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) error = errno;
    if (error) {
        pthread_mutex_unlock(&lock);
        ksemu_log("open-failed", "errno=%d", error);
        errno = error;
        return -1;
    }
    memset(h, 0, sizeof *h);
    h->in_use = 1, h->app_fd = pair[0], h->emu_fd = pair[1], h->variant_fd = -1;
    h->nonblocking = (oflag & O_NONBLOCK) != 0;
    h->rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)pair[0];
    pthread_cond_init(&h->changed, NULL);
    h->controls[0] = 128, h->controls[1] = 0, h->controls[2] = 156;  /* brightness, gain, exposure defaults (ioctl.c) */
    struct v4l2_format initial = {.type = V4L2_BUF_TYPE_VIDEO_CAPTURE};
    initial.fmt.pix.width = 640, initial.fmt.pix.height = 480, initial.fmt.pix.pixelformat = scene.formats[0];
    choose_format(h, &initial, 1);
    pthread_mutex_unlock(&lock);
    ksemu_log("open", "fd=%d nonblocking=%d", h->app_fd, h->nonblocking);
    return h->app_fd;
}

int v4l2_close(int fd) {
    REAL(v4l2_close, int, int);
    pthread_mutex_lock(&lock);
    struct handle *h = find(fd);
    if (!h) {
        pthread_mutex_unlock(&lock);
        return real_v4l2_close(fd);
    }
    stop_streaming(h);
    free_buffers(h);
    close(h->emu_fd);
    close(h->app_fd);
    pthread_cond_destroy(&h->changed);
    h->in_use = 0;
    pthread_mutex_unlock(&lock);
    ksemu_log("close", "fd=%d", fd);
    return 0;
}

int v4l2_ioctl(int fd, unsigned long request, ...) {
    REAL(v4l2_ioctl, int, int, unsigned long, ...);
    va_list args;
    va_start(args, request);
    void *argument = va_arg(args, void *);
    va_end(args);
    pthread_mutex_lock(&lock);
    struct handle *h = find(fd);
    if (!h) {
        pthread_mutex_unlock(&lock);
        return real_v4l2_ioctl(fd, request, argument);
    }
    int error = check_plugged(h) != 0 ? ENODEV : ksemu_ioctl(h, request, argument);
    pthread_mutex_unlock(&lock);
    if (error) {
        /* As libv4l2 does for a format it need not convert: every failed DQBUF, EAGAIN included,
           is printed on stderr (V4L2_PERROR in v4l2_ioctl), so a daemon that drains until EAGAIN
           floods its journal. */
        if (request == VIDIOC_DQBUF) fprintf(stderr, "libv4l2: error dequeuing buf: %s\n", strerror(error));
        errno = error;
        return -1;
    }
    return 0;
}

void *v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset) {
    REAL(v4l2_mmap, void *, void *, size_t, int, int, int, int64_t);
    pthread_mutex_lock(&lock);
    struct handle *h = find(fd);
    if (!h) {
        pthread_mutex_unlock(&lock);
        return real_v4l2_mmap(start, length, prot, flags, fd, offset);
    }
    int index = (int)(offset >> 20);
    void *mapping = MAP_FAILED;
    if (index >= 0 && index < h->nbuffers && length <= h->buffers[index].length) {
        mapping = mmap(start, length, prot, flags, h->buffers[index].memfd, 0);
        h->buffers[index].app_mapping = mapping;
    } else {
        errno = EINVAL;
    }
    pthread_mutex_unlock(&lock);
    return mapping;
}

int v4l2_munmap(void *start, size_t length) {
    REAL(v4l2_munmap, int, void *, size_t);
    int ours = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_HANDLES; i++)
        for (int j = 0; handles[i].in_use && j < handles[i].nbuffers; j++)
            if (handles[i].buffers[j].app_mapping == start) handles[i].buffers[j].app_mapping = NULL, ours = 1;
    pthread_mutex_unlock(&lock);
    /* A mapping of a handle already closed is ours too: it is a plain mmap of a memfd. */
    return ours || !real_v4l2_munmap ? munmap(start, length) : real_v4l2_munmap(start, length);
}

/* Called by ioctl.c for the streaming ioctls, which need this file's statics. */
int ksemu_stream_ioctl(struct handle *h, unsigned long request, void *argument) {
    switch (request) {
    case VIDIOC_S_FMT: return choose_format(h, argument, 1);
    case VIDIOC_TRY_FMT: return choose_format(h, argument, 0);
    case VIDIOC_REQBUFS: return request_buffers(h, argument);
    case VIDIOC_QUERYBUF: {
        struct v4l2_buffer *buffer = argument;
        if ((int)buffer->index >= h->nbuffers) return EINVAL;
        describe_buffer(h, (int)buffer->index, buffer);
        return 0;
    }
    case VIDIOC_QBUF: {
        struct v4l2_buffer *buffer = argument;
        if ((int)buffer->index >= h->nbuffers || h->buffers[buffer->index].queued) return EINVAL;
        static int order;
        h->buffers[buffer->index].queued = ++order;
        return 0;
    }
    case VIDIOC_DQBUF: return dequeue(h, argument);
    case VIDIOC_STREAMON:
        if (h->nbuffers == 0) return EINVAL;
        if (!h->streaming) {
            h->streaming = 1;
            pthread_create(&h->producer, NULL, produce, h);
            ksemu_log("streamon", "fd=%d", h->app_fd);
        }
        return 0;
    case VIDIOC_STREAMOFF: stop_streaming(h); return 0;
    default: return -1;
    }
}

/* The current format, for G_FMT. */
void ksemu_current_format(struct handle *h, struct v4l2_format *format) {
    memset(&format->fmt.pix, 0, sizeof format->fmt.pix);
    format->fmt.pix.width = (uint32_t)h->width, format->fmt.pix.height = (uint32_t)h->height;
    format->fmt.pix.pixelformat = h->fourcc, format->fmt.pix.field = V4L2_FIELD_NONE;
    format->fmt.pix.bytesperline = h->bytesperline, format->fmt.pix.sizeimage = h->sizeimage;
    format->fmt.pix.colorspace = V4L2_COLORSPACE_SRGB;
}

const struct ksemu_scene *ksemu_scene(void) { return &scene; }
int32_t *ksemu_controls(struct handle *h) { return h->controls; }
