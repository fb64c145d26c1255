// keyread: finds the evdev device whose name contains NAME (waiting for it to appear), and prints
// its key events as text.
//
//   keyread [--timeout SEC] [--until TEXT] [--keys] NAME
//
// Default output is the typed text (US layout, shift honoured), flushed per key. With --keys it is
// one line per key event instead: `press KEY_A` / `release KEY_A`. When the device is open it says
// `keyread: reading /dev/input/eventN (NAME)` on stderr. Exit 0 when --until TEXT appeared in the
// output (or at the timeout when no --until was given), 1 at the timeout otherwise, 3 when the
// device went away, 2 on usage errors.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "keymap.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int find(const char *want, char *path, size_t pathlen, char *name, size_t namelen) {
    DIR *d = opendir("/dev/input");
    if (!d) return -1;
    struct dirent *e;
    int fd = -1;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "event", 5)) continue;
        snprintf(path, pathlen, "/dev/input/%s", e->d_name);
        int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (f < 0) continue;
        name[0] = 0;
        ioctl(f, EVIOCGNAME(namelen - 1), name);
        if (strstr(name, want)) { fd = f; break; }
        close(f);
    }
    closedir(d);
    return fd;
}

int main(int argc, char **argv) {
    double timeout = 10;
    const char *until = NULL, *want = NULL;
    int keys = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout = atof(argv[++i]);
        else if (!strcmp(argv[i], "--until") && i + 1 < argc) until = argv[++i];
        else if (!strcmp(argv[i], "--keys")) keys = 1;
        else if (argv[i][0] != '-' && !want) want = argv[i];
        else { fprintf(stderr, "usage: keyread [--timeout SEC] [--until TEXT] [--keys] NAME\n"); return 2; }
    }
    if (!want) { fprintf(stderr, "keyread: no device name\n"); return 2; }
    double deadline = now() + timeout;
    char path[300], name[256];
    int fd;
    while ((fd = find(want, path, sizeof path, name, sizeof name)) < 0) {
        if (now() >= deadline) { fprintf(stderr, "keyread: no input device named *%s* within %.0fs\n", want, timeout); return 1; }
        usleep(50000);
    }
    fprintf(stderr, "keyread: reading %s (%s)\n", path, name);
    char text[4096];
    size_t len = 0;
    int shift = 0;
    text[0] = 0;
    while (now() < deadline) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int ms = (int)((deadline - now()) * 1000) + 1;
        int n = poll(&p, 1, ms);
        if (n < 0) { if (errno == EINTR) continue; return 1; }
        if (n == 0) break;
        struct input_event ev[64];
        ssize_t r = read(fd, ev, sizeof ev);
        if (r < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            fprintf(stderr, "keyread: %s: %s\n", path, strerror(errno));
            return 3;
        }
        for (size_t i = 0; i < (size_t)r / sizeof ev[0]; i++) {
            if (ev[i].type != EV_KEY) continue;
            const struct ks_key *k = ks_key_by_code(ev[i].code);
            if (keys) {
                if (ev[i].value == 2) continue;
                if (k) printf("%s KEY_%s\n", ev[i].value ? "press" : "release", k->name);
                else printf("%s key %u\n", ev[i].value ? "press" : "release", ev[i].code);
                int m = snprintf(text + len, sizeof text - len, "%s KEY_%s\n", ev[i].value ? "press" : "release", k ? k->name : "?");
                if (m > 0 && len + m < sizeof text) len += m;
            } else {
                if (ev[i].code == KEY_LEFTSHIFT || ev[i].code == KEY_RIGHTSHIFT) { shift = ev[i].value != 0; continue; }
                if (ev[i].value != 1 || !k) continue;
                char c = shift ? k->shifted : k->plain;
                if (!c) continue;
                putchar(c);
                if (len + 1 < sizeof text) { text[len++] = c; text[len] = 0; }
            }
            fflush(stdout);
            if (until && strstr(text, until)) return 0;
        }
    }
    return until ? 1 : 0;
}
