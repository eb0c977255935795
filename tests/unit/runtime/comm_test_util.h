// Helpers for the data-plane tests: ranks as threads over one MemoryStore, and typed element access so that a
// test can fill and check buffers of any dtype through doubles.
#pragma once

#include <cstring>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/comm/communicator.h"
#include "runtime/reduce/half.h"
#include "runtime/reduce/reduce.h"
#include "store/memory_store.h"

namespace hvd::test {

inline constexpr DataType kAllTypes[] = {
    DataType::kUInt8,   DataType::kInt8,     DataType::kUInt16,  DataType::kInt16,   DataType::kInt32, DataType::kInt64,
    DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32, DataType::kFloat64, DataType::kBool};

inline double get(DataType t, const void* p, std::size_t i) {
  auto at = [&](auto* typed) { return static_cast<double>(typed[i]); };
  switch (t) {
    case DataType::kUInt8: return at(static_cast<const std::uint8_t*>(p));
    case DataType::kInt8: return at(static_cast<const std::int8_t*>(p));
    case DataType::kUInt16: return at(static_cast<const std::uint16_t*>(p));
    case DataType::kInt16: return at(static_cast<const std::int16_t*>(p));
    case DataType::kInt32: return at(static_cast<const std::int32_t*>(p));
    case DataType::kInt64: return at(static_cast<const std::int64_t*>(p));
    case DataType::kFloat16: return detail::fp16::half_to_float(static_cast<const std::uint16_t*>(p)[i]);
    case DataType::kBFloat16: return detail::fp16::bfloat16_to_float(static_cast<const std::uint16_t*>(p)[i]);
    case DataType::kFloat32: return at(static_cast<const float*>(p));
    case DataType::kFloat64: return at(static_cast<const double*>(p));
    case DataType::kBool: return static_cast<const std::uint8_t*>(p)[i] != 0;
  }
  return 0;
}

inline void put(DataType t, void* p, std::size_t i, double v) {
  switch (t) {
    case DataType::kUInt8: static_cast<std::uint8_t*>(p)[i] = static_cast<std::uint8_t>(v); break;
    case DataType::kInt8: static_cast<std::int8_t*>(p)[i] = static_cast<std::int8_t>(v); break;
    case DataType::kUInt16: static_cast<std::uint16_t*>(p)[i] = static_cast<std::uint16_t>(v); break;
    case DataType::kInt16: static_cast<std::int16_t*>(p)[i] = static_cast<std::int16_t>(v); break;
    case DataType::kInt32: static_cast<std::int32_t*>(p)[i] = static_cast<std::int32_t>(v); break;
    case DataType::kInt64: static_cast<std::int64_t*>(p)[i] = static_cast<std::int64_t>(v); break;
    case DataType::kFloat16: static_cast<std::uint16_t*>(p)[i] = detail::fp16::float_to_half(static_cast<float>(v)); break;
    case DataType::kBFloat16:
      static_cast<std::uint16_t*>(p)[i] = detail::fp16::float_to_bfloat16(static_cast<float>(v));
      break;
    case DataType::kFloat32: static_cast<float*>(p)[i] = static_cast<float>(v); break;
    case DataType::kFloat64: static_cast<double*>(p)[i] = v; break;
    case DataType::kBool: static_cast<std::uint8_t*>(p)[i] = v != 0; break;
  }
}

struct Job {
  std::vector<std::string> hosts;  // hosts[r]: rank r's host name ("h0" for all: one host)
  detail::CommunicatorOptions options;
};

inline Job one_host(int n, std::size_t chunk = 0) {
  Job j{std::vector<std::string>(static_cast<std::size_t>(n), "h0"), {}};
  j.options.secret = "test-secret";
  j.options.bind_address = "127.0.0.1";
  j.options.connect_timeout = std::chrono::seconds(20);
  j.options.shm_chunk_bytes = chunk;
  return j;
}

inline Job hosts(std::vector<std::string> names, std::size_t chunk = 0) {
  Job j = one_host(static_cast<int>(names.size()), chunk);
  j.hosts = std::move(names);
  return j;
}

// Runs fn(communicator, rank) on one thread per rank; rethrows the first failure (rank-prefixed).
inline void run_ranks(const Job& job, const std::function<void(detail::Communicator&, int)>& fn) {
  const int n = static_cast<int>(job.hosts.size());
  detail::MemoryStore store;
  std::vector<std::string> errors(static_cast<std::size_t>(n));
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < n; ++r) {
      threads.emplace_back([&, r] {
        try {
          detail::Topology t;
          t.rank = r;
          t.size = n;
          t.hostname = job.hosts[static_cast<std::size_t>(r)];
          auto comm = detail::connect_communicator(store, t, job.options);
          fn(*comm, r);
        } catch (const std::exception& e) {
          errors[static_cast<std::size_t>(r)] = e.what();
        }
      });
    }
  }
  for (int r = 0; r < n; ++r) {
    if (!errors[r].empty()) throw std::runtime_error("rank " + std::to_string(r) + ": " + errors[r]);
  }
}

inline void expect(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(what);
}

inline void expect(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

}  // namespace hvd::test
