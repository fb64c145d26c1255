// An emulated /dev/uinput at the open/ioctl/write boundary, preloaded (LD_PRELOAD) into the
// daemon. Opening KSUINPUT_DEVICE gives a descriptor of KSUINPUT_DEVICE.events, where the daemon's
// struct input_event writes land as they are; every ioctl on it is logged as a text line to
// KSUINPUT_DEVICE.ioctl and succeeds, except UI_GET_SYSNAME (ENOTTY, as on kernels before 3.15),
// because no /sys entry exists for an emulated device. Other files and ioctls pass through.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int emulated_fd = -1;

static int emulated_open(const char *path) {
    const char *device = getenv("KSUINPUT_DEVICE");
    if (!device || strcmp(path, device) != 0) return -2;
    char events[4096];
    snprintf(events, sizeof events, "%s.events", device);
    emulated_fd = (int)syscall(SYS_openat, AT_FDCWD, events, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    return emulated_fd;
}

#define PASS_OPEN(name, ...)                                                   \
    int fd = emulated_open(path);                                              \
    if (fd != -2) return fd;                                                   \
    mode_t mode = 0;                                                           \
    if (flags & (O_CREAT | O_TMPFILE)) {                                       \
        va_list args;                                                          \
        va_start(args, flags);                                                 \
        mode = va_arg(args, mode_t);                                           \
        va_end(args);                                                          \
    }                                                                          \
    static int (*real)() = NULL;                                               \
    if (!real) real = dlsym(RTLD_NEXT, name);                                  \
    return real(__VA_ARGS__, mode);

int open(const char *path, int flags, ...) { PASS_OPEN("open", path, flags) }
int open64(const char *path, int flags, ...) { PASS_OPEN("open64", path, flags) }
int openat(int dir, const char *path, int flags, ...) { PASS_OPEN("openat", dir, path, flags) }
int openat64(int dir, const char *path, int flags, ...) { PASS_OPEN("openat64", dir, path, flags) }

static const char *request_name(unsigned long request) {
    if (request == UI_SET_EVBIT) return "UI_SET_EVBIT";
    if (request == UI_SET_KEYBIT) return "UI_SET_KEYBIT";
    if (request == UI_DEV_SETUP) return "UI_DEV_SETUP";
    if (request == UI_DEV_CREATE) return "UI_DEV_CREATE";
    if (request == UI_DEV_DESTROY) return "UI_DEV_DESTROY";
    if (_IOC_TYPE(request) == 'U' && _IOC_NR(request) == 44) return "UI_GET_SYSNAME";
    return "other";
}

int ioctl(int fd, unsigned long request, ...) {
    va_list args;
    va_start(args, request);
    void *argument = va_arg(args, void *);
    va_end(args);
    if (fd != emulated_fd || fd < 0) {
        static int (*real)(int, unsigned long, ...) = NULL;
        if (!real) real = dlsym(RTLD_NEXT, "ioctl");
        return real(fd, request, argument);
    }
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s.ioctl", getenv("KSUINPUT_DEVICE"));
    const char *name = request_name(request);
    int length;
    if (request == UI_DEV_SETUP) {
        const struct uinput_setup *setup = argument;
        length = snprintf(line, sizeof line, "%s bus=%u vendor=%04x product=%04x name=%s\n", name, setup->id.bustype, setup->id.vendor,
                          setup->id.product, setup->name);
    } else if (request == UI_SET_EVBIT || request == UI_SET_KEYBIT) {
        length = snprintf(line, sizeof line, "%s %ld\n", name, (long)argument);
    } else {
        length = snprintf(line, sizeof line, "%s\n", name);
    }
    int log = (int)syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (log >= 0) {
        (void)!write(log, line, (size_t)length);
        close(log);
    }
    if (strcmp(name, "UI_GET_SYSNAME") == 0) {
        errno = ENOTTY;
        return -1;
    }
    return 0;
}
