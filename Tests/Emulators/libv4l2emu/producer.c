/* The producer of the emulated camera: a helper process that v4l2emu.c starts at VIDIOC_STREAMON
 * and stops at VIDIOC_STREAMOFF. It keeps the frame clock, re-reads the node file every tick,
 * renders the scene and copies it into the app's queued buffers, and writes the `frame`, `drop`
 * and `unplug` lines. A camera fills its buffers by DMA, which is not charged to the process that
 * reads them; run inside the app, this work counted in the app's CPU time, which the benchmarks
 * measure (it was about 0.5 s a minute at 640x480, 30 fps, near our whole idle budget).
 *
 * A node file with a `sequence` plays it once from the tick after it was written: frame i on the
 * i-th tick, dropped ticks included, as a sensor's clock runs on whether or not a buffer waits.
 *
 * It talks to the library over the socket at descriptor 3 (see struct ksemu_message in emu.h):
 * SETUP first, with the buffer memfds, then QUEUE, STOP or UNPLUG. It exits when told to stop,
 * on unplug, and when the app's end hangs up (the app closed the camera or died, SIGKILL too). */
#define _GNU_SOURCE
#include "emu.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SOCKET_FD 3
/* Frames of an unchanged scene are cycled from this many pre-rendered variants (the noise differs):
 * a copy costs far less than noise, and this process too should stay small beside the app. */
#define VARIANTS 8

static const char *node;
static struct ksemu_scene scene;
static struct ksemu_message setup;
static int buffers[KSEMU_MAX_BUFFERS];     /* the app's buffer memfds, by index */
static int queue[KSEMU_MAX_BUFFERS], nqueued; /* queued buffer indices, oldest first */
static uint32_t sequence;
static uint64_t rng;
static int variant_fd = -1;                /* VARIANTS slots of setup.length bytes */
static size_t variant_used[VARIANTS];
static unsigned variant_generation[VARIANTS]; /* scene generation + 1 it was rendered for; 0 = none */
static unsigned sequence_generation;       /* the scene generation whose sequence is playing */
static uint32_t sequence_start;            /* the tick that showed (or dropped) its frame 0 */

/* The node is gone: the app's fd hangs up (POLLHUP), and the library answers ENODEV from now on. */
static void unplug(void) __attribute__((noreturn));
static void unplug(void) {
    ksemu_log("unplug", "fd=%d", setup.app_fd);
    shutdown(SOCKET_FD, SHUT_RDWR);
    exit(0);
}

/* SETUP and its memfds; returns -1 when the library sent something else or hung up. */
static int receive_setup(void) {
    union {
        char bytes[CMSG_SPACE(sizeof(int) * KSEMU_MAX_BUFFERS)];
        struct cmsghdr align;
    } control;
    struct iovec data = {&setup, sizeof setup};
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    ssize_t got;
    do got = recvmsg(SOCKET_FD, &message, MSG_CMSG_CLOEXEC);
    while (got < 0 && errno == EINTR);
    int received = 0;
    for (struct cmsghdr *c = got > 0 ? CMSG_FIRSTHDR(&message) : NULL; c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        if (received + count > KSEMU_MAX_BUFFERS) return -1; /* cannot happen: the buffer holds at most that many */
        memcpy(buffers + received, CMSG_DATA(c), (size_t)count * sizeof(int));
        received += count;
    }
    if (got != (ssize_t)sizeof setup || setup.kind != KSEMU_SETUP || (message.msg_flags & MSG_CTRUNC) ||
        setup.nbuffers < 1 || received != setup.nbuffers || setup.nqueued < 0 || setup.nqueued > setup.nbuffers)
        return -1;
    return 0;
}

/* Takes every command waiting, without blocking. */
static void read_commands(void) {
    for (;;) {
        struct ksemu_message command;
        ssize_t got = recv(SOCKET_FD, &command, sizeof command, MSG_DONTWAIT);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && errno == EAGAIN) return;
        if (got <= 0) exit(0); /* the app's end hung up: it closed the camera or died */
        switch (command.kind) {
        case KSEMU_QUEUE:
            if (command.index < (uint32_t)setup.nbuffers && nqueued < KSEMU_MAX_BUFFERS) queue[nqueued++] = (int)command.index;
            break;
        case KSEMU_STOP: {
            /* The library reads the sequence back, so that it goes on where this stream stopped. */
            struct ksemu_message stopped = {.kind = KSEMU_STOPPED, .sequence = sequence, .rng = rng};
            send(SOCKET_FD, &stopped, sizeof stopped, MSG_DONTWAIT | MSG_NOSIGNAL);
            exit(0);
        }
        case KSEMU_UNPLUG: unplug();
        default: break;
        }
    }
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

/* Renders `shown` into variant slot `variant` of the variant memfd. */
static int render_variant(int variant, const struct ksemu_scene *shown) {
    size_t length = (size_t)setup.length;
    if (variant_fd < 0) {
        variant_fd = memfd_create("ksemu-variants", MFD_CLOEXEC);
        if (variant_fd < 0) return -1;
        if (ftruncate(variant_fd, (off_t)(VARIANTS * length)) != 0) {
            close(variant_fd), variant_fd = -1;
            return -1;
        }
    }
    size_t pixels = (size_t)setup.width * (size_t)setup.height;
    uint8_t *scratch = mmap(NULL, pixels + length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (scratch == MAP_FAILED) return -1;
    ksemu_render_luma(shown, scratch, setup.width, setup.height, &rng);
    size_t used = ksemu_pack(setup.fourcc, scratch, setup.width, setup.height, scratch + pixels, length);
    ssize_t stored = pwrite(variant_fd, scratch + pixels, used, (off_t)variant * (off_t)length);
    munmap(scratch, pixels + length);
    if (stored != (ssize_t)used) return -1;
    variant_used[variant] = used;
    return 0;
}

/* The path of the sequence frame this tick shows into `path`, or NULL when no sequence is playing:
 * a node file rewritten with a sequence starts it on the tick after; once played it is done. */
static const char *sequence_frame(char *path, size_t size) {
    if (scene.generation != sequence_generation) sequence_generation = scene.generation, sequence_start = sequence;
    if (!*scene.sequence || sequence - sequence_start >= (uint32_t)scene.frames) return NULL;
    snprintf(path, size, scene.sequence, (int)(sequence - sequence_start));
    return path;
}

/* One frame period: a frame into the oldest queued buffer, or a drop when none is queued. */
static void tick(void) {
    if (ksemu_scene_refresh(node, &scene) != 0) unplug();
    if (scene.stall) return;
    sequence++;
    char path[PATH_MAX];
    const char *image = sequence_frame(path, sizeof path);
    if (nqueued == 0) {
        ksemu_log("drop", "seq=%u image=%s", sequence, image ? image : *scene.frame ? scene.frame : "-");
        return;
    }
    int index = queue[0];
    int variant = (int)(sequence % VARIANTS);
    if (image) {
        /* A sequence frame is shown once: rendered for this tick, and its slot stale afterwards. */
        static struct ksemu_scene shown;
        shown = scene;
        snprintf(shown.frame, sizeof shown.frame, "%s", image);
        if (render_variant(variant, &shown) != 0) return;
        variant_generation[variant] = 0;
    } else if (variant_generation[variant] != scene.generation + 1) {
        /* Rendered once per scene and variant, then copied. */
        if (render_variant(variant, &scene) != 0) return;
        variant_generation[variant] = scene.generation + 1;
    }
    if (copy_range(variant_fd, (off_t)variant * (off_t)setup.length, buffers[index], variant_used[variant]) != 0) return;
    memmove(queue, queue + 1, (size_t)--nqueued * sizeof queue[0]);
    struct ksemu_message filled = {.kind = KSEMU_FILLED, .index = (uint32_t)index, .sequence = sequence,
                                   .used = (uint32_t)variant_used[variant], .timestamp = ksemu_now_ns()};
    send(SOCKET_FD, &filled, sizeof filled, MSG_DONTWAIT | MSG_NOSIGNAL);
    ksemu_log("frame", "seq=%u image=%s", sequence, image ? image : *scene.frame ? scene.frame : "-");
}

static uint64_t period_ns(void) { return 1000000000ull / (uint64_t)(scene.fps > 0 ? scene.fps : 30); }

int main(void) {
    /* The log may be a FIFO (the throughput benchmark's) whose reader has gone: a failed line, not a death. */
    signal(SIGPIPE, SIG_IGN);
    node = getenv("KSEMU_DEVICE");
    if (!node || receive_setup() != 0) return 1;
    sequence = setup.sequence, rng = setup.rng;
    for (int i = 0; i < setup.nqueued; i++)
        if (setup.queued[i] < (uint32_t)setup.nbuffers) queue[nqueued++] = (int)setup.queued[i];
    if (ksemu_scene_refresh(node, &scene) != 0) unplug();
    /* Unlike a driver's clock, this one waits a full period after each frame it produces, as it did
       in the app's process (Benchmarks/README.md: ticks come slower than the nominal rate). */
    uint64_t deadline = ksemu_now_ns() + period_ns();
    for (;;) {
        uint64_t now = ksemu_now_ns();
        if (now >= deadline) {
            read_commands(); /* every VIDIOC_QBUF the app made before this tick counts */
            tick();
            deadline = ksemu_now_ns() + period_ns();
            continue;
        }
        uint64_t left = deadline - now;
        struct timespec wait = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        struct pollfd app = {SOCKET_FD, POLLIN, 0};
        if (ppoll(&app, 1, &wait, NULL) > 0) read_commands();
    }
}
