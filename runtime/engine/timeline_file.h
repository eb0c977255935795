// A file that always holds one complete JSON array, however abruptly the process ends: it starts as "[\n]\n"
// and each append is one pwrite over the closing bracket ("[\n]\n" grows to "[\n{...},\n{...}\n]\n"), so
// the file parses after every write(2) and a SIGKILL between two appends leaves it whole. (Linux copies a write
// into the page cache page by page and checks for a fatal signal between pages, so only an append that crosses
// a 4 KiB boundary could be cut, in the sub-microsecond between its two page copies.) An append that would take
// the file past max_bytes is refused and the file stays as it is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/unique_fd.h"

namespace hvd::detail {

class TimelineFile {
 public:
  // Truncates or creates `path`; throws hvd::Error naming it on failure.
  TimelineFile(const std::string& path, std::size_t max_bytes);
  // false: the record would take the file past max_bytes (or a write failed); nothing was written.
  bool append(const std::string& record);
  const std::string& path() const { return path_; }
  std::size_t size() const { return end_; }

 private:
  bool write_at(std::size_t offset, std::string_view bytes);

  std::string path_;
  std::size_t max_bytes_;
  UniqueFd fd_;
  std::size_t end_ = 0;  // file size; the closing "]\n" is its last two bytes
  bool first_ = true;
};

}  // namespace hvd::detail
