// Marks a descriptor close-on-exec. Asio opens sockets without SOCK_CLOEXEC; every descriptor hvdrun and the
// agent hold must stay out of the processes they start (a listening socket in a child outlives the launcher).
#pragma once

#include <fcntl.h>

namespace hvd {

inline void set_cloexec(int fd) {
  if (fd < 0) return;
  int flags = ::fcntl(fd, F_GETFD);
  if (flags >= 0 && !(flags & FD_CLOEXEC)) ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}

}  // namespace hvd
