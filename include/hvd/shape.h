// hvd::Shape: a tensor's dimensions, kept inline up to kInline of them so that describing a tensor allocates
// nothing (each collective copies its tensor's shape several times on its way through the engine); more spill to
// the heap. It reads like std::vector<std::int64_t> (iterators, size, operator[], push_back, ==) and converts to
// and from one, so code written for a vector shape keeps compiling.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <vector>

namespace hvd {

class Shape {
 public:
  using value_type = std::int64_t;
  using size_type = std::size_t;
  using reference = std::int64_t&;
  using const_reference = const std::int64_t&;
  using iterator = std::int64_t*;
  using const_iterator = const std::int64_t*;
  static constexpr std::size_t kInline = 6;

  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims) { assign(dims.begin(), dims.end()); }
  Shape(const std::vector<std::int64_t>& dims) { assign(dims.begin(), dims.end()); }  // implicit, as before
  template <std::input_iterator It>
  Shape(It first, It last) {
    assign(first, last);
  }
  Shape(const Shape& other) { assign(other.begin(), other.end()); }
  Shape(Shape&& other) noexcept : size_(other.size_), inline_(other.inline_), heap_(std::move(other.heap_)) {
    other.size_ = 0;
  }
  Shape& operator=(const Shape& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  Shape& operator=(Shape&& other) noexcept {
    if (this == &other) return *this;
    size_ = other.size_;
    inline_ = other.inline_;
    heap_ = std::move(other.heap_);
    other.size_ = 0;
    return *this;
  }
  ~Shape() = default;

  operator std::vector<std::int64_t>() const { return {begin(), end()}; }  // implicit, as before
  std::vector<std::int64_t> vec() const { return {begin(), end()}; }

  template <std::input_iterator It>
  void assign(It first, It last) {
    clear();
    for (; first != last; ++first) push_back(static_cast<std::int64_t>(*first));
  }
  void push_back(std::int64_t dim) {
    if (size_ < kInline) {
      inline_[size_++] = dim;
      return;
    }
    if (size_ == kInline) heap_.assign(inline_.begin(), inline_.end());
    heap_.push_back(dim);
    ++size_;
  }
  void clear() {
    size_ = 0;
    heap_.clear();  // keeps its capacity
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::int64_t* data() { return size_ > kInline ? heap_.data() : inline_.data(); }
  const std::int64_t* data() const { return size_ > kInline ? heap_.data() : inline_.data(); }
  iterator begin() { return data(); }
  iterator end() { return data() + size_; }
  const_iterator begin() const { return data(); }
  const_iterator end() const { return data() + size_; }
  std::int64_t& operator[](std::size_t i) { return data()[i]; }
  const std::int64_t& operator[](std::size_t i) const { return data()[i]; }
  std::int64_t& front() { return data()[0]; }
  const std::int64_t& front() const { return data()[0]; }
  std::int64_t& back() { return data()[size_ - 1]; }
  const std::int64_t& back() const { return data()[size_ - 1]; }

  // A vector on either side converts: `view.shape == std::vector<std::int64_t>{3, 4}` compiles as before.
  friend bool operator==(const Shape& a, const Shape& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

 private:
  std::size_t size_ = 0;
  std::array<std::int64_t, kInline> inline_{};  // the dimensions while there are at most kInline
  std::vector<std::int64_t> heap_;              // all of them once there are more
};

}  // namespace hvd
