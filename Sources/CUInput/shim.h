// The uinput and input-event kernel interface (linux/uinput.h): its ioctl numbers are macros,
// given here as constants Swift can see.
#include <linux/input.h>
#include <linux/uinput.h>

static const unsigned long KS_UI_SET_EVBIT = UI_SET_EVBIT;
static const unsigned long KS_UI_SET_KEYBIT = UI_SET_KEYBIT;
static const unsigned long KS_UI_DEV_SETUP = UI_DEV_SETUP;
static const unsigned long KS_UI_DEV_CREATE = UI_DEV_CREATE;
static const unsigned long KS_UI_DEV_DESTROY = UI_DEV_DESTROY;
static const unsigned long KS_UI_GET_SYSNAME_64 = UI_GET_SYSNAME(64);
static const unsigned short KS_EV_SYN = EV_SYN;
static const unsigned short KS_EV_KEY = EV_KEY;
static const unsigned short KS_SYN_REPORT = SYN_REPORT;
static const unsigned short KS_BUS_VIRTUAL = BUS_VIRTUAL;
