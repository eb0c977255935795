// hvd-bench: time one collective over a range of sizes, through the engine (negotiation, fusion) or, with --raw,
// on a communicator of its own (the data plane alone). Prints '#' comment lines, then per size:
//   bytes median_us algbw_GBps busbw_GBps min_us max_us samples
// or, with --format tsv, a header and tab-separated `op bytes np median_us min_us max_us busbw_GBps` (the columns
// MPI's and Gloo's benchmarks can be put beside). Times are per rank over `samples` timed iterations; the slowest
// rank's median, min and max are reported. A last '#' line says that every result was checked.
// --tensors K: one training step of K tensors (allreduce), named and enqueued as one batch through the engine, or
// with --raw K back-to-back allreduces of the parts on the communicator (what the step costs without fusion); the
// whole size unsplit (--tensors 1, the default) is what a perfect fusion would cost.
// busbw as nccl-tests defines it: allreduce x 2(n-1)/n; allgather, reducescatter, alltoall x (n-1)/n;
// broadcast x 1. bytes: the per-rank buffer for allreduce and broadcast, the whole gathered/scattered/exchanged
// buffer for the others (nccl-tests' convention). Every result is checked before it is timed.
// --gpu: the buffers are device memory on device local_rank (the NCCL backend; --tensors are then slices of one
// device buffer).
// OP memcpy: no collective; every rank copies its buffer into another, all ranks at once (the peer that the data
// plane's busbw is held against: the same memory bus, shared the same way). busbw = bytes / time.
//   hvdrun -np 2 build/bin/hvd-bench allreduce --min 8 --max 256M --factor 2
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_memory.h"
#include "common/crypto.h"
#include "common/worker_contract.h"
#include "hvd/hvd.h"
#include "runtime/comm/communicator.h"
#include "runtime/comm/solo_communicator.h"
#include "runtime/api/runtime.h"
#include "store/prefix_store.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string op = "allreduce";
  std::vector<std::size_t> sizes;
  hvd::DataType dtype = hvd::DataType::kFloat32;
  bool raw = false;
  double seconds_per_size = 0.3;
  int tensors = 1;          // allreduce through the engine: the size split into this many named tensors per step
  bool contiguous = false;  // --tensors as slices of one buffer (the engine then skips the fusion copies)
  bool gpu = false;         // device buffers (bench_memory.h)
  bool tsv = false;         // --format tsv
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "hvd-bench: %s\nusage: hvd-bench OP [--sizes 8,1M,64M | --min B --max B --factor F] "
               "[--dtype float32] [--raw | --gpu] [--time S] [--tensors K [--contiguous]] [--format text|tsv]\n"
               "  OP: allreduce, allgather, "
               "broadcast, alltoall, "
               "reducescatter\n",
               why.c_str());
  std::exit(2);
}

std::size_t parse_bytes(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  std::string unit = end ? end : "";
  double mult = unit.empty() || unit == "B"    ? 1
                : unit == "K" || unit == "KiB" ? 1024.0
                : unit == "M" || unit == "MiB" ? 1048576.0
                : unit == "G" || unit == "GiB" ? 1073741824.0
                                               : -1;
  if (end == s.c_str() || mult < 0 || v < 0) usage("bad size '" + s + "' (use 8, 64K, 1M, 1G)");
  return static_cast<std::size_t>(v * mult);
}

hvd::DataType parse_dtype(const std::string& s) {
  for (int d = 0; d <= static_cast<int>(hvd::DataType::kBool); ++d) {
    if (s == hvd::name_of(static_cast<hvd::DataType>(d))) return static_cast<hvd::DataType>(d);
  }
  usage("unknown dtype '" + s + "'");
}

Options parse(int argc, char** argv) {
  Options o;
  if (argc < 2) usage("missing OP");
  o.op = argv[1];
  if (o.op != "allreduce" && o.op != "allgather" && o.op != "broadcast" && o.op != "alltoall" &&
      o.op != "reducescatter" && o.op != "memcpy") {
    usage("unknown OP '" + o.op + "'");
  }
  std::size_t lo = 8, hi = 64u << 20;
  double factor = 2;
  std::string sizes;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--sizes")
      sizes = next();
    else if (a == "--min")
      lo = parse_bytes(next());
    else if (a == "--max")
      hi = parse_bytes(next());
    else if (a == "--factor")
      factor = std::atof(next().c_str());
    else if (a == "--dtype")
      o.dtype = parse_dtype(next());
    else if (a == "--raw")
      o.raw = true;
    else if (a == "--time")
      o.seconds_per_size = std::atof(next().c_str());
    else if (a == "--tensors")
      o.tensors = std::max(1, std::atoi(next().c_str()));
    else if (a == "--contiguous")
      o.contiguous = true;
    else if (a == "--gpu")
      o.gpu = true;
    else if (a == "--format") {
      auto f = next();
      if (f != "text" && f != "tsv") usage("--format is text or tsv, not '" + f + "'");
      o.tsv = f == "tsv";
    } else
      usage("unknown option '" + a + "'");
  }
  if (o.gpu && o.raw) usage("--raw times the CPU communicator; it does not take --gpu");
  if (o.gpu && o.op == "memcpy") usage("memcpy times host memory; it does not take --gpu");
  if (o.gpu) o.contiguous = true;
  if (!sizes.empty()) {
    std::size_t pos = 0;
    while (pos <= sizes.size()) {
      auto comma = sizes.find(',', pos);
      o.sizes.push_back(parse_bytes(sizes.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos)));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
  } else {
    if (factor <= 1) usage("--factor must be above 1");
    for (double s = static_cast<double>(lo); s <= static_cast<double>(hi) * 1.0000001; s *= factor) {
      o.sizes.push_back(static_cast<std::size_t>(s));
    }
  }
  return o;
}

double bus_factor(const std::string& op, int n) {
  if (op == "allreduce") return 2.0 * (n - 1) / n;
  if (op == "broadcast" || op == "memcpy") return 1.0;
  return static_cast<double>(n - 1) / n;
}

// One benchmark: buffers sized for `bytes`, a run() doing the op once, a check() on the first result.
class Bench {
 public:
  Bench(const Options& o, hvd::detail::Communicator* raw, std::size_t bytes)
      : o_(o), raw_(raw), rank_(hvd::rank()), size_(hvd::size()) {
    es_ = hvd::size_of(o.dtype);
    const std::size_t total = std::max<std::size_t>(1, bytes / es_), np = static_cast<std::size_t>(size_);
    std::size_t in_n = 0, out_n = 0;
    if (o.op == "memcpy") {
      n_ = in_n = out_n = total;
      reported_ = n_ * es_;
    } else if (o.op == "allreduce" || o.op == "broadcast") {
      n_ = in_n = total;
      reported_ = n_ * es_;
    } else if (o.op == "allgather") {  // n_ per rank in, all of them out
      n_ = std::max<std::size_t>(1, total / np);
      in_n = n_, out_n = n_ * np;
      reported_ = out_n * es_;
    } else if (o.op == "alltoall") {  // n_ per rank in and out, n_/np to each peer
      n_ = std::max<std::size_t>(1, total / np) * np;
      in_n = out_n = n_;
      reported_ = n_ * es_;
    } else {  // reducescatter: n_ out per rank, n_ * np in
      n_ = std::max<std::size_t>(1, total / np);
      in_n = n_ * np, out_n = n_;
      reported_ = in_n * es_;
    }
    in_.assign(in_n * es_, 0);
    out_.assign(std::max<std::size_t>(out_n, 1) * es_, 0);
    if (o.gpu) {
      dev_in_ = DeviceMemory(in_.size());
      dev_out_ = DeviceMemory(out_.size());
      device_ = hvd::Device::gpu(bench_device());
    }
  }
  std::size_t reported_bytes() const { return reported_; }

  void fill() {
    // Small integers: exact in every dtype, so the check is exact.
    std::memset(in_.data(), 0, in_.size());
    if (o_.dtype == hvd::DataType::kFloat32) {
      auto* p = reinterpret_cast<float*>(in_.data());
      for (std::size_t i = 0; i < in_.size() / 4; ++i) p[i] = static_cast<float>(rank_ + 1);
    } else {
      for (std::size_t i = 0; i < in_.size(); i += es_) in_[i] = static_cast<std::uint8_t>(rank_ + 1);
    }
    if (o_.gpu) dev_in_.upload(in_.data(), in_.size());
  }

  // --gpu: brings the first result to the host buffers check() reads.
  void download() {
    if (!o_.gpu) return;
    dev_in_.download(in_.data(), in_.size());
    dev_out_.download(out_.data(), out_.size());
  }

  void run() {
    using namespace hvd;
    auto dt = o_.dtype;
    auto n = static_cast<std::int64_t>(n_);
    if (o_.op == "memcpy") {
      std::memcpy(out_.data(), in_.data(), n_ * es_);
    } else if (o_.op == "allreduce") {
      if (raw_ && o_.tensors > 1) {
        // The step without fusion: one allreduce per part, back to back (each part's own sum is what check() sees).
        std::size_t per = (n_ + o_.tensors - 1) / o_.tensors;
        for (int k = 0; k < o_.tensors; ++k) {
          std::size_t from = std::min(n_, per * k), len = std::min(n_, per * (k + 1)) - from;
          if (len) raw_->allreduce(in_p() + from * es_, len, dt, ReduceOp::kSum);
        }
      } else if (raw_) {
        raw_->allreduce(in_p(), n_, dt, ReduceOp::kSum);
      } else if (o_.tensors == 1) {
        hvd::allreduce({in_p(), dt, {n}, device_}, {in_p(), dt, {n}, device_}, {ReduceOp::kSum, 1, 1, "bench"});
      } else {
        // One training step's worth of gradients: K tensors, each its own allocation as a framework's would be
        // (--contiguous: slices of one buffer), submitted as one batch, then waited for.
        std::size_t per = (n_ + o_.tensors - 1) / o_.tensors;
        if (views_.empty()) {
          if (!o_.contiguous) {
            for (int k = 0; k < o_.tensors; ++k) parts_.emplace_back(per * es_, std::uint8_t{0});
            for (auto& p : parts_) std::memcpy(p.data(), in_p(), p.size());
          }
          for (int k = 0; k < o_.tensors; ++k) {
            std::size_t from = std::min(n_, per * k), len = std::min(n_, per * (k + 1)) - from;
            void* data = o_.contiguous ? in_p() + from * es_ : parts_[k].data();
            views_.push_back({data, dt, {static_cast<std::int64_t>(len)}, device_});
            names_.push_back("bench/" + std::to_string(k));
          }
        }
        for (auto& h : hvd::allreduce_batch_async(views_, views_, names_, {ReduceOp::kSum, 1, 1, ""})) h.wait();
        if (!o_.contiguous && !checked_) {
          // The check reads in_: give it the first step's results.
          for (int k = 0; k < o_.tensors; ++k) {
            std::size_t from = std::min(n_, per * k), len = std::min(n_, per * (k + 1)) - from;
            if (len) std::memcpy(in_p() + from * es_, parts_[k].data(), len * es_);
          }
          checked_ = true;
        }
      }
    } else if (o_.op == "broadcast") {
      if (raw_)
        raw_->broadcast(in_p(), n_ * es_, 0);
      else
        hvd::broadcast({in_p(), dt, {n}, device_}, {0, "bench"});
    } else if (o_.op == "allgather") {
      if (raw_) {
        raw_->allgatherv(in_p(), out_p(), std::vector<std::size_t>(size_, n_ * es_));
      } else {
        hvd::AllgatherOptions a{
            "bench", [&](DataType, const std::vector<std::int64_t>&) { return static_cast<void*>(out_p()); }};
        hvd::allgather_async({in_p(), dt, {n}, device_}, a).wait();
      }
    } else if (o_.op == "alltoall") {
      if (raw_) {
        std::vector<std::size_t> b(size_, n_ / size_ * es_);
        raw_->alltoallv(in_p(), b, out_p(), b);
      } else {
        hvd::AlltoallOptions a{
            {}, "bench", [&](DataType, const std::vector<std::int64_t>&) { return static_cast<void*>(out_p()); }};
        hvd::alltoall_async({in_p(), dt, {n}, device_}, a).wait();
      }
    } else {
      if (raw_) {
        raw_->reducescatter(in_p(), out_p(), std::vector<std::size_t>(size_, n_), dt, ReduceOp::kSum);
      } else {
        hvd::ReducescatterOptions a{ReduceOp::kSum, "bench", [&](DataType, const std::vector<std::int64_t>&) {
                                      return static_cast<void*>(out_p());
                                    }};
        hvd::reducescatter_async({in_p(), dt, {n * size_}, device_}, a).wait();
      }
    }
  }

  std::uint8_t* in_p() { return o_.gpu ? static_cast<std::uint8_t*>(dev_in_.get()) : in_.data(); }
  std::uint8_t* out_p() { return o_.gpu ? static_cast<std::uint8_t*>(dev_out_.get()) : out_.data(); }

  // Returns "" or what is wrong with the first result.
  std::string check() const {
    auto value = [&](const std::vector<std::uint8_t>& b, std::size_t i) -> double {
      if (o_.dtype == hvd::DataType::kFloat32) return reinterpret_cast<const float*>(b.data())[i];
      return b[i * es_];
    };
    double all = static_cast<double>(size_) * (size_ + 1) / 2;
    auto expect_at = [&](std::size_t i) -> std::pair<double, double> {
      if (o_.op == "memcpy") return {value(out_, i), static_cast<double>(rank_ + 1)};
      if (o_.op == "allreduce") return {value(in_, i), all};
      if (o_.op == "broadcast") return {value(in_, i), 1};
      if (o_.op == "allgather") return {value(out_, i), static_cast<double>(i / n_ + 1)};
      if (o_.op == "alltoall") return {value(out_, i), static_cast<double>(i / (n_ / size_) + 1)};
      return {value(out_, i), all};
    };
    std::size_t count = o_.op == "allgather" ? n_ * size_ : o_.op == "reducescatter" ? n_ : n_;
    for (std::size_t i : {std::size_t{0}, count / 2, count - 1}) {
      auto [got, want] = expect_at(i);
      if (got != want)
        return "element " + std::to_string(i) + " is " + std::to_string(got) + ", expected " + std::to_string(want);
    }
    return "";
  }

 private:
  const Options& o_;
  hvd::detail::Communicator* raw_;
  int rank_, size_;
  std::size_t es_ = 4, n_ = 1, reported_ = 0;
  std::vector<std::uint8_t> in_, out_;
  std::vector<std::vector<std::uint8_t>> parts_;  // --tensors without --contiguous
  std::vector<hvd::TensorView> views_;            // --tensors: the step's tensors
  std::vector<std::string> names_;
  DeviceMemory dev_in_, dev_out_;  // --gpu
  hvd::Device device_;             // where the buffers are
  bool checked_ = false;
};

// Median, min and max of one rank's samples, then the slowest rank's of each.
struct Summary {
  double median, min, max;
};
Summary slowest_rank(std::vector<double> us) {
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  auto [lo, hi] = std::minmax_element(us.begin(), us.end());
  double v[3] = {us[us.size() / 2], *lo, *hi};
  hvd::allreduce({v, hvd::DataType::kFloat64, {3}, {}}, {v, hvd::DataType::kFloat64, {3}, {}},
                 {hvd::ReduceOp::kMax, 1, 1, "bench.max"});
  return {v[0], v[1], v[2]};
}

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  try {
    hvd::init();
    std::unique_ptr<hvd::detail::Communicator> raw;
    std::unique_ptr<hvd::detail::PrefixStore> raw_store;
    if (o.raw && hvd::mpi_enabled()) {
      throw hvd::Error("--raw times the built-in communicator; on the MPI backend compare with mpi-allreduce-bench");
    }
    if (o.raw) {
      // A communicator of our own, so the engine's thread and ours never share one.
      auto& rt = hvd::detail::Runtime::get();
      if (hvd::size() == 1) {
        raw = std::make_unique<hvd::detail::SoloCommunicator>(rt.topology());
      } else {
        raw_store = std::make_unique<hvd::detail::PrefixStore>("hvd-bench/", rt.store());
        hvd::detail::Topology topo = rt.topology();
        topo.hosts.clear();
        hvd::detail::CommunicatorOptions co;
        const auto secret = hvd::read_worker_contract(hvd::env_var::process()).secret_hex;
        co.secret = secret ? hvd::from_hex(*secret) : "";
        raw = hvd::detail::connect_communicator(*raw_store, topo, co);
      }
    }
    const int n = hvd::size();
    if (hvd::rank() == 0) {
      const bool step = o.op == "allreduce" && o.tensors > 1;
      std::printf("# hvd-bench %s dtype=%s np=%d mode=%s tensors=%d%s\n", o.op.c_str(), hvd::name_of(o.dtype), n,
                  o.raw   ? "raw communicator"
                  : o.gpu ? "engine, GPU buffers (NCCL)"
                          : "engine",
                  step ? o.tensors : 1,
                  !step   ? ""
                  : o.raw ? " (one allreduce per tensor, no fusion)"
                          : (o.contiguous ? " (one batch, slices of one buffer)" : " (one batch, one buffer each)"));
      if (o.tsv)
        std::printf("op\tbytes\tnp\tmedian_us\tmin_us\tmax_us\tbusbw_GBps\n");
      else
        std::printf("# bytes median_us algbw_GBps busbw_GBps min_us max_us samples\n");
    }
    for (std::size_t bytes : o.sizes) {
      Bench b(o, raw.get(), bytes);
      b.fill();
      b.run();
      b.download();
      auto bad = b.check();
      if (!bad.empty()) {
        std::fprintf(stderr, "hvd-bench: rank %d: %s %zu bytes: wrong result: %s\n", hvd::rank(), o.op.c_str(), bytes,
                     bad.c_str());
        return 1;
      }
      // Warm up, then time iterations one by one until the time budget or 2000 iterations.
      for (int i = 0; i < 3; ++i) b.run();
      std::vector<double> us;
      int iters = 0;
      // All ranks must run the same number of iterations: rank 0 decides from its first timing.
      auto t0 = Clock::now();
      b.run();
      double first = std::chrono::duration<double>(Clock::now() - t0).count();
      double planned = std::clamp(o.seconds_per_size / std::max(first, 1e-7), 5.0, 2000.0);
      hvd::broadcast({&planned, hvd::DataType::kFloat64, {1}, {}}, {0, "bench.iters"});
      iters = static_cast<int>(planned);
      for (int i = 0; i < iters; ++i) {
        auto s = Clock::now();
        b.run();
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - s).count());
      }
      const Summary t = slowest_rank(us);
      double algbw = static_cast<double>(b.reported_bytes()) / (t.median * 1e-6) / 1e9;
      if (hvd::rank() == 0) {
        if (o.tsv)
          std::printf("%s\t%zu\t%d\t%.2f\t%.2f\t%.2f\t%.3f\n", o.op.c_str(), b.reported_bytes(), n, t.median, t.min,
                      t.max, algbw * bus_factor(o.op, n));
        else
          std::printf("%zu %.2f %.3f %.3f %.2f %.2f %zu\n", b.reported_bytes(), t.median, algbw,
                      algbw * bus_factor(o.op, n), t.min, t.max, us.size());
        std::fflush(stdout);
      }
    }
    if (hvd::rank() == 0)
      std::printf("# correct: the first result at each of %zu sizes matched the expected values on every rank\n",
                  o.sizes.size());
    raw.reset();
    hvd::shutdown();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hvd-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
