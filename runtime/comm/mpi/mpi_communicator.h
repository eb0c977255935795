// The Open MPI backend: every collective the engine runs, on MPI. Chosen when mpirun started the process or when
// HOROVOD_CONTROLLER / HOROVOD_CPU_OPERATIONS say mpi (comm/cpu_backend.h). Ranks, sizes and hosts come from MPI:
// the world communicator (a duplicate, so the program's own MPI traffic never mixes with ours), the local one
// from MPI_Comm_split_type(SHARED) and the cross one split by local rank.
// MPI is started with MPI_THREAD_MULTIPLE unless the program started it (SERIALIZED is accepted with a warning,
// less refused: hvd calls MPI from its background thread); hvd finalizes only what it started, and MPI cannot
// start twice in one process. A program that started MPI must call hvd::shutdown() before its MPI_Finalize.
// Sizes past MPI's int counts take hvd's own algorithms over MPI point-to-point (MpiLinks) instead.
// Unlike the built-in transport, MPI's waits poll (Open MPI yields the core when oversubscribed, or with
// mpi_yield_when_idle, which hvdrun --mpi sets when ranks outnumber cores).
#pragma once

#include <mpi.h>

#include <string>

#include "runtime/comm/algo/algorithms.h"
#include "runtime/comm/communicator.h"
#include "runtime/comm/mpi/mpi_datatypes.h"

namespace hvd::detail {

// MPI_Init_thread / MPI_Finalize for the runtime's lifetime.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  bool started_here_ = false;
};

// An owned communicator, freed on destruction.
class MpiComm {
 public:
  MpiComm() = default;
  explicit MpiComm(MPI_Comm comm) : comm_(comm) {}
  ~MpiComm();
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;
  MPI_Comm get() const { return comm_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

class MpiCommunicator : public Communicator {
 public:
  // hostname: this process's host as hvd reports it (HOROVOD_HOSTNAME, else the system's name).
  explicit MpiCommunicator(const std::string& hostname);

  const Topology& topology() const override { return topology_; }
  void allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) override;
  void allgatherv(const void* in, void* out, const std::vector<std::size_t>& bytes) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  void alltoallv(const void* in, const std::vector<std::size_t>& send_bytes, void* out,
                 const std::vector<std::size_t>& recv_bytes) override;
  void reducescatter(const void* in, void* out, const std::vector<std::size_t>& counts, DataType dtype,
                     ReduceOp op) override;
  void adasum(void* data, std::size_t count, DataType dtype) override;
  void barrier() override;
  void cross_allreduce(void* data, std::size_t count, DataType dtype, ReduceOp op) override;
  std::vector<std::string> gather_to_root(const std::string& mine) override;
  std::string broadcast_from_root(const std::string& from_root) override;
  std::unique_ptr<Communicator> subset(const std::vector<int>& ranks, Store& store, const std::string& key,
                                       const CommunicatorOptions& options) override;

 private:
  // A process set's communicator over `owned` (freed with it); MPI_COMM_NULL: a duplicate of MPI_COMM_WORLD, made
  // once session_ has started MPI.
  MpiCommunicator(MPI_Comm owned, const std::string& hostname);
  std::string where(const char* op) const;  // "allreduce on rank 3 (h2)"
  void allreduce_on(MPI_Comm comm, const char* op_name, void* data, std::size_t count, DataType dtype, ReduceOp op);

  MpiSession session_;  // first: MPI starts before and stops after everything below
  MpiComm world_, local_, cross_;
  MpiComm split_base_;  // process sets split here, never where the engine's thread runs collectives
  MpiDatatypes types_;
  Topology topology_;
  Scratch scratch_;
};

}  // namespace hvd::detail
