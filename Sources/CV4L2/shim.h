// Thin shim over libv4l2 and the V4L2 UAPI: what Swift cannot import as it is.
// The ioctl numbers and fourccs are macros built from _IOWR() and v4l2_fourcc(), and
// v4l2_open()/v4l2_ioctl() are variadic, so they are re-exposed here. No logic lives here.
#include <fcntl.h>
#include <linux/videodev2.h>
#include <libv4l2.h>
#include <sys/mman.h>

static inline int ks_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int ks_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }

static const unsigned long KS_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long KS_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long KS_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long KS_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long KS_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long KS_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long KS_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long KS_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long KS_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long KS_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long KS_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
static const unsigned long KS_VIDIOC_S_CTRL = VIDIOC_S_CTRL;

static const unsigned int KS_PIX_FMT_GREY = V4L2_PIX_FMT_GREY;
static const unsigned int KS_PIX_FMT_NV12 = V4L2_PIX_FMT_NV12;
static const unsigned int KS_PIX_FMT_NV21 = V4L2_PIX_FMT_NV21;
static const unsigned int KS_PIX_FMT_NV16 = V4L2_PIX_FMT_NV16;
static const unsigned int KS_PIX_FMT_YUV420 = V4L2_PIX_FMT_YUV420;
static const unsigned int KS_PIX_FMT_YVU420 = V4L2_PIX_FMT_YVU420;
static const unsigned int KS_PIX_FMT_YUV422P = V4L2_PIX_FMT_YUV422P;
static const unsigned int KS_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
static const unsigned int KS_PIX_FMT_UYVY = V4L2_PIX_FMT_UYVY;
static const unsigned int KS_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
static const unsigned int KS_PIX_FMT_JPEG = V4L2_PIX_FMT_JPEG;
