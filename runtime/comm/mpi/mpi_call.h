// Checks MPI return codes: the communicators run with MPI_ERRORS_RETURN, so a failed call becomes an hvd::Error
// naming the call, this rank and host and MPI's own text, instead of MPI's default of aborting the job silently.
#pragma once

#include <mpi.h>

#include <concepts>
#include <string>

#include "hvd/error.h"

namespace hvd::detail {

inline std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

// `where` says what and where: "allreduce on rank 3 (h2)".
inline void mpi_check(int code, const char* call, const std::string& where) {
  if (code != MPI_SUCCESS) throw Error(ErrorKind::kBackend, where + ": " + call + " failed: " + mpi_error_text(code));
}

// The same, with `where` built only on failure: the per-op calls must not pay a string per call (~0.3 us).
template <std::invocable Where>
inline void mpi_check(int code, const char* call, Where&& where) {
  if (code != MPI_SUCCESS) mpi_check(code, call, std::string(where()));
}

// Whether the program already ended MPI (objects must then not be freed: Open MPI aborts on any call).
inline bool mpi_finalized() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  return finalized != 0;
}

}  // namespace hvd::detail
