/* The scene of the emulated camera: parsing the node file, loading images (PNG through libpng,
 * PGM P5), rendering luma and packing it into V4L2 pixel formats (MJPG through libturbojpeg). */
#define _GNU_SOURCE
#include "emu.h"

#include <linux/videodev2.h>
#include <fcntl.h>
#include <png.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <turbojpeg.h>
#include <unistd.h>

static pthread_mutex_t image_lock = PTHREAD_MUTEX_INITIALIZER;
static char cached_path[PATH_MAX];
static uint8_t *cached_pixels;
static int cached_width, cached_height;

uint64_t ksemu_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

void ksemu_log(const char *event, const char *format, ...) {
    const char *path = getenv("KSEMU_LOG");
    if (!path || !*path) return;
    char line[PATH_MAX + 256];
    int used = snprintf(line, sizeof line, "%s t=%llu ", event, (unsigned long long)ksemu_now_ns());
    va_list args;
    va_start(args, format);
    used += vsnprintf(line + used, sizeof line - (size_t)used, format, args);
    va_end(args);
    if (used < 0 || used >= (int)sizeof line - 1) used = (int)sizeof line - 2;
    line[used++] = '\n';
    /* A FIFO nobody reads any more (its benchmark died) would block open(2) for good, and the
     * producer would never see its app hang up: open without waiting (ENXIO: the line is lost), then
     * write blocking as before, so a slow reader still loses nothing. */
    int log = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
    if (log < 0) return;
    fcntl(log, F_SETFL, O_APPEND);
    ssize_t written = write(log, line, (size_t)used);
    (void)written;
    close(log);
}

static uint32_t fourcc_named(const char *name) {
    if (strlen(name) != 4) return 0;
    return v4l2_fourcc(name[0], name[1], name[2], name[3]);
}

static void scene_defaults(struct ksemu_scene *scene) {
    memset(scene, 0, sizeof *scene);
    scene->background = 255;
    scene->fps = 30;
    scene->autofocus = 1;
    scene->formats[0] = V4L2_PIX_FMT_GREY;
    scene->formats[1] = V4L2_PIX_FMT_YUYV;
    scene->nformats = 2;
    scene->widths[0] = 640, scene->heights[0] = 480;
    scene->widths[1] = 1280, scene->heights[1] = 720;
    scene->nsizes = 2;
}

/* A sequence pattern takes one index: exactly one conversion, %d with optional zero flag and width
 * (%05d); %% stands for itself. Anything else would make snprintf read an argument it is not given. */
static int valid_pattern(const char *pattern) {
    int conversions = 0;
    for (const char *p = pattern; *p; p++) {
        if (*p != '%') continue;
        if (*++p == '%') continue;
        while (*p >= '0' && *p <= '9') p++;
        if (*p != 'd') return 0;
        conversions++;
    }
    return conversions == 1;
}

static void parse_line(struct ksemu_scene *scene, char *key, char *value) {
    if (!strcmp(key, "frame")) {
        snprintf(scene->frame, sizeof scene->frame, "%s", value);
    } else if (!strcmp(key, "sequence")) {
        if (valid_pattern(value)) snprintf(scene->sequence, sizeof scene->sequence, "%s", value);
        else ksemu_log("sequence-invalid", "pattern=%s", value);
    } else if (!strcmp(key, "frames")) {
        scene->frames = atoi(value) > 0 ? atoi(value) : 0;
    } else if (!strcmp(key, "background")) {
        scene->background = atoi(value);
    } else if (!strcmp(key, "noise")) {
        scene->noise = atoi(value);
    } else if (!strcmp(key, "stall")) {
        scene->stall = atoi(value);
    } else if (!strcmp(key, "autofocus")) {
        scene->autofocus = atoi(value);
    } else if (!strcmp(key, "fps")) {
        scene->fps = atoi(value) > 0 ? atoi(value) : 30;
    } else if (!strcmp(key, "open")) {
        scene->open = !strcmp(value, "busy") ? OPEN_BUSY : !strcmp(value, "denied") ? OPEN_DENIED
                    : !strcmp(value, "missing") ? OPEN_MISSING : OPEN_OK;
    } else if (!strcmp(key, "formats")) {
        scene->nformats = 0;
        for (char *name = strtok(value, ","); name && scene->nformats < KSEMU_MAX_FORMATS; name = strtok(NULL, ","))
            if (fourcc_named(name)) scene->formats[scene->nformats++] = fourcc_named(name);
    } else if (!strcmp(key, "emulated")) {
        scene->nemulated = 0;
        for (char *name = strtok(value, ","); name && scene->nemulated < KSEMU_MAX_FORMATS; name = strtok(NULL, ","))
            if (fourcc_named(name)) scene->emulated[scene->nemulated++] = fourcc_named(name);
    } else if (!strcmp(key, "sizes")) {
        scene->nsizes = 0;
        for (char *size = strtok(value, ","); size && scene->nsizes < KSEMU_MAX_SIZES; size = strtok(NULL, ","))
            if (sscanf(size, "%dx%d", &scene->widths[scene->nsizes], &scene->heights[scene->nsizes]) == 2) scene->nsizes++;
    }
}

int ksemu_scene_refresh(const char *node, struct ksemu_scene *scene) {
    static struct stat last;
    static int loaded;
    struct stat now;
    if (stat(node, &now) != 0) return -1;
    if (loaded && now.st_ino == last.st_ino && now.st_mtim.tv_nsec == last.st_mtim.tv_nsec &&
        now.st_mtim.tv_sec == last.st_mtim.tv_sec && now.st_size == last.st_size)
        return 0;
    FILE *file = fopen(node, "re");
    if (!file) return -1;
    struct ksemu_scene fresh;
    scene_defaults(&fresh);
    char line[PATH_MAX + 64];
    while (fgets(line, sizeof line, file)) {
        line[strcspn(line, "\r\n")] = 0;
        char *equals = strchr(line, '=');
        if (!equals) continue;
        *equals = 0;
        parse_line(&fresh, line, equals + 1);
    }
    fclose(file);
    fresh.generation = scene->generation + 1;
    *scene = fresh;
    last = now;
    loaded = 1;
    return 0;
}

static uint8_t *load_pgm(const char *path, int *width, int *height) {
    FILE *file = fopen(path, "re");
    if (!file) return NULL;
    int maxval = 0;
    uint8_t *pixels = NULL;
    if (fscanf(file, "P5 %d %d %d", width, height, &maxval) == 3 && maxval == 255 && fgetc(file) != EOF &&
        *width > 0 && *height > 0 && *width <= 8192 && *height <= 8192) {
        pixels = malloc((size_t)*width * (size_t)*height);
        if (pixels && fread(pixels, 1, (size_t)*width * (size_t)*height, file) != (size_t)*width * (size_t)*height) {
            free(pixels);
            pixels = NULL;
        }
    }
    fclose(file);
    return pixels;
}

static uint8_t *load_png(const char *path, int *width, int *height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) return NULL;
    image.format = PNG_FORMAT_GRAY;
    uint8_t *pixels = malloc(PNG_IMAGE_SIZE(image));
    if (!pixels || !png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        free(pixels);
        png_image_free(&image);
        return NULL;
    }
    *width = (int)image.width, *height = (int)image.height;
    return pixels;
}

/* The image named by the scene, decoded once per path. Call with image_lock held. */
static const uint8_t *scene_image(const char *path, int *width, int *height) {
    if (!*path) return NULL;
    if (strcmp(path, cached_path) != 0) {
        free(cached_pixels);
        size_t length = strlen(path);
        cached_pixels = length > 4 && !strcmp(path + length - 4, ".pgm") ? load_pgm(path, &cached_width, &cached_height)
                                                                          : load_png(path, &cached_width, &cached_height);
        snprintf(cached_path, sizeof cached_path, "%s", path);
        if (!cached_pixels) ksemu_log("image-failed", "path=%s", path);
    }
    *width = cached_width, *height = cached_height;
    return cached_pixels;
}

static uint64_t next_random(uint64_t *state) {
    *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
    return *state;
}

void ksemu_render_luma(const struct ksemu_scene *scene, uint8_t *luma, int width, int height, uint64_t *rng) {
    memset(luma, scene->background, (size_t)width * (size_t)height);
    pthread_mutex_lock(&image_lock);
    int iw = 0, ih = 0;
    const uint8_t *image = scene_image(scene->frame, &iw, &ih);
    if (image) {
        int left = (width - iw) / 2, top = (height - ih) / 2;
        for (int y = 0; y < ih; y++) {
            int fy = top + y;
            if (fy < 0 || fy >= height) continue;
            for (int x = 0; x < iw; x++) {
                int fx = left + x;
                if (fx >= 0 && fx < width) luma[(size_t)fy * (size_t)width + (size_t)fx] = image[(size_t)y * (size_t)iw + (size_t)x];
            }
        }
    }
    pthread_mutex_unlock(&image_lock);
    if (scene->noise > 0) {
        int span = 2 * scene->noise + 1;
        for (size_t i = 0; i < (size_t)width * (size_t)height; i++) {
            int value = luma[i] + (int)(next_random(rng) % (uint64_t)span) - scene->noise;
            luma[i] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
        }
    }
}

void ksemu_geometry(uint32_t fourcc, int width, int height, uint32_t *bytesperline, uint32_t *sizeimage) {
    size_t w = (size_t)width, h = (size_t)height;
    switch (fourcc) {
    case V4L2_PIX_FMT_YUYV:
    case V4L2_PIX_FMT_UYVY: *bytesperline = (uint32_t)(2 * w), *sizeimage = (uint32_t)(2 * w * h); break;
    case V4L2_PIX_FMT_NV12:
    case V4L2_PIX_FMT_YUV420: *bytesperline = (uint32_t)w, *sizeimage = (uint32_t)(w * h * 3 / 2); break;
    case V4L2_PIX_FMT_MJPEG: *bytesperline = 0, *sizeimage = (uint32_t)(w * h + 65536); break;
    default: *bytesperline = (uint32_t)w, *sizeimage = (uint32_t)(w * h); break;
    }
}

size_t ksemu_pack(uint32_t fourcc, const uint8_t *luma, int width, int height, uint8_t *out, size_t capacity) {
    size_t w = (size_t)width, h = (size_t)height, pixels = w * h;
    switch (fourcc) {
    case V4L2_PIX_FMT_YUYV:
    case V4L2_PIX_FMT_UYVY: {
        int luma_first = fourcc == V4L2_PIX_FMT_YUYV;
        for (size_t i = 0; i < pixels; i++) {
            out[2 * i + (luma_first ? 0 : 1)] = luma[i];
            out[2 * i + (luma_first ? 1 : 0)] = 128;
        }
        return 2 * pixels;
    }
    case V4L2_PIX_FMT_NV12:
    case V4L2_PIX_FMT_YUV420:
        memcpy(out, luma, pixels);
        memset(out + pixels, 128, pixels / 2);
        return pixels * 3 / 2;
    case V4L2_PIX_FMT_MJPEG: {
        tjhandle handle = tjInitCompress();
        unsigned char *target = out;
        unsigned long size = capacity;
        int failed = tjCompress2(handle, luma, width, width, height, TJPF_GRAY, &target, &size, TJSAMP_GRAY, 90, TJFLAG_NOREALLOC);
        tjDestroy(handle);
        return failed ? 0 : size;
    }
    default:
        memcpy(out, luma, pixels);
        return pixels;
    }
}
