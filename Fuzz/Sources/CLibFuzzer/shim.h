// libFuzzer's driver as a function (compiler-rt's FuzzerInterface.h; in libclang_rt.fuzzer, which
// -sanitize=fuzzer links): the fuzz targets have a main of their own, as SwiftPM's executables must.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));
