#include "runtime/engine/timeline_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "hvd/error.h"

namespace hvd::detail {
namespace {
constexpr std::string_view kEmpty = "[\n]\n";
}  // namespace

TimelineFile::TimelineFile(const std::string& path, std::size_t max_bytes) : path_(path), max_bytes_(max_bytes) {
  fd_ = UniqueFd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!fd_.valid()) {
    throw Error(ErrorKind::kUsage, "timeline '" + path + "': cannot open for writing: " + std::strerror(errno) +
                                       "; choose a writable path");
  }
  if (!write_at(0, kEmpty))
    throw Error(ErrorKind::kBackend, "timeline '" + path + "': cannot write: " + std::strerror(errno));
  end_ = kEmpty.size();
}

bool TimelineFile::append(const std::string& record) {
  // One write: the separator, the record and a new closing bracket over the old one ("]\n" after the opening
  // bracket, "\n]\n" after a record).
  std::string bytes;
  bytes.reserve(record.size() + 6);
  bytes += first_ ? "" : ",\n";
  bytes += record;
  bytes += "\n]\n";
  const std::size_t offset = end_ - (first_ ? 2 : 3);
  if (offset + bytes.size() > max_bytes_) return false;
  if (!write_at(offset, bytes)) return false;
  end_ = offset + bytes.size();
  first_ = false;
  return true;
}

bool TimelineFile::write_at(std::size_t offset, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::pwrite(fd_.get(), bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
    offset += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace hvd::detail
