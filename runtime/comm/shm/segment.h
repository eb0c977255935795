// One POSIX shared-memory segment for the ranks of one host: the creator (the host's lowest rank) makes it
// with O_EXCL under a job-unique name, the others open it, everyone maps it (MAP_POPULATE: pages are faulted in
// once, here, not inside a collective) and the creator unlinks the name once all have mapped it.
// The mapping is released when the object dies; the name is unlinked by then at the latest.
#pragma once

#include <cstddef>
#include <string>

namespace hvd::detail {

class ShmSegment {
 public:
  static ShmSegment create(const std::string& name, std::size_t bytes);
  static ShmSegment open(const std::string& name, std::size_t bytes);
  ShmSegment(ShmSegment&& other) noexcept;
  ShmSegment& operator=(ShmSegment&& other) noexcept;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  ~ShmSegment();

  void unlink();  // removes the name (idempotent); the mapping stays valid
  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  const std::string& name() const { return name_; }

 private:
  ShmSegment(std::string name, std::byte* data, std::size_t size, bool owns_name)
      : name_(std::move(name)), data_(data), size_(size), owns_name_(owns_name) {}
  std::string name_;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool owns_name_ = false;
};

}  // namespace hvd::detail
