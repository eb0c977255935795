// A std::vector of trivially copyable elements kept with an hvd::elastic::State, for tests of objects whose size
// changes (and differs by rank): save() is its bytes, load() takes bytes of any length; sync is the caller's, or
// empty for the State's broadcast of rank 0's bytes.
#pragma once

#include <cstring>
#include <functional>
#include <span>
#include <type_traits>
#include <vector>

#include "hvd/elastic.h"

namespace hvd::test {

template <class T>
requires std::is_trivially_copyable_v<T> hvd::elastic::Tracked tracked_vector(std::vector<T>& v,
                                                                              std::function<void()> sync = {}) {
  return {[&v] {
            std::vector<std::byte> b(v.size() * sizeof(T));
            std::memcpy(b.data(), v.data(), b.size());
            return b;
          },
          [&v](std::span<const std::byte> b) {
            v.resize(b.size() / sizeof(T));
            std::memcpy(v.data(), b.data(), b.size());
          },
          std::move(sync)};
}

}  // namespace hvd::test
