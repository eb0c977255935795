#include "runtime/comm/shm/group.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <ctime>
#include <thread>

#include "hvd/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HVD_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define HVD_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define HVD_CPU_RELAX() ((void)0)
#endif

namespace hvd::detail {
namespace {
using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kSleepSlice{20};  // futex timeout between liveness checks
constexpr std::chrono::nanoseconds kSpinMin{1000};

void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected, std::chrono::milliseconds timeout) {
  timespec ts{0, static_cast<long>(std::chrono::nanoseconds(timeout).count())};
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void futex_wake_all(std::atomic<std::uint32_t>* word) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

int usable_cpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::thread::hardware_concurrency());
}

std::string segment_name(const std::string& job_id, const PeerInfo& leader) {
  return "/hvd-" + job_id + "-" + std::to_string(leader.rank);
}

std::vector<int> pids_of(const std::vector<PeerInfo>& peers) {
  std::vector<int> pids;
  for (const auto& p : peers) pids.push_back(p.pid);
  return pids;
}

ShmSegment join_segment(Store& store, const std::string& prefix, const std::string& job_id,
                        const std::vector<PeerInfo>& peers, int local_rank, std::size_t chunk,
                        std::chrono::milliseconds timeout) {
  const auto n = peers.size();
  const std::size_t bytes = shm::segment_bytes(n, chunk);
  const std::string key = prefix + "shm/" + std::to_string(peers[0].rank);
  if (local_rank == 0) {
    auto seg = ShmSegment::create(segment_name(job_id, peers[0]), bytes);
    auto* h = new (seg.data()) shm::Header{};
    h->magic = shm::kMagic;
    h->local_size = static_cast<std::uint32_t>(n);
    h->chunk_bytes = chunk;
    for (std::size_t i = 0; i < n; ++i) new (seg.data() + shm::controls_offset() + i * 1024) shm::RankControl{};
    store.set(key, seg.name());
    std::vector<std::string> mapped;
    for (std::size_t i = 1; i < n; ++i) mapped.push_back(key + "/mapped/" + std::to_string(i));
    store.wait(mapped, timeout);
    seg.unlink();
    return seg;
  }
  auto seg = ShmSegment::open(store.get(key, timeout), bytes);
  auto* h = reinterpret_cast<shm::Header*>(seg.data());
  if (h->magic != shm::kMagic || h->local_size != n || h->chunk_bytes != chunk) {
    throw Error(ErrorKind::kBackend,
                "shared memory " + seg.name() + " of " + describe(peers[0]) +
                    " does not match this rank's view of the host group (different hvd builds or options?)");
  }
  store.set(key + "/mapped/" + std::to_string(local_rank), "1");
  return seg;
}
}  // namespace

ShmGroup::ShmGroup(Store& store, const std::string& key_prefix, const std::string& job_id, std::vector<PeerInfo> peers,
                   int local_rank, std::size_t chunk_bytes, std::chrono::milliseconds timeout)
    : peers_(std::move(peers)),
      rank_(local_rank),
      chunk_(shm::round_up(chunk_bytes, shm::kPage)),
      segment_(join_segment(store, key_prefix, job_id, peers_, local_rank, chunk_, timeout)),
      header_(reinterpret_cast<shm::Header*>(segment_.data())),
      slots_(segment_.data() + shm::slots_offset(peers_.size())),
      watch_(pids_of(peers_)) {
  for (std::size_t i = 0; i < peers_.size(); ++i) {
    controls_.push_back(reinterpret_cast<shm::RankControl*>(segment_.data() + shm::controls_offset() + i * 1024));
  }
  // Spinning only pays while every rank can own a core; past that it steals the core a peer needs.
  const bool oversubscribed = size() > usable_cpus();
  spin_max_ = std::chrono::microseconds(50);
  pure_spin_ = oversubscribed ? std::chrono::microseconds(2) : spin_max_;
  spin_ = spin_max_;
}

ShmGroup::~ShmGroup() = default;

void ShmGroup::arrive() {
  auto* me = controls_[static_cast<std::size_t>(rank_)];
  me->cpu.store(::sched_getcpu(), std::memory_order_relaxed);
  me->seq.store(++phase_, std::memory_order_seq_cst);
  if (me->waiters.load(std::memory_order_seq_cst) > 0) futex_wake_all(&me->seq);
}

bool ShmGroup::reached(int peer, std::uint32_t target) const {
  auto v = controls_[static_cast<std::size_t>(peer)]->seq.load(std::memory_order_acquire);
  return static_cast<std::int32_t>(v - target) >= 0;
}

void ShmGroup::wait_all(const char* op) {
  if (failed_) throw_failure(op);
  for (int q = 0; q < size(); ++q) {
    if (q != rank_) wait_for(q, phase_, op);
  }
}

void ShmGroup::wait_for(int peer, std::uint32_t target, const char* op) {
  if (reached(peer, target)) return;
  const auto start = Clock::now();
  // Spin, then sleep. While the peer was last seen on this very core (or ranks outnumber cores), the spin polls
  // through sched_yield so that the peer gets to run; otherwise yielding would only hand the core to unrelated work.
  auto* c = controls_[static_cast<std::size_t>(peer)];
  const bool same_cpu = c->cpu.load(std::memory_order_relaxed) == ::sched_getcpu();
  for (unsigned i = 1;; ++i) {
    HVD_CPU_RELAX();
    if (reached(peer, target)) return;
    if ((i & 63u) == 0) {
      if (header_->aborted.load(std::memory_order_acquire) != 0 || interrupted()) throw_failure(op);
      auto waited = Clock::now() - start;
      if (waited > spin_) break;
      if (same_cpu || waited > pure_spin_) ::sched_yield();
    }
  }
  for (;;) {
    c->waiters.fetch_add(1, std::memory_order_seq_cst);
    auto v = c->seq.load(std::memory_order_seq_cst);
    bool done = static_cast<std::int32_t>(v - target) >= 0;
    if (!done && header_->aborted.load(std::memory_order_seq_cst) == 0 && !interrupted()) {
      futex_wait(&c->seq, v, kSleepSlice);
    }
    c->waiters.fetch_sub(1, std::memory_order_seq_cst);
    if (done || reached(peer, target)) break;
    if (header_->aborted.load(std::memory_order_acquire) != 0 || interrupted()) throw_failure(op);
    if (int dead = watch_.find_dead(); dead >= 0) {
      if (!failed_) failed_peer_ = job_rank(peers_[static_cast<std::size_t>(dead)]);
      abort(describe(peers_[static_cast<std::size_t>(dead)]) + " exited (pid " +
            std::to_string(peers_[static_cast<std::size_t>(dead)].pid) + ")");
      throw_failure(op);
    }
  }
  // Adapt: a wait that the full spin would have covered means spinning pays (the peers are running: ranks in
  // lockstep); a longer one (an idle engine, a slow peer) means the spin was wasted, so spin less next time.
  spin_ = Clock::now() - start <= spin_max_ ? spin_max_ : std::max(spin_ / 2, std::chrono::nanoseconds(kSpinMin));
}

void ShmGroup::abort(const std::string& reason) noexcept {
  if (!failed_) {
    try {
      failed_ = reason;
    } catch (...) {
    }
  }
  auto* me = controls_[static_cast<std::size_t>(rank_)];
  std::size_t n = std::min(reason.size(), shm::kReasonBytes - 1);
  std::memcpy(me->reason, reason.data(), n);
  me->reason[n] = '\0';
  std::uint32_t expected = 0;
  header_->aborted.compare_exchange_strong(expected, static_cast<std::uint32_t>(rank_ + 1), std::memory_order_seq_cst);
  for (auto* c : controls_) futex_wake_all(&c->seq);
}

void ShmGroup::interrupt(const Stop& stop) noexcept {
  interrupt_.stop(stop);
  // Wakes this rank's waiter (peers woken by it go back to sleep).
  for (auto* c : controls_) futex_wake_all(&c->seq);
}

void ShmGroup::check(const char* op) {
  if (failed_ || header_->aborted.load(std::memory_order_acquire) != 0 || interrupted()) throw_failure(op);
}

void ShmGroup::throw_failure(const char* op) {
  if (interrupted()) {
    const std::string reason = interrupt_.message();
    const auto& self = peers_[static_cast<std::size_t>(rank_)];
    throw Error(ErrorKind::kMembership, std::string(op) + " on " + describe(self) + " interrupted: " + reason,
                {.rank = job_rank(self), .host = self.host});
  }
  if (!failed_) {
    auto who = header_->aborted.load(std::memory_order_acquire);
    const auto& peer = peers_[who - 1];
    failed_ = std::string(controls_[who - 1]->reason) +
              (static_cast<int>(who - 1) == rank_ ? "" : " (reported by " + describe(peer) + ")");
    // Another rank of this host aborted the group for a failure it met: this rank fails because of that rank (the
    // root-cause report follows its record on to the rank it blames).
    if (failed_peer_ < 0 && static_cast<int>(who - 1) != rank_) failed_peer_ = job_rank(peer);
  }
  const auto& self = peers_[static_cast<std::size_t>(rank_)];
  throw Error(ErrorKind::kPeerLost, std::string(op) + " on " + describe(self) + " failed: " + *failed_,
              {.rank = job_rank(self), .host = self.host, .peer = failed_peer_});
}

}  // namespace hvd::detail
