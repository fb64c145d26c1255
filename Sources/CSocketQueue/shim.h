// The kernel's count of what a socket's peer has not read yet: ioctl(SIOCOUTQ), a macro from
// <linux/sockios.h> behind a variadic call, neither of which Swift imports.
#include <linux/sockios.h>
#include <sys/ioctl.h>

/// For a UNIX stream socket, the buffer space of the writes the peer has not read to their end
/// (each write its own buffer, freed once read whole); 0 when it has read everything. -1 and
/// errno on failure.
static inline int ks_socket_unread(int fd) {
    int unread = 0;
    return ioctl(fd, SIOCOUTQ, &unread) < 0 ? -1 : unread;
}
