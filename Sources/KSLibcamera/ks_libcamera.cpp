// libkiosk-scanner-libcamera.so: the libcamera source's C table (Sources/CLibcameraAPI) over
// libcamera's C++ API. The daemon loads it with dlopen only when camera.device names libcamera.
//
// Built and tested against Debian 12's libcamera 0.0.3. What differs in the newer libcamera that
// Raspberry Pi OS ships is kept behind LIBCAMERA_VERSION checks in this file only.
//
// One open camera is one CameraManager (libcamera allows one per process at a time), one stream
// and a ring of requests. libcamera completes requests on its own thread; they wait in `done_`
// until next() takes the newest and gives the older ones straight back, as the V4L2 source does
// with its buffers. Each buffer's first plane is mapped once, so luma from NV12 or YUV420 goes to
// the decoder without a copy.
#include "ks_libcamera.h"

#include <libcamera/libcamera.h>
#include <libcamera/version.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <memory>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace libcamera;

#define KS_LIBCAMERA_AT_LEAST(major, minor)                                                       \
    (LIBCAMERA_VERSION_MAJOR > (major) || (LIBCAMERA_VERSION_MAJOR == (major) && LIBCAMERA_VERSION_MINOR >= (minor)))

namespace {

void say(char *message, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));
void say(char *message, size_t size, const char *format, ...) {
    if (!message || size == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, size, format, arguments);
    va_end(arguments);
}

// libcamera names formats by DRM fourcc; we hand out V4L2's, which differ only for 8-bit grey.
uint32_t v4l2Fourcc(const PixelFormat &format) {
    if (format == formats::R8) return 'G' | 'R' << 8 | 'E' << 16 | 'Y' << 24;
    return format.fourcc();
}

std::string fourccName(uint32_t fourcc) {
    std::string name;
    for (int i = 0; i < 4; i++) name += static_cast<char>((fourcc >> (8 * i)) & 0xff);
    return name;
}

// Luma first and whole, then packed YUV, and JPEG only when nothing else is offered: the order
// of Sources/Capture/PixelFormat.swift.
const PixelFormat preferred[] = {formats::R8, formats::NV12, formats::NV21, formats::YUV420, formats::YVU420,
                                 formats::YUYV, formats::UYVY, formats::MJPEG};

// When no camera shows up, a media node we may not open is the likely reason.
std::string forbiddenMediaNode() {
    DIR *dev = opendir("/dev");
    if (!dev) return "";
    std::string found;
    while (dirent *entry = readdir(dev)) {
        if (strncmp(entry->d_name, "media", 5) != 0) continue;
        std::string path = std::string("/dev/") + entry->d_name;
        if (access(path.c_str(), R_OK | W_OK) != 0 && errno == EACCES) {
            found = path;
            break;
        }
    }
    closedir(dev);
    return found;
}

}  // namespace

struct ks_lc_camera {
    std::unique_ptr<CameraManager> manager;
    std::shared_ptr<Camera> camera;
    std::unique_ptr<CameraConfiguration> configuration;
    std::unique_ptr<FrameBufferAllocator> allocator;
    Stream *stream = nullptr;
    std::vector<std::unique_ptr<Request>> requests;
    struct Mapping {
        void *base;
        size_t length;
        const uint8_t *plane;
        size_t planeLength;
    };
    std::vector<Mapping> mappings;  // by buffer cookie
    bool acquired = false, started = false;
    std::string id, description, notes;
    uint32_t fourcc = 0;
    int width = 0, height = 0, stride = 0;

    std::mutex mutex;
    std::condition_variable changed;
    std::vector<Request *> done;  // completed, oldest first
    bool removed = false;
    int inFlight = 0;  // queued and not yet completed
    Request *held = nullptr;

    void requestCompleted(Request *request) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            done.push_back(request);
            inFlight--;
        }
        changed.notify_one();
    }

    void cameraRemoved(std::shared_ptr<Camera> gone) {
        if (gone != camera) return;
        disconnected();
    }

    void disconnected() {
        {
            std::lock_guard<std::mutex> lock(mutex);
            removed = true;
        }
        changed.notify_one();
    }

    // Gives a request back to the camera; false once it is gone.
    bool requeue(Request *request) {
        request->reuse(Request::ReuseBuffers);
        return queue(request);
    }

    bool queue(Request *request) {
        {
            std::lock_guard<std::mutex> lock(mutex);
            inFlight++;
        }
        if (camera->queueRequest(request) == 0) return true;
        std::lock_guard<std::mutex> lock(mutex);
        inFlight--;
        return false;
    }

    void note(const std::string &line) { notes += line + "\n"; }

    ~ks_lc_camera() {
        if (started) {
            // libcamera 0.0.3 aborts the process ("Trying to complete a request when stopped")
            // when a request queued just before stop() reaches the pipeline after it, which an
            // unplug makes likely. Nothing is queued any more: let what is out come back first
            // (frames or cancellations, within a few frame times; a silent camera gets a second).
            std::unique_lock<std::mutex> lock(mutex);
            changed.wait_for(lock, std::chrono::seconds(1), [this] { return inFlight <= 0; });
            lock.unlock();
            camera->stop();
        }
        if (camera) {
            camera->requestCompleted.disconnect(this);
            camera->disconnected.disconnect(this);
        }
        requests.clear();
        for (auto &mapping : mappings)
            if (mapping.base != MAP_FAILED) munmap(mapping.base, mapping.length);
        if (allocator && stream) allocator->free(stream);
        allocator.reset();
        if (acquired) camera->release();
        camera.reset();
        if (manager) {
            manager->cameraRemoved.disconnect(this);
            manager->stop();
        }
    }
};

namespace {

// The camera's controls that open sets from the settings, and in which requests.
struct Plan {
    ControlList persistent;  // in start() and every first request
    ControlList once;        // only the first request (AfTrigger)
};

const ControlId *controlNamed(const ControlInfoMap &infos, const std::string &name, const ControlInfo **info) {
    for (const auto &entry : infos) {
        if (entry.first->name() == name) {
            *info = &entry.second;
            return entry.first;
        }
    }
    return nullptr;
}

// Whether a control takes a list. From 0.4 its id says so; before, only a default that is a
// list does, and some array controls have none (the Raspberry Pi's ColourGains).
bool takesArray(const ControlId *id, const ControlInfo &info) {
#if KS_LIBCAMERA_AT_LEAST(0, 4)
    if (id->isArray()) return true;
#else
    (void)id;
#endif
    return info.def().isArray();
}

// A number from the config as the control's own type.
bool valueFor(const ControlId *id, double value, ControlValue *out) {
    switch (id->type()) {
    case ControlTypeBool: *out = ControlValue(value != 0); return true;
    case ControlTypeByte: *out = ControlValue(static_cast<uint8_t>(std::lround(value))); return true;
    case ControlTypeInteger32: *out = ControlValue(static_cast<int32_t>(std::lround(value))); return true;
    case ControlTypeInteger64: *out = ControlValue(static_cast<int64_t>(std::llround(value))); return true;
    case ControlTypeFloat: *out = ControlValue(static_cast<float>(value)); return true;
    default: return false;
    }
}

void planControls(ks_lc_camera *c, const ks_lc_settings *settings, Plan *plan) {
    const ControlInfoMap &infos = c->camera->controls();
    std::string available;
    for (const auto &entry : infos) available += (available.empty() ? "" : ",") + entry.first->name();
    for (int i = 0; i < settings->ncontrols; i++) {
        const ks_lc_control &wanted = settings->controls[i];
        const ControlInfo *info = nullptr;
        const ControlId *id = controlNamed(infos, wanted.name, &info);
        ControlValue value;
        if (!id) {
            c->note(std::string("camera has no control '") + wanted.name + "'; ignored (available: " + available + ")");
        } else if (takesArray(id, *info) || !valueFor(id, wanted.value, &value)) {
            c->note(std::string("control '") + wanted.name + "' is not a single number; ignored");
        } else {
            plan->persistent.set(id->id(), value);
        }
    }

    bool hasAf = infos.find(controls::AfMode.id()) != infos.end();
    bool hasLens = infos.find(controls::LensPosition.id()) != infos.end();
    switch (settings->autofocus) {
    case KS_LC_AF_CONTINUOUS:
        if (hasAf) plan->persistent.set(controls::AfMode.id(), ControlValue(int32_t(controls::AfModeContinuous)));
        break;
    case KS_LC_AF_AUTO:
        if (hasAf) {
            plan->persistent.set(controls::AfMode.id(), ControlValue(int32_t(controls::AfModeAuto)));
            plan->once.set(controls::AfTrigger.id(), ControlValue(int32_t(controls::AfTriggerStart)));
        } else {
            c->note("autofocus: auto asked, but the camera has no autofocus (no AfMode control)");
        }
        break;
    case KS_LC_AF_MANUAL:
        if (hasAf) plan->persistent.set(controls::AfMode.id(), ControlValue(int32_t(controls::AfModeManual)));
        if (settings->lens_position >= 0) {
            if (hasLens)
                plan->persistent.set(controls::LensPosition.id(), ControlValue(static_cast<float>(settings->lens_position)));
            else
                c->note("lens_position: the camera has no movable lens (no LensPosition control)");
        }
        break;
    default: break;
    }

    // The frame rate, where the pipeline takes it (the UVC pipeline of 0.0.3 does not).
    if (settings->fps > 0 && infos.find(controls::FrameDurationLimits.id()) != infos.end()) {
        int64_t frame = 1000000 / settings->fps;
        int64_t limits[2] = {frame, frame};
        plan->persistent.set(controls::FrameDurationLimits.id(), ControlValue(Span<const int64_t, 2>(limits)));
    }
}

int openFailure(int errorNumber) {
    switch (-errorNumber) {
    case EBUSY: return KS_LC_BUSY;
    case EACCES:
    case EPERM: return KS_LC_DENIED;
    case ENODEV:
    case ENOENT: return KS_LC_NO_CAMERA;
    default: return KS_LC_FAILED;
    }
}

ks_lc_camera *fail(ks_lc_camera *c, int *result, int code) {
    *result = code;
    delete c;
    return nullptr;
}

ks_lc_camera *openCamera(const ks_lc_settings *settings, int *result, char *message, size_t size) {
    auto *c = new ks_lc_camera();
    c->manager = std::make_unique<CameraManager>();
    if (int error = c->manager->start(); error < 0) {
        say(message, size, "libcamera could not start: %s", strerror(-error));
        c->manager.reset();
        return fail(c, result, KS_LC_FAILED);
    }
    c->manager->cameraRemoved.connect(c, &ks_lc_camera::cameraRemoved);
    std::vector<std::shared_ptr<Camera>> cameras = c->manager->cameras();
    std::string wanted = settings->camera_id ? settings->camera_id : "";
    if (wanted.empty()) {
        if (!cameras.empty()) c->camera = cameras.front();
    } else {
        c->camera = c->manager->get(wanted);
    }
    if (!c->camera) {
        std::string forbidden = forbiddenMediaNode();
        if (!forbidden.empty()) {
            say(message, size, "no permission to open %s; add the daemon's user to the 'video' group", forbidden.c_str());
            return fail(c, result, KS_LC_DENIED);
        }
        std::string seen;
        for (auto &camera : cameras) seen += (seen.empty() ? "" : ", ") + camera->id();
        if (wanted.empty())
            say(message, size, "libcamera finds no camera: is one connected (and its driver loaded)?");
        else
            say(message, size, "libcamera has no camera '%s' (it has: %s)", wanted.c_str(), seen.empty() ? "none" : seen.c_str());
        return fail(c, result, KS_LC_NO_CAMERA);
    }
    c->id = c->camera->id();
    if (int error = c->camera->acquire(); error < 0) {
        say(message, size, "camera %s is in use by another process (acquire: %s)", c->id.c_str(), strerror(-error));
        return fail(c, result, error == -EBUSY ? KS_LC_BUSY : openFailure(error));
    }
    c->acquired = true;
    c->camera->disconnected.connect(c, &ks_lc_camera::disconnected);

    c->configuration = c->camera->generateConfiguration({StreamRole::Viewfinder});
    if (!c->configuration || c->configuration->size() != 1) {
        say(message, size, "camera %s gives no viewfinder stream", c->id.c_str());
        return fail(c, result, KS_LC_UNSUPPORTED);
    }
    StreamConfiguration &stream = c->configuration->at(0);
    std::vector<PixelFormat> offered = stream.formats().pixelformats();
    PixelFormat chosen;
    for (const PixelFormat &format : preferred) {
        for (const PixelFormat &candidate : offered)
            if (candidate == format) {
                chosen = format;
                break;
            }
        if (chosen.isValid()) break;
    }
    if (!chosen.isValid()) {
        std::string names;
        for (const PixelFormat &format : offered) names += (names.empty() ? "" : ", ") + format.toString();
        say(message, size, "camera %s offers no format we read (offers: %s)", c->id.c_str(), names.c_str());
        return fail(c, result, KS_LC_UNSUPPORTED);
    }
    stream.pixelFormat = chosen;
    stream.size = Size(settings->width, settings->height);
    if (stream.bufferCount < 4) stream.bufferCount = 4;
    if (c->configuration->validate() == CameraConfiguration::Invalid) {
        say(message, size, "camera %s refuses %s %dx%d", c->id.c_str(), chosen.toString().c_str(), settings->width, settings->height);
        return fail(c, result, KS_LC_UNSUPPORTED);
    }
    if (int error = c->camera->configure(c->configuration.get()); error < 0) {
        say(message, size, "camera %s: configure failed: %s", c->id.c_str(), strerror(-error));
        return fail(c, result, openFailure(error));
    }
    c->stream = stream.stream();
    c->fourcc = v4l2Fourcc(stream.pixelFormat);
    c->width = static_cast<int>(stream.size.width);
    c->height = static_cast<int>(stream.size.height);
    c->stride = static_cast<int>(stream.stride);
    c->description = fourccName(c->fourcc) + " " + std::to_string(c->width) + "x" + std::to_string(c->height);

    c->allocator = std::make_unique<FrameBufferAllocator>(c->camera);
    if (int error = c->allocator->allocate(c->stream); error < 0) {
        say(message, size, "camera %s: no buffers: %s", c->id.c_str(), strerror(-error));
        return fail(c, result, openFailure(error));
    }
    Plan plan{ControlList(c->camera->controls()), ControlList(c->camera->controls())};
    planControls(c, settings, &plan);
    const auto &buffers = c->allocator->buffers(c->stream);
    for (size_t index = 0; index < buffers.size(); index++) {
        FrameBuffer *buffer = buffers[index].get();
        buffer->setCookie(index);
        const FrameBuffer::Plane &plane = buffer->planes().front();
        size_t length = plane.offset + plane.length;
        void *base = mmap(nullptr, length, PROT_READ, MAP_SHARED, plane.fd.get(), 0);
        c->mappings.push_back({base, length, base == MAP_FAILED ? nullptr : static_cast<uint8_t *>(base) + plane.offset, plane.length});
        if (base == MAP_FAILED) {
            say(message, size, "camera %s: cannot map buffer %zu: %s", c->id.c_str(), index, strerror(errno));
            return fail(c, result, KS_LC_FAILED);
        }
        std::unique_ptr<Request> request = c->camera->createRequest(index);
        if (!request || request->addBuffer(c->stream, buffer) < 0) {
            say(message, size, "camera %s: cannot make request %zu", c->id.c_str(), index);
            return fail(c, result, KS_LC_FAILED);
        }
        // The settings ride on every first request: pipelines that ignore start()'s list (the
        // UVC one does) apply a request's controls as it is queued.
        request->controls().merge(plan.persistent);
        if (index == 0) request->controls().merge(plan.once);
        c->requests.push_back(std::move(request));
    }
    c->camera->requestCompleted.connect(c, &ks_lc_camera::requestCompleted);
    if (int error = c->camera->start(&plan.persistent); error < 0) {
        say(message, size, "camera %s: start failed: %s", c->id.c_str(), strerror(-error));
        return fail(c, result, openFailure(error));
    }
    c->started = true;
    for (auto &request : c->requests) {
        if (!c->queue(request.get())) {
            say(message, size, "camera %s: queueing a request failed", c->id.c_str());
            return fail(c, result, KS_LC_FAILED);
        }
    }
    *result = KS_LC_OK;
    return c;
}

int nextFrame(ks_lc_camera *c, int timeout, ks_lc_frame *frame, char *message, size_t size) {
    bool gone;
    {
        std::lock_guard<std::mutex> lock(c->mutex);
        gone = c->removed;
    }
    if (c->held && !gone) {
        Request *request = c->held;
        c->held = nullptr;
        if (!c->requeue(request)) c->disconnected();
    }
    std::vector<Request *> ready;
    {
        std::unique_lock<std::mutex> lock(c->mutex);
        c->changed.wait_for(lock, std::chrono::milliseconds(timeout), [c] { return c->removed || !c->done.empty(); });
        if (c->removed) {
            say(message, size, "camera %s was disconnected", c->id.c_str());
            return KS_LC_REMOVED;
        }
        ready.swap(c->done);
    }
    if (ready.empty()) return KS_LC_TIMEOUT;
    // Nothing stops the camera while frames are asked for: a cancelled request means the device
    // refused its buffer, as an unplugged one does, whether or not udev tells libcamera (it cannot
    // under the shipped unit, which allows only UNIX sockets). Nothing is queued again then.
    for (Request *request : ready) {
        if (request->status() != Request::RequestCancelled) continue;
        say(message, size, "camera %s stopped taking requests (unplugged?)", c->id.c_str());
        std::lock_guard<std::mutex> lock(c->mutex);
        c->removed = true;
        return KS_LC_REMOVED;
    }
    Request *newest = ready.back();
    for (size_t i = 0; i + 1 < ready.size(); i++) c->requeue(ready[i]);
    frame->skipped = static_cast<int>(ready.size()) - 1;
    FrameBuffer *buffer = newest->findBuffer(c->stream);
    if (!buffer || buffer->metadata().status != FrameMetadata::FrameSuccess) {
        c->requeue(newest);  // a frame the driver lost: the next one will do
        return KS_LC_TIMEOUT;
    }
    const auto &mapping = c->mappings[buffer->cookie()];
    const FrameMetadata &metadata = buffer->metadata();
    frame->data = mapping.plane;
    frame->length = mapping.planeLength;
    frame->used = metadata.planes().empty() ? mapping.planeLength : metadata.planes()[0].bytesused;
    frame->fourcc = c->fourcc;
    frame->width = c->width;
    frame->height = c->height;
    frame->stride = c->stride;
    frame->timestamp_ns = metadata.timestamp;
    frame->sequence = metadata.sequence;
    c->held = newest;
    return KS_LC_OK;
}

const ks_lc_api api = {
    KS_LC_ABI,
    nullptr,
    openCamera,
    nextFrame,
    [](ks_lc_camera *c) { return c->id.c_str(); },
    [](ks_lc_camera *c) { return c->description.c_str(); },
    [](ks_lc_camera *c) { return c->notes.c_str(); },
    [](ks_lc_camera *c) { delete c; },
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ks_lc_api *ks_libcamera_api(void) {
    static ks_lc_api table = [] {
        // libcamera logs every INFO line to stderr, the journal, in colour. Warnings are enough,
        // unless the admin sets LIBCAMERA_LOG_LEVELS in the unit; but not the IPA manager's about
        // a missing IPA directory, which a UVC camera never needs and which a retry every second
        // while no camera is plugged would repeat. Before 0.5 the first matching pattern wins, from
        // 0.5 every match applies in turn so the last wins: IPAManager goes first, then last.
#if KS_LIBCAMERA_AT_LEAST(0, 5)
        setenv("LIBCAMERA_LOG_LEVELS", "*:WARN,IPAManager:ERROR", 0);
#else
        setenv("LIBCAMERA_LOG_LEVELS", "IPAManager:ERROR,*:WARN", 0);
#endif
        // 0.7 replaced LIBCAMERA_LOG_NO_COLOR with LIBCAMERA_LOG_COLOR (yes, no, auto).
#if KS_LIBCAMERA_AT_LEAST(0, 7)
        setenv("LIBCAMERA_LOG_COLOR", "no", 0);
#else
        setenv("LIBCAMERA_LOG_NO_COLOR", "1", 0);
#endif
        ks_lc_api copy = api;
        copy.version = CameraManager::version().c_str();
        return copy;
    }();
    return &table;
}
