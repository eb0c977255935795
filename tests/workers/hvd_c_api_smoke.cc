// The C API end to end, written as a C user would (only hvd/c_api.h): init, queries, a blocking and an async
// allreduce, an allgather whose output the handle owns, the error string of a failing call. Exits 0 when all hold.
#include <stdio.h>

#include "hvd/c_api.h"

int main(void) {
  if (hvd_init() != 0) {
    fprintf(stderr, "hvd_init: %s\n", hvd_last_error());
    return 1;
  }
  int rank = hvd_rank(), size = hvd_size(), bad = 0;
  float v[3] = {1, 2, 3};
  if (hvd_allreduce(v, v, 3, HVD_FLOAT32, HVD_SUM, 1.0, 1.0, "c/sum") != 0 || v[2] != 3.0f * size) ++bad;
  hvd_handle* h = NULL;
  double d[2] = {(double)rank, 1};
  if (hvd_allreduce_async(d, d, 2, HVD_FLOAT64, HVD_AVERAGE, 1.0, 1.0, NULL, &h) != 0 || hvd_wait(h) != 0) ++bad;
  hvd_handle_release(h);
  if (d[1] != 1.0) ++bad;
  int64_t shape[1] = {2};
  int32_t mine[2] = {rank, rank};
  if (hvd_allgather_async(mine, shape, 1, HVD_INT32, "c/gather", &h) != 0 || hvd_wait(h) != 0) ++bad;
  const void* out = NULL;
  int64_t out_shape[4];
  int ndim = 0;
  hvd_handle_output(h, &out, out_shape, 4, &ndim);
  if (ndim != 1 || out_shape[0] != 2 * size || ((const int32_t*)out)[2 * size - 1] != size - 1) ++bad;
  hvd_handle_release(h);
  if (hvd_broadcast(v, 3, HVD_FLOAT32, size + 5, "c/badroot") == 0) ++bad;
  printf("rank %d: c api %s; bad root says: %s\n", rank, bad ? "FAILED" : "ok", hvd_last_error());
  hvd_shutdown();
  return bad ? 1 : 0;
}
