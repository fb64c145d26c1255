/* The descriptive ioctls of the emulated camera: capabilities, formats, sizes, frame rates,
 * inputs and controls. Streaming ioctls live in v4l2emu.c. Unknown requests answer EINVAL (and are
 * logged), as a driver without that feature does. */
#define _GNU_SOURCE
#include "emu.h"

#include <errno.h>
#include <linux/videodev2.h>
#include <stdio.h>
#include <string.h>

struct handle;
int ksemu_stream_ioctl(struct handle *h, unsigned long request, void *argument);
void ksemu_current_format(struct handle *h, struct v4l2_format *format);
const struct ksemu_scene *ksemu_scene(void);
int32_t *ksemu_controls(struct handle *h);

static const struct { uint32_t id; const char *name; int32_t min, max, fallback; } controls[KSEMU_CONTROLS] = {
    {V4L2_CID_BRIGHTNESS, "Brightness", 0, 255, 128},
    {V4L2_CID_GAIN, "Gain", 0, 100, 0},
    {V4L2_CID_EXPOSURE_ABSOLUTE, "Exposure Time, Absolute", 1, 5000, 156},
    {V4L2_CID_FOCUS_ABSOLUTE, "Focus, Absolute", 0, 255, 0},
    {V4L2_CID_FOCUS_AUTO, "Focus, Automatic Continuous", 0, 1, 1},
};

void ksemu_control_defaults(int32_t *values) {
    for (int i = 0; i < KSEMU_CONTROLS; i++) values[i] = controls[i].fallback;
}

static int control_index(uint32_t id) {
    for (int i = 0; i < KSEMU_CONTROLS; i++)
        if (controls[i].id == id) return i;
    return -1;
}

static int query_control(struct v4l2_queryctrl *query) {
    int index = -1;
    if (query->id & V4L2_CTRL_FLAG_NEXT_CTRL) {
        uint32_t after = query->id & ~(uint32_t)V4L2_CTRL_FLAG_NEXT_CTRL;
        for (int i = 0; i < KSEMU_CONTROLS; i++)
            if (controls[i].id > after && (index < 0 || controls[i].id < controls[index].id)) index = i;
    } else {
        index = control_index(query->id);
    }
    if (index < 0) return EINVAL;
    memset(query, 0, sizeof *query);
    query->id = controls[index].id;
    query->type = controls[index].id == V4L2_CID_FOCUS_AUTO ? V4L2_CTRL_TYPE_BOOLEAN : V4L2_CTRL_TYPE_INTEGER;
    snprintf((char *)query->name, sizeof query->name, "%s", controls[index].name);
    query->minimum = controls[index].min, query->maximum = controls[index].max;
    query->step = 1, query->default_value = controls[index].fallback;
    return 0;
}

int ksemu_ioctl(struct handle *h, unsigned long request, void *argument) {
    const struct ksemu_scene *scene = ksemu_scene();
    switch (request) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *cap = argument;
        memset(cap, 0, sizeof *cap);
        snprintf((char *)cap->driver, sizeof cap->driver, "ksemu");
        snprintf((char *)cap->card, sizeof cap->card, "Kiosk emulated camera");
        snprintf((char *)cap->bus_info, sizeof cap->bus_info, "emu:0");
        cap->version = 0x060100;
        cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        cap->capabilities = cap->device_caps | V4L2_CAP_DEVICE_CAPS;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *desc = argument;
        if (desc->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || desc->index >= (uint32_t)scene->nformats) return EINVAL;
        uint32_t index = desc->index, fourcc = scene->formats[index];
        memset(desc, 0, sizeof *desc);
        desc->index = index, desc->type = V4L2_BUF_TYPE_VIDEO_CAPTURE, desc->pixelformat = fourcc;
        desc->flags = fourcc == V4L2_PIX_FMT_MJPEG ? V4L2_FMT_FLAG_COMPRESSED : 0;
        for (int i = 0; i < scene->nemulated; i++)
            if (scene->emulated[i] == fourcc) desc->flags |= V4L2_FMT_FLAG_EMULATED;
        snprintf((char *)desc->description, sizeof desc->description, "%.4s", (const char *)&fourcc);
        return 0;
    }
    case VIDIOC_G_FMT: {
        struct v4l2_format *format = argument;
        if (format->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
        ksemu_current_format(h, format);
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *size = argument;
        if (size->index >= (uint32_t)scene->nsizes) return EINVAL;
        size->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        size->discrete.width = (uint32_t)scene->widths[size->index];
        size->discrete.height = (uint32_t)scene->heights[size->index];
        return 0;
    }
    case VIDIOC_ENUM_FRAMEINTERVALS: {
        struct v4l2_frmivalenum *interval = argument;
        if (interval->index > 0) return EINVAL;
        interval->type = V4L2_FRMIVAL_TYPE_DISCRETE;
        interval->discrete.numerator = 1, interval->discrete.denominator = (uint32_t)scene->fps;
        return 0;
    }
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM: {
        struct v4l2_streamparm *parm = argument;
        if (parm->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return EINVAL;
        memset(&parm->parm.capture, 0, sizeof parm->parm.capture);
        parm->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
        parm->parm.capture.timeperframe.numerator = 1;
        parm->parm.capture.timeperframe.denominator = (uint32_t)scene->fps;
        parm->parm.capture.readbuffers = 2;
        return 0;
    }
    case VIDIOC_ENUMINPUT: {
        struct v4l2_input *input = argument;
        if (input->index > 0) return EINVAL;
        memset(input, 0, sizeof *input);
        snprintf((char *)input->name, sizeof input->name, "Camera");
        input->type = V4L2_INPUT_TYPE_CAMERA;
        return 0;
    }
    case VIDIOC_G_INPUT: *(int *)argument = 0; return 0;
    case VIDIOC_S_INPUT: return *(int *)argument == 0 ? 0 : EINVAL;
    case VIDIOC_QUERYCTRL: return query_control(argument);
    case VIDIOC_G_CTRL:
    case VIDIOC_S_CTRL: {
        struct v4l2_control *control = argument;
        int index = control_index(control->id);
        if (index < 0) return EINVAL;
        if (request == VIDIOC_G_CTRL) {
            control->value = ksemu_controls(h)[index];
            return 0;
        }
        if (control->value < controls[index].min || control->value > controls[index].max) return ERANGE;
        /* As uvcvideo: the focus is the autofocus's while it is on (EACCES). */
        if (control->id == V4L2_CID_FOCUS_ABSOLUTE && ksemu_controls(h)[control_index(V4L2_CID_FOCUS_AUTO)]) {
            ksemu_log("ctrl-refused", "id=0x%x value=%d", control->id, control->value);
            return EACCES;
        }
        ksemu_controls(h)[index] = control->value;
        ksemu_log("ctrl", "id=0x%x value=%d", control->id, control->value);
        return 0;
    }
    default: {
        int result = ksemu_stream_ioctl(h, request, argument);
        if (result >= 0) return result;
        ksemu_log("ioctl-unsupported", "nr=0x%lx", request);
        return EINVAL;
    }
    }
}
