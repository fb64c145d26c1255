// hidposread: the host side of a USB HID Point of Sale bar code scanner, written from the specs and
// not from kiosk-scanner's encoder: it parses the device's report descriptor (HID 1.11, 6.2.2:
// short items, main/global/local state) to find where the usages of the Bar Code Scanner page
// (HID POS Usage Tables 1.02, section 3: 0x8C) sit, then decodes reports by those positions.
//
//   hidposread [--timeout SEC] [--count N] [--stamp] [--send prevent|initiate] [DEVICE]
//       DEVICE is a /dev/hidrawN; without it, the first hidraw whose application collection is
//       Bar Code Scanner (0x8C:0x02), waited for up to the timeout. With --send, writes that
//       Trigger Report (Prevent Read of Barcodes 0x8C:0x5F / Initiate Barcode Read 0x8C:0x60) and
//       exits; otherwise prints codes until N were read (default 1) or the timeout.
//   hidposread --descriptor FILE [--send prevent|initiate]
//       The same with a descriptor from FILE and input reports from stdin; --send prints the
//       output report as hex instead of writing it.
//
// A code is printed as one line `aim=<3 identifier bytes> hex=<data as hex>`, after joining the
// reports chained with Decode Data Continued; --stamp puts `t=SECONDS ` (CLOCK_REALTIME when the
// last report was read) first. `layout:` lines on stderr say where the fields are.
// Exit 0 when N codes were read (or the report was sent), 1 at the timeout, 2 on bad input.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/hidraw.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

enum { INPUT = 8, OUTPUT = 9, COLLECTION = 10 };
enum { POS_PAGE = 0x8C, DESKTOP_PAGE = 0x01 };

struct field { int direction, report_id, bit, size; unsigned page, usage; };
static struct field fields[1024];
static int field_count, has_report_ids, is_scanner, stamp;

static unsigned item_value(const unsigned char *data, int size) {
    unsigned value = 0;
    for (int i = 0; i < size; i++) value |= (unsigned)data[i] << (8 * i);
    return value;
}

// Walks the descriptor's items, giving each data field of each report its usage and bit position.
static int parse(const unsigned char *desc, int length) {
    unsigned page = 0, report_size = 0, report_count = 0, report_id = 0;
    unsigned usages[256];
    int usage_count = 0;
    int offsets[2][256] = {{0}};
    for (int at = 0; at < length;) {
        unsigned char prefix = desc[at];
        if (prefix == 0xFE) { at += 3 + (at + 1 < length ? desc[at + 1] : 0); continue; }  // long item
        int size = (prefix & 3) == 3 ? 4 : (prefix & 3);
        int type = (prefix >> 2) & 3, tag = prefix >> 4;
        if (at + 1 + size > length) return -1;
        unsigned value = item_value(desc + at + 1, size);
        at += 1 + size;
        if (type == 1) {  // global
            if (tag == 0) page = value;
            else if (tag == 7) report_size = value;
            else if (tag == 8) { report_id = value; has_report_ids = 1; }
            else if (tag == 9) report_count = value;
        } else if (type == 2) {  // local
            if (tag == 0 && usage_count < 256) usages[usage_count++] = size == 4 ? value : (page << 16 | value);
        } else if (type == 0) {  // main
            if (tag == COLLECTION && value == 1 && usage_count > 0 && usages[usage_count - 1] == (POS_PAGE << 16 | 0x02)) is_scanner = 1;
            if ((tag == INPUT || tag == OUTPUT) && report_id < 256) {
                int direction = tag == OUTPUT;
                int *offset = &offsets[direction][report_id];
                if (*offset == 0 && has_report_ids) *offset = 8;  // the report ID byte
                int constant = value & 1;
                for (unsigned i = 0; i < report_count; i++) {
                    if (!constant && usage_count > 0 && field_count < 1024) {
                        unsigned full = usages[i < (unsigned)usage_count ? i : (unsigned)usage_count - 1];
                        fields[field_count++] = (struct field){direction, (int)report_id, *offset, (int)report_size, full >> 16, full & 0xFFFF};
                    }
                    *offset += report_size;
                }
            }
            usage_count = 0;
        }
    }
    return 0;
}

static const struct field *find(int direction, unsigned page, unsigned usage, int nth) {
    for (int i = 0; i < field_count; i++)
        if (fields[i].direction == direction && fields[i].page == page && fields[i].usage == usage && nth-- == 0) return &fields[i];
    return NULL;
}

static unsigned get(const unsigned char *report, int length, const struct field *f) {
    unsigned value = 0;
    for (int b = 0; b < f->size; b++) {
        int bit = f->bit + b;
        if (bit / 8 < length && (report[bit / 8] >> (bit % 8)) & 1) value |= 1u << b;
    }
    return value;
}

// Bytes in the report with this ID and direction, from its last field.
static int report_bytes(int direction, int report_id) {
    int end = 0;
    for (int i = 0; i < field_count; i++)
        if (fields[i].direction == direction && fields[i].report_id == report_id && fields[i].bit + fields[i].size > end)
            end = fields[i].bit + fields[i].size;
    return (end + 7) / 8;
}

static unsigned char code[65536];
static int code_length;

// Decodes one input report; prints the code when the report completes it. Returns 1 then.
static int take(const unsigned char *report, int length) {
    const struct field *data0 = find(0, POS_PAGE, 0xFE, 0), *count = find(0, DESKTOP_PAGE, 0x3B, 0), *more = find(0, POS_PAGE, 0xFF, 0);
    if (!data0 || (has_report_ids && report[0] != data0->report_id)) return 0;
    unsigned n = count ? get(report, length, count) : 0;
    for (unsigned i = 0; i < n; i++) {
        const struct field *f = find(0, POS_PAGE, 0xFE, (int)i);
        if (!f || code_length >= (int)sizeof code) { fprintf(stderr, "hidposread: byte count %u beyond the Decoded Data fields\n", n); return 0; }
        code[code_length++] = (unsigned char)get(report, length, f);
    }
    if (more && get(report, length, more)) return 0;
    if (stamp) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        printf("t=%ld.%06ld ", (long)ts.tv_sec, ts.tv_nsec / 1000);
    }
    printf("aim=");
    for (int i = 0; i < 3; i++) {
        const struct field *f = find(0, POS_PAGE, 0xFB + i, 0);
        unsigned c = f ? get(report, length, f) : 0;
        putchar(c >= 0x21 && c < 0x7F ? (int)c : '.');
    }
    printf(" hex=");
    for (int i = 0; i < code_length; i++) printf("%02x", code[i]);
    putchar('\n');
    fflush(stdout);
    code_length = 0;
    return 1;
}

static int output_report(const char *what, unsigned char *report) {
    const struct field *f = find(1, POS_PAGE, strcmp(what, "prevent") == 0 ? 0x5F : 0x60, 0);
    if (!f) { fprintf(stderr, "hidposread: the descriptor has no %s usage in an output report\n", what); return -1; }
    int length = report_bytes(1, f->report_id);
    memset(report, 0, (size_t)length);
    if (has_report_ids) report[0] = (unsigned char)f->report_id;
    report[f->bit / 8] |= (unsigned char)(1 << (f->bit % 8));
    return length;
}

static void describe(void) {
    const struct field *data0 = find(0, POS_PAGE, 0xFE, 0);
    if (!data0) return;
    int n = 0;
    while (find(0, POS_PAGE, 0xFE, n)) n++;
    const struct field *count = find(0, DESKTOP_PAGE, 0x3B, 0), *more = find(0, POS_PAGE, 0xFF, 0), *sym = find(0, POS_PAGE, 0xFB, 0);
    fprintf(stderr, "layout: input report %d of %d bytes: byte count at bit %d, symbology identifier at bit %d, %d decoded data bytes from bit %d, continued at bit %d\n",
            data0->report_id, report_bytes(0, data0->report_id), count ? count->bit : -1, sym ? sym->bit : -1, n, data0->bit, more ? more->bit : -1);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_scanner(const char *device, double deadline, char *path, size_t pathlen) {
    for (;;) {
        for (int n = 0; n < 32; n++) {
            if (device) snprintf(path, pathlen, "%s", device);
            else snprintf(path, pathlen, "/dev/hidraw%d", n);
            int fd = open(path, O_RDWR | O_CLOEXEC);
            if (fd >= 0) {
                struct hidraw_report_descriptor desc = {0};
                int size = 0;
                field_count = has_report_ids = is_scanner = 0;
                if (ioctl(fd, HIDIOCGRDESCSIZE, &size) == 0 && size > 0 && size <= HID_MAX_DESCRIPTOR_SIZE) {
                    desc.size = (unsigned)size;
                    if (ioctl(fd, HIDIOCGRDESC, &desc) == 0 && parse(desc.value, size) == 0 && is_scanner) return fd;
                }
                close(fd);
            }
            if (device) break;
        }
        if (now() >= deadline) return -1;
        usleep(100000);
    }
}

int main(int argc, char **argv) {
    double timeout = 10;
    int want = 1;
    const char *device = NULL, *descriptor = NULL, *send = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout = atof(argv[++i]);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) want = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--descriptor") && i + 1 < argc) descriptor = argv[++i];
        else if (!strcmp(argv[i], "--send") && i + 1 < argc) send = argv[++i];
        else if (!strcmp(argv[i], "--stamp")) stamp = 1;
        else if (argv[i][0] != '-' && !device) device = argv[i];
        else { fprintf(stderr, "usage: hidposread [--timeout SEC] [--count N] [--send prevent|initiate] [DEVICE | --descriptor FILE]\n"); return 2; }
    }
    if (send && strcmp(send, "prevent") && strcmp(send, "initiate")) { fprintf(stderr, "hidposread: --send prevent or initiate\n"); return 2; }
    unsigned char report[4096];
    if (descriptor) {
        FILE *file = fopen(descriptor, "rb");
        if (!file) { perror(descriptor); return 2; }
        static unsigned char desc[4096];
        int length = (int)fread(desc, 1, sizeof desc, file);
        fclose(file);
        if (parse(desc, length) != 0 || !is_scanner) { fprintf(stderr, "hidposread: %s is not a bar code scanner's descriptor\n", descriptor); return 2; }
        describe();
        if (send) {
            int n = output_report(send, report);
            if (n < 0) return 2;
            for (int i = 0; i < n; i++) printf("%02x", report[i]);
            putchar('\n');
            return 0;
        }
        const struct field *data0 = find(0, POS_PAGE, 0xFE, 0);
        if (!data0) return 2;
        int size = report_bytes(0, data0->report_id), codes = 0;
        while (fread(report, 1, (size_t)size, stdin) == (size_t)size) codes += take(report, size);
        return codes >= want ? 0 : 1;
    }
    double deadline = now() + timeout;
    char path[64];
    int fd = open_scanner(device, deadline, path, sizeof path);
    if (fd < 0) { fprintf(stderr, "hidposread: no bar code scanner hidraw within %.0fs\n", timeout); return 1; }
    fprintf(stderr, "hidposread: reading %s\n", path);
    describe();
    if (send) {
        int n = output_report(send, report);
        if (n < 0) return 2;
        if (write(fd, report, (size_t)n) != n) { fprintf(stderr, "hidposread: write %s: %s\n", path, strerror(errno)); return 1; }
        return 0;
    }
    int codes = 0;
    while (codes < want && now() < deadline) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int ready = poll(&p, 1, (int)((deadline - now()) * 1000) + 1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) break;
        ssize_t n = read(fd, report, sizeof report);
        if (n < 0) { if (errno == EINTR || errno == EAGAIN) continue; fprintf(stderr, "hidposread: %s: %s\n", path, strerror(errno)); return 1; }
        codes += take(report, (int)n);
    }
    return codes >= want ? 0 : 1;
}
