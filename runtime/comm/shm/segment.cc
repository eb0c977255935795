#include "runtime/comm/shm/segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "common/unique_fd.h"
#include "hvd/error.h"

namespace hvd::detail {
namespace {
std::byte* map(int fd, const std::string& name, std::size_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (p == MAP_FAILED) {
    throw Error(ErrorKind::kBackend,
                "cannot map shared memory " + name + " (" + std::to_string(bytes) + " bytes): " + std::strerror(errno));
  }
  return static_cast<std::byte*>(p);
}
}  // namespace

ShmSegment ShmSegment::create(const std::string& name, std::size_t bytes) {
  UniqueFd fd(::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd.valid())
    throw Error(ErrorKind::kBackend, "cannot create shared memory " + name + ": " + std::strerror(errno));
  if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) {
    int err = errno;
    ::shm_unlink(name.c_str());
    throw Error(ErrorKind::kBackend, "cannot size shared memory " + name + " to " + std::to_string(bytes) +
                                         " bytes: " + std::strerror(err) + " (is /dev/shm large enough?)");
  }
  try {
    return ShmSegment(name, map(fd.get(), name, bytes), bytes, true);
  } catch (...) {
    ::shm_unlink(name.c_str());
    throw;
  }
}

ShmSegment ShmSegment::open(const std::string& name, std::size_t bytes) {
  UniqueFd fd(::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0600));
  if (!fd.valid()) throw Error(ErrorKind::kBackend, "cannot open shared memory " + name + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || static_cast<std::size_t>(st.st_size) < bytes) {
    throw Error(ErrorKind::kBackend,
                "shared memory " + name + " is smaller than the " + std::to_string(bytes) + " bytes expected");
  }
  return ShmSegment(name, map(fd.get(), name, bytes), bytes, false);
}

ShmSegment::ShmSegment(ShmSegment&& other) noexcept
    : name_(std::move(other.name_)),
      data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      owns_name_(std::exchange(other.owns_name_, false)) {}

ShmSegment& ShmSegment::operator=(ShmSegment&& other) noexcept {
  if (this != &other) {
    this->~ShmSegment();
    new (this) ShmSegment(std::move(other));
  }
  return *this;
}

ShmSegment::~ShmSegment() {
  unlink();
  if (data_) ::munmap(data_, size_);
}

void ShmSegment::unlink() {
  if (owns_name_) {
    ::shm_unlink(name_.c_str());
    owns_name_ = false;
  }
}

}  // namespace hvd::detail
