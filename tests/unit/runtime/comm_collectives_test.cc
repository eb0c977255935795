// The other collectives on every layout: allgatherv, broadcast, alltoallv, reducescatter, barrier,
// gather_to_root / broadcast_from_root (including messages larger than a shared-memory slot), and Adasum.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "runtime/comm/algo/adasum_math.h"
#include "tests/unit/runtime/comm_test_util.h"

using namespace hvd;
using namespace hvd::test;

namespace {
std::vector<Job> layouts() {
  return {one_host(1),
          one_host(2),
          one_host(3),
          one_host(4),
          one_host(3, 4096),
          hosts({"a", "b", "c"}),
          hosts({"a", "a", "b", "b"}),
          hosts({"a", "b", "a"})};
}

std::byte pattern(int from, int to, std::size_t i) { return static_cast<std::byte>(from * 31 + to * 7 + i * 13); }

// Bytes rank r contributes in a test of "scale" s: varies per rank, zero for some.
std::size_t bytes_of(int r, std::size_t s) { return r % 3 == 1 ? 0 : s + static_cast<std::size_t>(r) * 5; }
}  // namespace

TEST_CASE("allgatherv, broadcast and alltoallv move the right bytes") {
  for (const auto& job : layouts()) {
    const int n = static_cast<int>(job.hosts.size());
    CAPTURE(n);
    CAPTURE(job.hosts[n - 1]);
    CHECK_NOTHROW(run_ranks(job, [&](detail::Communicator& c, int r) {
      for (std::size_t s : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1027}, std::size_t{300001}}) {
        // allgatherv
        std::vector<std::size_t> sizes;
        for (int p = 0; p < n; ++p) sizes.push_back(bytes_of(p, s));
        std::vector<std::byte> in(sizes[r]), out(std::accumulate(sizes.begin(), sizes.end(), std::size_t{0}));
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = pattern(r, 0, i);
        c.allgatherv(in.data(), out.data(), sizes);
        std::size_t off = 0;
        for (int p = 0; p < n; ++p) {
          for (std::size_t i = 0; i < sizes[p]; ++i) expect(out[off + i] == pattern(p, 0, i), "allgatherv");
          off += sizes[p];
        }
        // broadcast from every root
        for (int root = 0; root < n; ++root) {
          std::vector<std::byte> b(s);
          for (std::size_t i = 0; i < s; ++i) b[i] = r == root ? pattern(root, 1, i) : std::byte{0};
          c.broadcast(b.data(), s, root);
          for (std::size_t i = 0; i < s; ++i)
            if (b[i] != pattern(root, 1, i)) expect(false, "broadcast root " + std::to_string(root));
        }
        // alltoallv: rank r sends (r + p) % 3 * s / 2 + p bytes to p
        auto amount = [&](int from, int to) { return static_cast<std::size_t>((from + to) % 3) * s / 2 + to; };
        std::vector<std::size_t> send(n), recv(n);
        for (int p = 0; p < n; ++p) {
          send[p] = amount(r, p);
          recv[p] = amount(p, r);
        }
        std::vector<std::byte> sbuf(std::accumulate(send.begin(), send.end(), std::size_t{0}));
        std::vector<std::byte> rbuf(std::accumulate(recv.begin(), recv.end(), std::size_t{0}));
        off = 0;
        for (int p = 0; p < n; ++p) {
          for (std::size_t i = 0; i < send[p]; ++i) sbuf[off + i] = pattern(r, p, i);
          off += send[p];
        }
        c.alltoallv(sbuf.data(), send, rbuf.data(), recv);
        off = 0;
        for (int p = 0; p < n; ++p) {
          for (std::size_t i = 0; i < recv[p]; ++i) expect(rbuf[off + i] == pattern(p, r, i), "alltoallv");
          off += recv[p];
        }
        c.barrier();
      }
    }));
  }
}

TEST_CASE("reducescatter gives each rank the sum of its block") {
  for (const auto& job : layouts()) {
    const int n = static_cast<int>(job.hosts.size());
    CAPTURE(n);
    CHECK_NOTHROW(run_ranks(job, [&](detail::Communicator& c, int r) {
      for (DataType t : {DataType::kFloat32, DataType::kInt8, DataType::kBFloat16, DataType::kFloat64}) {
        for (std::size_t s : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1027}, std::size_t{200003}}) {
          std::vector<std::size_t> counts;
          for (int p = 0; p < n; ++p) counts.push_back(bytes_of(p, s));
          std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
          const std::size_t es = size_of(t);
          std::vector<std::byte> in(total * es), out(counts[r] * es + 1);
          for (std::size_t i = 0; i < total; ++i) put(t, in.data(), i, static_cast<double>((i + r) % 4));
          c.reducescatter(in.data(), out.data(), counts, t, ReduceOp::kSum);
          std::size_t base = 0;
          for (int p = 0; p < r; ++p) base += counts[p];
          for (std::size_t i = 0; i < counts[r]; ++i) {
            double want = 0;
            for (int p = 0; p < n; ++p) want += static_cast<double>((base + i + p) % 4);
            if (get(t, out.data(), i) != want)
              expect(false, std::string("reducescatter ") + name_of(t) + " size " + std::to_string(s) +
                                " element " + std::to_string(i));
          }
        }
      }
    }));
  }
}

TEST_CASE("gather_to_root and broadcast_from_root carry messages of any length") {
  for (const auto& job : layouts()) {
    const int n = static_cast<int>(job.hosts.size());
    CAPTURE(n);
    CHECK_NOTHROW(run_ranks(job, [&](detail::Communicator& c, int r) {
      for (std::size_t len : {std::size_t{0}, std::size_t{5}, std::size_t{4090}, std::size_t{10000}}) {
        auto msg = [&](int p) { return std::string(len + static_cast<std::size_t>(p), static_cast<char>('a' + p)); };
        auto all = c.gather_to_root(msg(r));
        if (r == 0) {
          expect(static_cast<int>(all.size()) == n, "gather: one message per rank at the root");
          for (int p = 0; p < n; ++p) expect(all[p] == msg(p), "gather: message of rank " + std::to_string(p));
        }
        auto b = c.broadcast_from_root(r == 0 ? std::string(len * 3, 'z') : std::string("ignored"));
        expect(b == std::string(len * 3, 'z'), "broadcast_from_root");
      }
    }));
  }
}

TEST_CASE("adasum matches the reference combination tree on every layout") {
  std::vector<Job> jobs = layouts();
  jobs.push_back(one_host(5));
  for (const auto& job : jobs) {
    const int n = static_cast<int>(job.hosts.size());
    CAPTURE(n);
    for (DataType t : {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16}) {
      for (std::size_t count : {std::size_t{1}, std::size_t{7}, std::size_t{1027}}) {
        auto value = [&](int r, std::size_t i) { return std::sin(0.1 * static_cast<double>(i * (r + 1) + r)); };
        const std::size_t es = size_of(t);
        std::vector<std::vector<std::byte>> inputs(n, std::vector<std::byte>(count * es));
        std::vector<void*> ptrs;
        for (int r = 0; r < n; ++r) {
          for (std::size_t i = 0; i < count; ++i) put(t, inputs[r].data(), i, value(r, i));
          ptrs.push_back(inputs[r].data());
        }
        auto reference = inputs;
        std::vector<void*> ref_ptrs;
        for (auto& v : reference) ref_ptrs.push_back(v.data());
        detail::adasum_tree(ref_ptrs, count, t);
        const double tol = t == DataType::kFloat16 ? 1e-2 : t == DataType::kFloat32 ? 1e-5 : 1e-12;
        CHECK_NOTHROW(run_ranks(job, [&](detail::Communicator& c, int r) {
          std::vector<std::byte> buf = inputs[r];
          c.adasum(buf.data(), count, t);
          for (std::size_t i = 0; i < count; ++i) {
            double got = get(t, buf.data(), i), want = get(t, reference[0].data(), i);
            if (std::abs(got - want) > tol * (1 + std::abs(want)))
              expect(false, std::string("adasum ") + name_of(t) + " element " + std::to_string(i) +
                                ": got " + std::to_string(got) + ", want " + std::to_string(want));
          }
        }));
      }
    }
  }
}

TEST_CASE("adasum of two orthogonal vectors is their sum; of two equal vectors, the vector") {
  CHECK_NOTHROW(run_ranks(one_host(2), [](detail::Communicator& c, int r) {
    float v[2] = {r == 0 ? 1.f : 0.f, r == 0 ? 0.f : 2.f};
    c.adasum(v, 2, DataType::kFloat32);
    expect(v[0] == 1.f && v[1] == 2.f, "orthogonal");
    float w[2] = {3.f, 4.f};
    c.adasum(w, 2, DataType::kFloat32);
    expect(w[0] == 3.f && w[1] == 4.f, "parallel");
  }));
}

TEST_CASE("adasum of parallel vectors of the float's smallest normals is their average; a zero vector adds nothing") {
  // Horovod's stability test: rank r sends a * k_r with |a| near FLT_MIN, so |a|^2 is far below any fixed epsilon.
  for (int n : {2, 3, 4}) {
    CAPTURE(n);
    CHECK_NOTHROW(run_ranks(one_host(n), [n](detail::Communicator& c, int r) {
      constexpr std::size_t kCount = 64;
      const float tiny = std::numeric_limits<float>::min();
      std::vector<float> v(kCount);
      double scale_sum = 0;
      for (int q = 0; q < n; ++q) scale_sum += 1.0 + 0.5 * q;
      for (std::size_t i = 0; i < kCount; ++i) v[i] = tiny * static_cast<float>(1 + i % 5) * (1.0f + 0.5f * r);
      c.adasum(v.data(), kCount, DataType::kFloat32);
      for (std::size_t i = 0; i < kCount; ++i) {
        const double want = static_cast<double>(tiny) * static_cast<double>(1 + i % 5) * scale_sum / n;
        expect(std::abs(v[i] - want) <= 1e-5 * want, "tiny parallel element " + std::to_string(i) + ": got " +
                                                          std::to_string(v[i] / tiny) + " x FLT_MIN, want " +
                                                          std::to_string(want / tiny));
      }
      std::vector<float> z = {r == 0 ? 0.f : 1.f, r == 0 ? 0.f : 2.f};  // rank 0 sends zeros
      c.adasum(z.data(), 2, DataType::kFloat32);
      expect(std::isfinite(z[0]) && std::isfinite(z[1]), "zero vector: finite");
      std::vector<float> all_zero = {0.f, 0.f};
      c.adasum(all_zero.data(), 2, DataType::kFloat32);
      expect(all_zero[0] == 0.f && all_zero[1] == 0.f, "all zero vectors stay zero");
      if (n == 2) expect(z[0] == 1.f && z[1] == 2.f, "a zero vector and v give v");
    }));
  }
}

TEST_CASE("topology is filled from the published host names") {
  CHECK_NOTHROW(run_ranks(hosts({"a", "b", "a", "c"}), [](detail::Communicator& c, int r) {
    const auto& t = c.topology();
    const int local_rank[] = {0, 0, 1, 0}, local_size[] = {2, 1, 2, 1}, cross_rank[] = {0, 1, 0, 2};
    const int cross_size[] = {3, 3, 1, 3};
    expect(t.local_rank == local_rank[r] && t.local_size == local_size[r], "local rank/size");
    expect(t.cross_rank == cross_rank[r] && t.cross_size == cross_size[r], "cross rank/size");
    expect(t.hosts == std::vector<std::string>{"a", "b", "a", "c"}, "hosts");
  }));
}

TEST_CASE("cross_allreduce sums over the ranks that share this rank's local rank, one per host") {
  // Interleaved hosts ({a, b, b, a}) put the cross group in an order unlike the host order: the group must still
  // line up on every member.
  for (const auto& job : {one_host(3), hosts({"a", "b"}), hosts({"a", "a", "b", "b"}), hosts({"a", "b", "b", "a"}),
                          hosts({"a", "b", "a"})}) {
    CHECK_NOTHROW(run_ranks(job, [&](detail::Communicator& c, int r) {
      const auto& host_of = job.hosts;
      auto local_rank_of = [&](int q) {
        return static_cast<int>(std::count(host_of.begin(), host_of.begin() + q, host_of[static_cast<std::size_t>(q)]));
      };
      double expected = 0;
      for (int q = 0; q < static_cast<int>(host_of.size()); ++q)
        if (local_rank_of(q) == local_rank_of(r)) expected += q + 1;
      std::vector<double> v(1000, r + 1.0);
      c.cross_allreduce(v.data(), v.size(), DataType::kFloat64, ReduceOp::kSum);
      expect(v.front() == expected && v.back() == expected,
             "rank " + std::to_string(r) + ": " + std::to_string(v.front()) + ", expected " + std::to_string(expected));
    }));
  }
}
