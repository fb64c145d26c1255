/* libkiosk-scanner-libcamera.so exports only ks_libcamera_api(), declared in
 * Sources/CLibcameraAPI/ks_libcamera.h; the daemon reaches it through dlopen, never by linking. */
