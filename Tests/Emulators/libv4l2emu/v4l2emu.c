/* An emulated camera at the libv4l2 boundary: preloaded in front of libv4l2, it answers
 * v4l2_open/ioctl/mmap/munmap/close for the node named by $KSEMU_DEVICE and forwards every other
 * call to the real library. The node file scripts the scene (see README.md); removing it unplugs
 * the camera. The app gets a real pollable fd: one end of a socketpair that carries one record
 * per filled buffer, and hangs up on unplug. While streaming, frames are produced by a helper
 * process holding the other end (producer.c), as a driver fills buffers by DMA: the frame clock,
 * the scene and the copies are not charged to the app's CPU time, which the benchmarks measure. */
#define _GNU_SOURCE
#include "emu.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_HANDLES 4
/* Where the producer finds its end of the pair. */
#define PRODUCER_SOCKET_FD 3

/* The emulator runs inside the app's process, and a benchmark measures that process's RSS: like a
 * camera, whose frames arrive by DMA into buffers that only the app maps, it keeps no frame in the
 * app's memory. The buffers are memfds, handed to the producer, which copies frames into them in
 * the kernel; the app maps them through v4l2_mmap. */
struct buffer {
    int memfd;
    void *app_mapping;     /* the app's mapping, from v4l2_mmap */
    size_t length, used;
    int queued;            /* QBUF order while queued, 0 otherwise */
    uint32_t sequence;
    uint64_t timestamp;
};

struct handle {
    int in_use, app_fd, emu_fd, nonblocking, dead, streaming;
    int waiters;           /* threads in a blocking VIDIOC_DQBUF, waiting with the lock free */
    pid_t producer;        /* while streaming; 0 otherwise */
    pid_t spawner;         /* the process that started it: a forked child of the app must not stop it */
    uint32_t fourcc, bytesperline, sizeimage;
    int width, height, nbuffers;
    struct buffer buffers[KSEMU_MAX_BUFFERS];
    uint32_t sequence;     /* the last frame's, handed to the next producer */
    uint64_t rng;
    int32_t controls[KSEMU_CONTROLS];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle handles[MAX_HANDLES];
static struct ksemu_scene scene;
static char producer_path[PATH_MAX + 32];

extern char **environ;

#define REAL(name, ret, ...) \
    static ret (*real_##name)(__VA_ARGS__); \
    if (!real_##name) *(void **)&real_##name = dlsym(RTLD_NEXT, #name)

/* The producer is built beside this library (Makefile). Found at load, while a relative
 * LD_PRELOAD path still means what it meant at exec, before the app may change directory. */
__attribute__((constructor)) static void find_producer(void) {
    Dl_info self;
    char resolved[PATH_MAX];
    if (!dladdr((void *)find_producer, &self) || !self.dli_fname || !realpath(self.dli_fname, resolved)) return;
    snprintf(producer_path, sizeof producer_path, "%s/ksemu-producer", dirname(resolved));
}

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

/* Marks a handle unplugged: the app's fd hangs up, and blocked dequeuers wake on it. While a
 * producer runs, the producer does it, so that one `unplug` line is written even when it saw the
 * node go first (it has then exited, and the command fails). Call with the lock held. */
static void kill_handle(struct handle *h) {
    if (h->dead) return;
    h->dead = 1;
    if (h->producer) {
        struct ksemu_message unplug = {.kind = KSEMU_UNPLUG};
        send(h->app_fd, &unplug, sizeof unplug, MSG_DONTWAIT | MSG_NOSIGNAL);
        return;
    }
    shutdown(h->emu_fd, SHUT_RDWR);
    ksemu_log("unplug", "fd=%d", h->app_fd);
}

static int check_plugged(struct handle *h) {
    if (!h->dead && ksemu_scene_refresh(node(), &scene) != 0) kill_handle(h);
    return h->dead ? -1 : 0;
}

/* Empties one end of the pair; a STOPPED record among what it takes hands its sequence and noise
 * state back to the handle `stopped`, if given, for the next stream. */
static void drain(int fd, struct handle *stopped) {
    struct ksemu_message record;
    while (recv(fd, &record, sizeof record, MSG_DONTWAIT) > 0)
        if (stopped && record.kind == KSEMU_STOPPED) stopped->sequence = record.sequence, stopped->rng = record.rng;
}

/* The app's environment without LD_PRELOAD: the producer needs none of the preloaded emulators. */
static char **producer_environment(void) {
    size_t count = 0;
    while (environ[count]) count++;
    char **copy = malloc((count + 1) * sizeof *copy);
    if (!copy) return NULL;
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0) copy[kept++] = environ[i];
    copy[kept] = NULL;
    return copy;
}

/* Starts the producer of a handle; returns 0 or an errno. SETUP goes into the pair first, with the
 * buffer memfds attached, so that it is the first thing the producer reads and nothing is held open
 * for it across the spawn but its end of the pair. posix_spawn, not fork: the app is multithreaded. */
static int start_producer(struct handle *h) {
    if (!*producer_path) return ENOENT;
    struct ksemu_message setup = {
        .kind = KSEMU_SETUP, .sequence = h->sequence, .rng = h->rng, .fourcc = h->fourcc, .width = h->width,
        .height = h->height, .nbuffers = h->nbuffers, .app_fd = h->app_fd, .length = h->buffers[0].length,
    };
    /* The queued buffers, oldest first: the app queues them before VIDIOC_STREAMON. */
    for (int after = 0;;) {
        int next = -1;
        for (int i = 0; i < h->nbuffers; i++)
            if (h->buffers[i].queued > after && (next < 0 || h->buffers[i].queued < h->buffers[next].queued)) next = i;
        if (next < 0) break;
        setup.queued[setup.nqueued++] = (uint32_t)next;
        after = h->buffers[next].queued;
    }
    union {
        char bytes[CMSG_SPACE(sizeof(int) * KSEMU_MAX_BUFFERS)];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct iovec data = {&setup, sizeof setup};
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control.bytes,
                             .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)h->nbuffers)};
    struct cmsghdr *rights = CMSG_FIRSTHDR(&message);
    rights->cmsg_level = SOL_SOCKET, rights->cmsg_type = SCM_RIGHTS;
    rights->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)h->nbuffers);
    for (int i = 0; i < h->nbuffers; i++) memcpy(CMSG_DATA(rights) + i * sizeof(int), &h->buffers[i].memfd, sizeof(int));
    if (sendmsg(h->app_fd, &message, MSG_NOSIGNAL) != (ssize_t)sizeof setup) return errno ? errno : EIO;

    /* Its end of the pair at a known number, stdin and stdout on /dev/null (stderr stays, for its
       complaints), and nothing else of the app's: a daemon's descriptors, close-on-exec or not. Its
       signals as at a fresh start: the app may block or ignore some for its own handling. */
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    sigset_t none, all;
    sigemptyset(&none), sigfillset(&all);
    int error = posix_spawn_file_actions_init(&actions);
    if (!error) {
        error = posix_spawnattr_init(&attributes);
        if (!error) {
            char **environment = producer_environment();
            char *argv[] = {"ksemu-producer", NULL};
            if (!environment) error = ENOMEM;
            if (!error) error = posix_spawn_file_actions_adddup2(&actions, h->emu_fd, PRODUCER_SOCKET_FD);
            if (!error) error = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
            if (!error) error = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
            if (!error) error = posix_spawn_file_actions_addclosefrom_np(&actions, PRODUCER_SOCKET_FD + 1);
            if (!error) error = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
            if (!error) error = posix_spawnattr_setsigmask(&attributes, &none);
            if (!error) error = posix_spawnattr_setsigdefault(&attributes, &all);
            if (!error) error = posix_spawn(&h->producer, producer_path, &actions, &attributes, argv, environment);
            if (!error) h->spawner = getpid();
            free(environment);
            posix_spawnattr_destroy(&attributes);
        }
        posix_spawn_file_actions_destroy(&actions);
    }
    if (error) {
        h->producer = 0;
        drain(h->emu_fd, NULL); /* SETUP, unread: the memfds in flight are closed with it */
    }
    return error;
}

/* Stops the producer and takes back what it left in the pair: buffers filled but not dequeued
 * (VIDIOC_STREAMOFF drops them), its STOPPED record, and commands it did not read. It needs no
 * lock of ours to exit, so it is waited for with the lock held. */
static void stop_producer(struct handle *h) {
    struct ksemu_message stop = {.kind = KSEMU_STOP};
    /* EPIPE: it has unplugged the camera and exits by itself. Anything else would leave the wait
       below without an end. */
    if (send(h->app_fd, &stop, sizeof stop, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof stop && errno != EPIPE)
        kill(h->producer, SIGKILL);
    int status;
    while (waitpid(h->producer, &status, 0) < 0 && errno == EINTR) {}
    h->producer = 0;
    drain(h->app_fd, h);
    drain(h->emu_fd, NULL);
}

static void stop_streaming(struct handle *h) {
    if (!h->streaming) return;
    stop_producer(h);
    h->streaming = 0;
    for (int i = 0; i < h->nbuffers; i++) h->buffers[i].queued = 0;
    /* A blocking VIDIOC_DQBUF in another thread waits on the app's fd: a record wakes it, left there
       until the last waiter has seen that the stream stopped. */
    if (h->waiters) {
        struct ksemu_message wake = {.kind = KSEMU_WAKE};
        send(h->emu_fd, &wake, sizeof wake, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    ksemu_log("streamoff", "fd=%d", h->app_fd);
}

/* An app that exits while streaming, without closing the camera: its producers are stopped and
 * waited for here, not left to notice the hang-up after the app is gone and be reparented. If
 * another thread is inside the emulator, they are left to the hang-up. */
__attribute__((destructor)) static void stop_all(void) {
    if (pthread_mutex_trylock(&lock) != 0) return;
    for (int i = 0; i < MAX_HANDLES; i++)
        if (handles[i].in_use && handles[i].spawner == getpid()) stop_streaming(&handles[i]);
    pthread_mutex_unlock(&lock);
}

static void free_buffers(struct handle *h) {
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
    uint32_t count = request->count < 2 ? 2 : request->count > KSEMU_MAX_BUFFERS ? KSEMU_MAX_BUFFERS : request->count;
    size_t length = ((size_t)h->sizeimage + 4095) & ~(size_t)4095;
    for (uint32_t i = 0; i < count; i++) {
        struct buffer *b = &h->buffers[i];
        memset(b, 0, sizeof *b);
        b->memfd = memfd_create("ksemu-buffer", MFD_CLOEXEC);
        if (b->memfd < 0) return ENOMEM;
        if (ftruncate(b->memfd, (off_t)length) != 0) {
            close(b->memfd);
            return ENOMEM;
        }
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

/* The oldest filled buffer: the producer's records arrive on the app's fd in the order it filled
 * them, one per buffer, so taking one is what makes the fd stop polling readable for it. */
static int dequeue(struct handle *h, struct v4l2_buffer *buffer) {
    for (;;) {
        if (h->dead) return ENODEV;
        if (!h->streaming) return EAGAIN;
        struct ksemu_message record;
        ssize_t got = recv(h->app_fd, &record, sizeof record, MSG_DONTWAIT);
        if (got == (ssize_t)sizeof record && record.kind == KSEMU_FILLED && record.index < (uint32_t)h->nbuffers) {
            struct buffer *b = &h->buffers[record.index];
            b->queued = 0, b->used = record.used, b->sequence = record.sequence, b->timestamp = record.timestamp;
            h->sequence = record.sequence;
            describe_buffer(h, (int)record.index, buffer);
            return 0;
        }
        if (got == 0) {
            h->dead = 1; /* the producer saw the node go, hung the pair up and logged it */
            continue;
        }
        if (got > 0 || errno == EINTR) continue; /* a wake-up: look again */
        if (errno != EAGAIN) return errno;
        if (h->nonblocking) return EAGAIN;
        /* Blocking, as a driver sleeps in DQBUF: until the next record or the hang-up, with the lock
           free for the app's other threads (STREAMOFF among them, which leaves a WAKE record). */
        struct pollfd readable = {h->app_fd, POLLIN, 0};
        h->waiters++;
        pthread_mutex_unlock(&lock);
        poll(&readable, 1, -1);
        pthread_mutex_lock(&lock);
        if (--h->waiters == 0 && !h->streaming && !h->dead) drain(h->app_fd, NULL);
    }
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
    h->in_use = 1, h->app_fd = pair[0], h->emu_fd = pair[1];
    h->nonblocking = (oflag & O_NONBLOCK) != 0;
    h->rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)pair[0];
    ksemu_control_defaults(h->controls);
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
        if (h->streaming) {
            /* Before VIDIOC_STREAMON the queue goes along in SETUP. */
            struct ksemu_message queue = {.kind = KSEMU_QUEUE, .index = buffer->index};
            if (send(h->app_fd, &queue, sizeof queue, MSG_NOSIGNAL) != (ssize_t)sizeof queue) {
                if (errno != EPIPE) return errno;
                h->dead = 1; /* the producer saw the node go, hung the pair up and logged it */
                return ENODEV;
            }
        }
        static int order;
        h->buffers[buffer->index].queued = ++order;
        return 0;
    }
    case VIDIOC_DQBUF: return dequeue(h, argument);
    case VIDIOC_STREAMON:
        if (h->nbuffers == 0) return EINVAL;
        if (!h->streaming) {
            drain(h->app_fd, NULL); /* a WAKE left for dequeuers of the last stream */
            int error = start_producer(h);
            if (error) {
                ksemu_log("producer-failed", "errno=%d path=%s", error, producer_path);
                return EIO;
            }
            h->streaming = 1;
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
