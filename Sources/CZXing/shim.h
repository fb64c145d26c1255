/* zxing-cpp 3's own C API (ZXingC.h), built by scripts/zxing-cpp. Nothing added. */
#include <ZXing/ZXingC.h>
