// streamon-noop.so: a deliberately broken ioctl sequence, to show the rig catches it.
// LD_PRELOAD it into the daemon and VIDIOC_STREAMON (0x40045612) answers success without reaching
// the driver: the daemon believes it streams, no frame ever arrives, no code is read, and the
// vivid scenarios must FAIL (`Tests/Integration/vm/run --break-streamon`).
// The daemon reaches the camera through libv4l2's v4l2_ioctl(), which calls the kernel with
// syscall(SYS_ioctl) and so bypasses an ioctl() interposer: both entry points are covered.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/videodev2.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>

static int noted;

static int is_streamon(unsigned long request) {
    if (request != VIDIOC_STREAMON) return 0;
    if (!noted++) fprintf(stderr, "streamon-noop: VIDIOC_STREAMON swallowed (rig self-test)\n");
    return 1;
}

typedef int (*ioctl_fn)(int, unsigned long, ...);

// Swallows VIDIOC_STREAMON; passes every other request to the next definition of `name`.
static int pass_on(const char *name, ioctl_fn *real, int fd, unsigned long request, void *arg) {
    if (is_streamon(request)) return 0;
    if (!*real) *real = (ioctl_fn)dlsym(RTLD_NEXT, name);
    return (*real)(fd, request, arg);
}

// Defines the variadic entry point NAME as libv4l2 and libc declare it, taking the one pointer
// argument every V4L2 request has, and hands it to pass_on.
#define INTERPOSE(NAME)                                      \
    int NAME(int fd, unsigned long request, ...) {           \
        va_list ap;                                          \
        va_start(ap, request);                               \
        void *arg = va_arg(ap, void *);                      \
        va_end(ap);                                          \
        static ioctl_fn real;                                \
        return pass_on(#NAME, &real, fd, request, arg);      \
    }

INTERPOSE(v4l2_ioctl)
INTERPOSE(ioctl)
