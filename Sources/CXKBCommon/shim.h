// Thin shim over libxkbcommon: the keymap compiler and the compose tables, as they are.
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-compose.h>
