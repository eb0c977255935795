// The layout of a host group's shared-memory segment (private to comm/shm):
//   [Header: 4 KiB][RankControl x n, 1 KiB each, rounded up to 4 KiB][slots: per rank 2 buffers of chunk bytes]
// Every rank writes only its own control block and its own slots; everyone reads everyone's.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace hvd::detail::shm {

inline constexpr std::uint64_t kMagic = 0x4856445f53484d31ull;  // "HVD_SHM1"
inline constexpr std::size_t kPage = 4096;
inline constexpr std::size_t kReasonBytes = 768;

struct Header {
  std::uint64_t magic;
  std::uint32_t local_size;
  std::uint64_t chunk_bytes;
  // 0, or 1 + the local rank that failed first (its RankControl::reason says why). Never goes back to 0.
  alignas(64) std::atomic<std::uint32_t> aborted;
};

struct alignas(64) RankControl {
  std::atomic<std::uint32_t> seq;      // futex word: number of phases this rank has completed
  std::atomic<std::uint32_t> waiters;  // ranks sleeping (or about to) on seq
  std::atomic<std::int32_t> cpu;       // where this rank last arrived: a waiter on the same CPU yields to it
  alignas(64) char reason[kReasonBytes];  // written before this rank sets Header::aborted
};
static_assert(sizeof(RankControl) <= 1024);
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

inline constexpr std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }
inline std::size_t controls_offset() { return kPage; }
inline std::size_t slots_offset(std::size_t n) { return kPage + round_up(n * 1024, kPage); }
inline std::size_t segment_bytes(std::size_t n, std::size_t chunk) { return slots_offset(n) + n * 2 * chunk; }

}  // namespace hvd::detail::shm
