// Turns CUDA and NCCL failures into hvd::Error: what failed (the call), where (rank, host, device, tensor) and the
// library's own text (cudaGetErrorString; ncclGetErrorString plus ncclGetLastError, which names the cause).
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

namespace hvd::detail {

// `where` reads "allreduce 'grad/w' on rank 1 (h2), device 1"; the message appends ": <call>: <text>".
void check_cuda(cudaError_t status, const char* call, const std::string& where);
void check_nccl(ncclResult_t status, const char* call, ncclComm_t comm, const std::string& where);
std::string cuda_text(cudaError_t status);
std::string nccl_text(ncclResult_t status, ncclComm_t comm);

}  // namespace hvd::detail
