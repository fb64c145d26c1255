// keyread: finds the evdev device whose name contains NAME (waiting for it to appear), and prints
// its key events as text.
//
//   keyread [--timeout SEC] [--until TEXT [--count N] [--stamp]] [--keys] [--layout LAYOUT] NAME
//
// Default output is the typed text (US layout, shift honoured), flushed per key. With --layout
// (an xkeyboard-config layout such as fr or ch(fr)) the text is what a Linux desktop with that
// layout types: the key events go through libxkbcommon and the en_US.UTF-8 compose table. With --keys it is
// one line per key event instead: `press KEY_A` / `release KEY_A`. When the device is open it says
// `keyread: reading /dev/input/eventN (NAME)` on stderr. With --count, TEXT must appear N times
// (the text is cleared after each); --stamp then prints, instead of the text, one line
// `t=SECONDS` per appearance: the kernel's (CLOCK_REALTIME) time of the key event that completed it. Exit 0 when --until TEXT appeared in the
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
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-compose.h>
#include "keymap.h"

static struct xkb_state *xkb;
static struct xkb_compose_state *compose;

static int xkb_setup(const char *spec) {
    char layout[128] = "", variant[128] = "";
    if (sscanf(spec, "%127[^(](%127[^)])", layout, variant) < 1) return -1;
    struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
    struct xkb_rule_names names = {.rules = "evdev", .model = "pc105", .layout = layout, .variant = variant};
    struct xkb_keymap *keymap = context ? xkb_keymap_new_from_names(context, &names, XKB_KEYMAP_COMPILE_NO_FLAGS) : NULL;
    struct xkb_compose_table *table = context ? xkb_compose_table_new_from_locale(context, "en_US.UTF-8", XKB_COMPOSE_COMPILE_NO_FLAGS) : NULL;
    if (!keymap || !table) return -1;
    xkb = xkb_state_new(keymap);
    compose = xkb_compose_state_new(table, XKB_COMPOSE_STATE_NO_FLAGS);
    return 0;
}

// The text a key event types on the --layout host ("" for none).
static const char *xkb_text(int code, int value) {
    static char text[32];
    text[0] = 0;
    if (value == 2) return text;
    if (value == 1) {
        xkb_keysym_t sym = xkb_state_key_get_one_sym(xkb, code + 8);
        xkb_compose_state_feed(compose, sym);
        switch (xkb_compose_state_get_status(compose)) {
        case XKB_COMPOSE_NOTHING: xkb_state_key_get_utf8(xkb, code + 8, text, sizeof text); break;
        case XKB_COMPOSE_COMPOSED: xkb_compose_state_get_utf8(compose, text, sizeof text); xkb_compose_state_reset(compose); break;
        case XKB_COMPOSE_CANCELLED: xkb_compose_state_reset(compose); break;
        case XKB_COMPOSE_COMPOSING: break;
        }
    }
    xkb_state_update_key(xkb, code + 8, value ? XKB_KEY_DOWN : XKB_KEY_UP);
    return text;
}

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
    const char *until = NULL, *want = NULL, *layout = NULL;
    int keys = 0, count = 1, stamp = 0, seen = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout = atof(argv[++i]);
        else if (!strcmp(argv[i], "--until") && i + 1 < argc) until = argv[++i];
        else if (!strcmp(argv[i], "--keys")) keys = 1;
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--stamp")) stamp = 1;
        else if (!strcmp(argv[i], "--layout") && i + 1 < argc) layout = argv[++i];
        else if (argv[i][0] != '-' && !want) want = argv[i];
        else { fprintf(stderr, "usage: keyread [--timeout SEC] [--until TEXT] [--keys] [--layout LAYOUT] NAME\n"); return 2; }
    }
    if (!want) { fprintf(stderr, "keyread: no device name\n"); return 2; }
    if (layout && xkb_setup(layout) != 0) { fprintf(stderr, "keyread: no keymap or compose table for layout %s\n", layout); return 2; }
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
            } else if (layout) {
                const char *typed = xkb_text(ev[i].code, ev[i].value);
                if (!stamp) fputs(typed, stdout);
                size_t n = strlen(typed);
                if (len + n < sizeof text) { memcpy(text + len, typed, n + 1); len += n; }
            } else {
                if (ev[i].code == KEY_LEFTSHIFT || ev[i].code == KEY_RIGHTSHIFT) { shift = ev[i].value != 0; continue; }
                if (ev[i].value != 1 || !k) continue;
                char c = shift ? k->shifted : k->plain;
                if (!c) continue;
                if (!stamp) putchar(c);
                if (len + 1 < sizeof text) { text[len++] = c; text[len] = 0; }
            }
            if (until && strstr(text, until)) {
                if (stamp) printf("t=%ld.%06ld\n", (long)ev[i].input_event_sec, (long)ev[i].input_event_usec);
                fflush(stdout);
                if (++seen >= count) return 0;
                len = 0;
                text[0] = 0;
            }
            fflush(stdout);
        }
    }
    return until ? 1 : 0;
}
