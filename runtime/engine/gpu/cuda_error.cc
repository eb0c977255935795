#include "runtime/engine/gpu/cuda_error.h"

#include "hvd/error.h"

namespace hvd::detail {

std::string cuda_text(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + " (" + cudaGetErrorString(status) + ")";
}

std::string nccl_text(ncclResult_t status, ncclComm_t comm) {
  std::string text = ncclGetErrorString(status);
  const char* last = ncclGetLastError(comm);
  if (last && *last) text += ": " + std::string(last);
  return text;
}

void check_cuda(cudaError_t status, const char* call, const std::string& where) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clears a non-sticky error so the next call does not report it again
  throw Error(ErrorKind::kBackend, where + ": " + call + ": " + cuda_text(status));
}

void check_nccl(ncclResult_t status, const char* call, ncclComm_t comm, const std::string& where) {
  if (status == ncclSuccess) return;
  throw Error(ErrorKind::kBackend, where + ": " + call + ": " + nccl_text(status, comm));
}

}  // namespace hvd::detail
