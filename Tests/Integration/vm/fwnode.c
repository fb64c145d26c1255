// fwnode.so: a device-tree node for dummy_hcd, for libcamera in the rig (LD_PRELOAD).
// libcamera's uvcvideo pipeline names a camera after the first ancestor of its USB device that
// the system firmware describes (sysfs `of_node` on device-tree boards such as a Raspberry Pi,
// `firmware_node/path` on ACPI PCs), and leaves out a camera with none ("Can not find controller
// ID"). Every real USB controller has one; dummy_hcd, the rig's virtual controller, has none. This
// answers stat64() and realpath() for dummy_hcd.0's `of_node` alone, as a device-tree board
// would, and passes every other call on: the camera is named /dummy-hcd@0-1:1.0-1d6b:0102, and
// the rest of libcamera runs on the real driver.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char node[] = "/sys/devices/platform/dummy_hcd.0/of_node";
static const char described[] = "/sys/firmware/devicetree/dummy-hcd@0";

int stat64(const char *path, struct stat64 *st) {
    static int (*real)(const char *, struct stat64 *);
    if (!real) real = (int (*)(const char *, struct stat64 *))dlsym(RTLD_NEXT, "stat64");
    // glibc declares path nonnull: no caller may pass NULL here.
    if (!strcmp(path, node)) return real("/sys/devices/platform/dummy_hcd.0", st);
    return real(path, st);
}

char *realpath(const char *path, char *resolved) {
    static char *(*real)(const char *, char *);
    if (!real) real = (char *(*)(const char *, char *))dlsym(RTLD_NEXT, "realpath");
    if (path && !strcmp(path, node)) return resolved ? strcpy(resolved, described) : strdup(described);
    return real(path, resolved);
}
