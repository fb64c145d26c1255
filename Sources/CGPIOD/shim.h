// libgpiod, 1.6 (Debian 12, Raspberry Pi OS bookworm) or 2.x (Debian 13, trixie): whichever
// pkg-config finds. CGPIOLines gives both the same small interface.
#include <gpiod.h>
