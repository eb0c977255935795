#include "runtime/comm/mpi/mpi_communicator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <optional>

#include "runtime/comm/mpi/mpi_call.h"
#include "runtime/comm/mpi/mpi_links.h"
#include "runtime/reduce/reduce.h"

namespace hvd::detail {
namespace {

// MPI counts are ints: big reductions and broadcasts go in pieces of this many elements or bytes.
constexpr std::size_t kMaxPiece = std::size_t{1} << 30;
constexpr std::size_t kHostnameBytes = 256;

bool fits_int(std::size_t n) { return n <= static_cast<std::size_t>(INT_MAX); }

// Byte counts and displacements for the v-collectives; nullopt when some count or offset is past INT_MAX (the
// caller then runs hvd's own algorithm over MPI point-to-point, which moves any size).
struct Layout {
  std::vector<int> counts, displs;
};
std::optional<Layout> layout_of(const std::vector<std::size_t>& bytes) {
  Layout l;
  std::size_t offset = 0;
  for (auto b : bytes) {
    if (!fits_int(b) || !fits_int(offset)) return std::nullopt;
    l.counts.push_back(static_cast<int>(b));
    l.displs.push_back(static_cast<int>(offset));
    offset += b;
  }
  if (!fits_int(offset)) return std::nullopt;
  return l;
}

constexpr const char* kSetup = "MPI backend setup";

MPI_Comm returning_errors(MPI_Comm comm) {
  mpi_check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler", kSetup);
  return comm;
}

MPI_Comm dup_of(MPI_Comm comm) {
  MPI_Comm copy = MPI_COMM_NULL;
  mpi_check(MPI_Comm_dup(comm, &copy), "MPI_Comm_dup", kSetup);
  return copy;
}

MPI_Comm dup_world() { return dup_of(MPI_COMM_WORLD); }

MPI_Comm split_shared(MPI_Comm world) {
  int rank = 0;
  mpi_check(MPI_Comm_rank(world, &rank), "MPI_Comm_rank", kSetup);
  MPI_Comm local = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local), "MPI_Comm_split_type",
            kSetup);
  return local;
}

// Key = world rank: cross rank is then the host's index in rank order, as on the built-in backend.
MPI_Comm split_by_local_rank(MPI_Comm world, MPI_Comm local) {
  int rank = 0, local_rank = 0;
  mpi_check(MPI_Comm_rank(world, &rank), "MPI_Comm_rank", kSetup);
  mpi_check(MPI_Comm_rank(local, &local_rank), "MPI_Comm_rank", kSetup);
  MPI_Comm cross = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split(world, local_rank, rank, &cross), "MPI_Comm_split", kSetup);
  return cross;
}

}  // namespace

MpiSession::MpiSession() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized) {
    throw Error(ErrorKind::kUsage,
                "MPI backend: MPI was already finalized in this process (an earlier hvd::shutdown() ends MPI, "
                "which cannot start twice); call hvd::init() once per process under mpirun");
  }
  int provided = 0;
  if (initialized) {
    MPI_Query_thread(&provided);
  } else {
    int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS)
      throw Error(ErrorKind::kBackend, "MPI backend: MPI_Init_thread failed: " + mpi_error_text(rc));
    started_here_ = true;
  }
  // hvd calls MPI from its background thread, not the one that started MPI: that needs SERIALIZED at least.
  if (provided < MPI_THREAD_SERIALIZED) {
    throw Error(ErrorKind::kBackend,
                "MPI backend: MPI gives thread level " + std::to_string(provided) +
                    " but hvd calls MPI from its background thread, which needs MPI_THREAD_SERIALIZED or more; start "
                    "MPI with MPI_Init_thread(MPI_THREAD_MULTIPLE), or let hvd::init() start it");
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    spdlog::warn(
        "MPI gives MPI_THREAD_SERIALIZED where hvd asks for MPI_THREAD_MULTIPLE: your own MPI calls must "
        "never run while hvd's background thread runs (between hvd::init() and hvd::shutdown())");
  }
}

MpiSession::~MpiSession() {
  if (started_here_) MPI_Finalize();
}

MpiComm::~MpiComm() {
  if (comm_ != MPI_COMM_NULL && !mpi_finalized()) MPI_Comm_free(&comm_);
}

MpiCommunicator::MpiCommunicator(const std::string& hostname) : MpiCommunicator(MPI_COMM_NULL, hostname) {}

MpiCommunicator::MpiCommunicator(MPI_Comm owned, const std::string& hostname)
    : world_(returning_errors(owned == MPI_COMM_NULL ? dup_world() : owned)),
      local_(returning_errors(split_shared(world_.get()))),
      cross_(returning_errors(split_by_local_rank(world_.get(), local_.get()))),
      split_base_(returning_errors(dup_of(world_.get()))) {
  MPI_Comm world = world_.get();
  MPI_Comm_rank(world, &topology_.rank);
  MPI_Comm_size(world, &topology_.size);
  MPI_Comm_rank(local_.get(), &topology_.local_rank);
  MPI_Comm_size(local_.get(), &topology_.local_size);
  MPI_Comm_rank(cross_.get(), &topology_.cross_rank);
  MPI_Comm_size(cross_.get(), &topology_.cross_size);
  topology_.hostname = hostname;
  const std::string setup = std::string(kSetup) + " on rank " + std::to_string(topology_.rank) + " (" + hostname + ")";

  // Every rank's host, for error messages and the stall inspector.
  std::vector<char> names(kHostnameBytes * static_cast<std::size_t>(topology_.size), '\0');
  std::vector<char> mine(kHostnameBytes, '\0');
  std::memcpy(mine.data(), hostname.data(), std::min(hostname.size(), kHostnameBytes - 1));
  mpi_check(MPI_Allgather(mine.data(), kHostnameBytes, MPI_CHAR, names.data(), kHostnameBytes, MPI_CHAR, world),
            "MPI_Allgather", setup);
  for (int r = 0; r < topology_.size; ++r) topology_.hosts.emplace_back(names.data() + r * kHostnameBytes);
}

// Process sets: MPI_Comm_split over a communicator of its own (split_base_), since the engine's thread may be in a
// collective on world_ meanwhile; that needs MPI_THREAD_MULTIPLE.
std::unique_ptr<Communicator> MpiCommunicator::subset(const std::vector<int>& ranks, Store&, const std::string&,
                                                      const CommunicatorOptions&) {
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    throw Error(ErrorKind::kUsage, "process sets on the MPI backend need MPI_THREAD_MULTIPLE, but MPI gives less; "
                                   "let hvd::init() start MPI, or start it with MPI_Init_thread(MPI_THREAD_MULTIPLE)");
  }
  const auto mine = std::find(ranks.begin(), ranks.end(), topology_.rank);
  const int color = mine == ranks.end() ? MPI_UNDEFINED : 0;
  const int key = static_cast<int>(mine - ranks.begin());
  MPI_Comm part = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split(split_base_.get(), color, key, &part), "MPI_Comm_split", where("process set split"));
  if (part == MPI_COMM_NULL) return nullptr;
  std::unique_ptr<MpiCommunicator> set(new MpiCommunicator(part, topology_.hostname));
  for (int r : ranks) set->topology_.job_ranks.push_back(job_rank(topology_, r));
  return set;
}

std::string MpiCommunicator::where(const char* op) const {
  return std::string(op) + " on rank " + std::to_string(job_rank(topology_, topology_.rank)) + " (" +
         topology_.hostname + ")";
}

void MpiCommunicator::allreduce_on(MPI_Comm comm, const char* op_name, void* data, std::size_t count, DataType dtype,
                                   ReduceOp op) {
  const MPI_Datatype type = types_.type(dtype);
  const MPI_Op mpi_op = types_.op(dtype, op);
  auto* p = static_cast<std::uint8_t*>(data);
  for (std::size_t done = 0; done < count; done += kMaxPiece) {
    const std::size_t n = std::min(kMaxPiece, count - done);
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, p + done * size_of(dtype), static_cast<int>(n), type, mpi_op, comm),
              "MPI_Allreduce", [&] { return where(op_name); });
  }
}

void MpiCommunicator::allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) {
  allreduce_on(world_.get(), "allreduce", data, count, dtype, op);
}

void MpiCommunicator::cross_allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) {
  if (topology_.cross_size == 1) return;
  allreduce_on(cross_.get(), "cross_allreduce", data, count, dtype, op);
}

void MpiCommunicator::allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) {
  if (static_cast<int>(bytes.size()) != topology_.size) {
    throw Error(ErrorKind::kUsage, where("allgatherv") + ": one size per rank expected");
  }
  const auto l = layout_of(bytes);
  if (!l) {
    MpiLinks links(world_.get(), topology_.rank, topology_.size, where("allgatherv"));
    return ring_allgatherv(links, in, out, bytes);
  }
  auto* o = static_cast<std::uint8_t*>(out);
  const bool in_place = in == o + l->displs[topology_.rank];
  mpi_check(MPI_Allgatherv(in_place ? MPI_IN_PLACE : in, l->counts[topology_.rank], MPI_BYTE, out, l->counts.data(),
                           l->displs.data(), MPI_BYTE, world_.get()),
            "MPI_Allgatherv", [&] { return where("allgatherv"); });
}

void MpiCommunicator::broadcast(void* data, std::size_t bytes, int root) {
  if (root < 0 || root >= topology_.size)
    throw Error(ErrorKind::kUsage, where("broadcast") + ": root " + std::to_string(root) + " is not a rank");
  auto* p = static_cast<std::uint8_t*>(data);
  for (std::size_t done = 0; done < bytes; done += kMaxPiece) {
    const std::size_t n = std::min(kMaxPiece, bytes - done);
    mpi_check(MPI_Bcast(p + done, static_cast<int>(n), MPI_BYTE, root, world_.get()), "MPI_Bcast",
              [&] { return where("broadcast"); });
  }
}

void MpiCommunicator::alltoallv(const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                                const std::vector<std::size_t>& recv_bytes) {
  const int n = topology_.size;
  if (static_cast<int>(send_bytes.size()) != n || static_cast<int>(recv_bytes.size()) != n) {
    throw Error(ErrorKind::kUsage,
                where("alltoallv") + ": split sizes do not match the " + std::to_string(n) + " ranks");
  }
  const auto s = layout_of(send_bytes), r = layout_of(recv_bytes);
  if (!s || !r) {
    MpiLinks links(world_.get(), topology_.rank, topology_.size, where("alltoallv"));
    return pairwise_alltoallv(links, in, send_bytes, out, recv_bytes);
  }
  mpi_check(MPI_Alltoallv(in, s->counts.data(), s->displs.data(), MPI_BYTE, out, r->counts.data(), r->displs.data(),
                          MPI_BYTE, world_.get()),
            "MPI_Alltoallv", where("alltoallv"));
}

void MpiCommunicator::reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                                    ReduceOp op) {
  if (static_cast<int>(counts.size()) != topology_.size) {
    throw Error(ErrorKind::kUsage, where("reducescatter") + ": one count per rank expected");
  }
  std::vector<int> c;
  std::size_t total = 0;
  for (auto n : counts) {
    c.push_back(static_cast<int>(std::min<std::size_t>(n, INT_MAX)));
    total += n;
  }
  if (!fits_int(total)) {
    MpiLinks links(world_.get(), topology_.rank, topology_.size, where("reducescatter"));
    return ring_reducescatter(links, in, out, counts, dtype, op, scratch_);
  }
  mpi_check(MPI_Reduce_scatter(in, out, c.data(), types_.type(dtype), types_.op(dtype, op), world_.get()),
            "MPI_Reduce_scatter", where("reducescatter"));
}

void MpiCommunicator::adasum(void* data, std::size_t count, DataType dtype) {
  MpiLinks links(world_.get(), topology_.rank, topology_.size, where("adasum"));
  adasum_allreduce(links, data, count, dtype, scratch_);
}

void MpiCommunicator::barrier() {
  mpi_check(MPI_Barrier(world_.get()), "MPI_Barrier", [&] { return where("barrier"); });
}

std::vector<std::string> MpiCommunicator::gather_to_root(const std::string& mine) {
  const int n = topology_.size;
  // Negotiation messages are small; one past 2 GiB in all would be a bug upstream, not a size to support.
  if (!fits_int(mine.size()))
    throw Error(ErrorKind::kBackend,
                where("negotiation gather") + ": a message of " + std::to_string(mine.size()) + " bytes");
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(n));
  mpi_check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, world_.get()), "MPI_Gather",
            where("negotiation gather"));
  std::vector<int> displs(static_cast<std::size_t>(n), 0);
  std::size_t total = 0;
  for (int r = 0; r < n; ++r) {
    displs[r] = static_cast<int>(std::min<std::size_t>(total, INT_MAX));
    total += static_cast<std::size_t>(lengths[r]);
  }
  if (!fits_int(total))
    throw Error(ErrorKind::kBackend, where("negotiation gather") + ": " + std::to_string(total) + " bytes in all");
  std::string all(topology_.rank == 0 ? total : 0, '\0');
  mpi_check(
      MPI_Gatherv(mine.data(), length, MPI_BYTE, all.data(), lengths.data(), displs.data(), MPI_BYTE, 0, world_.get()),
      "MPI_Gatherv", where("negotiation gather"));
  if (topology_.rank != 0) return {};
  std::vector<std::string> out;
  for (int r = 0; r < n; ++r) out.push_back(all.substr(static_cast<std::size_t>(displs[r]), lengths[r]));
  return out;
}

std::string MpiCommunicator::broadcast_from_root(const std::string& from_root) {
  std::uint64_t length = topology_.rank == 0 ? from_root.size() : 0;
  mpi_check(MPI_Bcast(&length, 1, MPI_UINT64_T, 0, world_.get()), "MPI_Bcast",
            [&] { return where("negotiation broadcast"); });
  std::string data = topology_.rank == 0 ? from_root : std::string(length, '\0');
  broadcast(data.data(), data.size(), 0);
  return data;
}

}  // namespace hvd::detail
