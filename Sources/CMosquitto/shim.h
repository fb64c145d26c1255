// Thin shim over libmosquitto (the MQTT client library of the Eclipse Mosquitto broker): the
// header as it is, and nothing else.
#include <mosquitto.h>
