/* Error kinds through the C API: `mismatch` (np >= 2): the last rank allreduces float64 where the others send
 * float32, so every rank must get HVD_ERROR_MISMATCH naming the tensor, then a bad dtype gives HVD_ERROR_USAGE and
 * a good allreduce still works. `peer-lost` (np >= 2): the last rank exits (code 0) after a warm-up and the others
 * must get HVD_ERROR_PEER_LOST from a later allreduce. `stall` (with HOROVOD_STALL_SHUTDOWN_TIME_SECONDS set): rank 0
 * and the others allreduce different names, so the stall inspector fails both with HVD_ERROR_STALL. Each rank prints
 * "rank R: kind K ..." per failure seen and exits 0 when the kinds are the expected ones, 1 otherwise. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hvd/c_api.h"

static const char* kind_name(hvd_error_kind k) {
  static const char* names[] = {"none", "internal", "usage", "peer-lost", "mismatch", "stall", "backend"};
  return (int)k >= 0 && (int)k <= HVD_ERROR_BACKEND ? names[k] : "?";
}

/* Prints the last failure and says whether it has the expected kind. */
static int report(int rank, hvd_error_kind expected) {
  hvd_error_info info;
  hvd_last_error_info(&info);
  printf("rank %d: kind %s tensor '%s' peer %d: %s\n", rank, kind_name(info.kind), info.tensor, info.peer,
         hvd_last_error());
  fflush(stdout);
  return info.kind == expected && hvd_last_error_kind() == expected;
}

static int mismatch(int rank, int size) {
  float f[16] = {0};
  double d[16] = {0};
  int ok = 1;
  int rc = rank == size - 1 ? hvd_allreduce(d, d, 16, HVD_FLOAT64, HVD_SUM, 1, 1, "kinds.mismatch")
                            : hvd_allreduce(f, f, 16, HVD_FLOAT32, HVD_SUM, 1, 1, "kinds.mismatch");
  if (rc != -1 || !report(rank, HVD_ERROR_MISMATCH)) ok = 0;
  hvd_error_info info;
  hvd_last_error_info(&info);
  if (strcmp(info.tensor, "kinds.mismatch") != 0) ok = 0;
  if (hvd_allreduce(f, f, 16, (hvd_dtype)99, HVD_SUM, 1, 1, "kinds.usage") != -1 || !report(rank, HVD_ERROR_USAGE))
    ok = 0;
  for (int i = 0; i < 16; ++i) f[i] = 1.0f;
  if (hvd_allreduce(f, f, 16, HVD_FLOAT32, HVD_SUM, 1, 1, "kinds.after") != 0 || f[0] != (float)size) {
    printf("rank %d: the allreduce after the failures failed: %s\n", rank, hvd_last_error());
    ok = 0;
  }
  return ok;
}

static int peer_lost(int rank, int size) {
  float f[1024] = {0};
  for (int i = 0; i < 3; ++i) {
    if (hvd_allreduce(f, f, 1024, HVD_FLOAT32, HVD_SUM, 1, 1, "kinds.warmup") != 0) return report(rank, HVD_ERROR_NONE);
  }
  if (rank == size - 1) _exit(0); /* without hvd_shutdown(): the others see the connection drop */
  /* Bounded: the survivors' ops must fail within seconds of the exit. */
  for (int i = 0; i < 10000; ++i) {
    if (hvd_allreduce(f, f, 1024, HVD_FLOAT32, HVD_SUM, 1, 1, "kinds.after_exit") != 0)
      return report(rank, HVD_ERROR_PEER_LOST);
    usleep(1000);
  }
  printf("rank %d: allreduces kept succeeding after rank %d exited\n", rank, size - 1);
  return 0;
}

static int stall(int rank) {
  float f[4] = {0};
  const int rc = hvd_allreduce(f, f, 4, HVD_FLOAT32, HVD_SUM, 1, 1, rank == 0 ? "kinds.rank0" : "kinds.others");
  return rc == -1 && report(rank, HVD_ERROR_STALL);
}

int main(int argc, char** argv) {
  const char* mode = argc == 2 ? argv[1] : "";
  if (strcmp(mode, "mismatch") != 0 && strcmp(mode, "peer-lost") != 0 && strcmp(mode, "stall") != 0) {
    fprintf(stderr, "usage: hvd_error_kinds mismatch|peer-lost|stall\n");
    return 2;
  }
  if (hvd_last_error_kind() != HVD_ERROR_NONE) return 1;
  if (hvd_init() != 0) {
    fprintf(stderr, "hvd_init: %s\n", hvd_last_error());
    return 1;
  }
  const int rank = hvd_rank(), size = hvd_size();
  const int ok = strcmp(mode, "mismatch") == 0 ? mismatch(rank, size)
                 : strcmp(mode, "stall") == 0  ? stall(rank)
                                               : peer_lost(rank, size);
  hvd_shutdown();
  return ok ? 0 : 1;
}
