/* The C API's arguments fuzzed, in C as a C user writes it: each rank makes thousands of random bad calls (enum
 * values out of range, negative counts and dimensions, NULL pointers, bad roots and splits, non-finite scales,
 * NULL handles), each of which must return -1 with an error naming the problem, interleaved with good
 * collectives whose results must still be right. Ranks make different bad calls (the seed is per rank): a bad
 * call must fail alone, take no name from the call order (the good ops are unnamed) and leave the job running.
 * Usage: hvd_c_api_fuzz [ROUNDS] [SEED]. Exits 0 when every check holds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hvd/c_api.h"

static int g_rank, g_size, g_failures;

static void expect_failure(int rc, const char* call, const char* keyword) {
  const char* why = hvd_last_error();
  if (rc != -1 || !why || !strstr(why, keyword)) {
    fprintf(stderr, "rank %d: bad call %s returned %d with error '%s' (wanted -1 and '%s')\n", g_rank, call, rc,
            why ? why : "(null)", keyword);
    ++g_failures;
  }
}

static void expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "rank %d: good call %s: %s\n", g_rank, what, hvd_last_error());
    ++g_failures;
  }
}

static int bad_enum(unsigned* seed, int valid_count) {
  static const int extremes[] = {-1, -2147483647 - 1, 2147483647, 256, 300};
  int r = rand_r(seed) % 3;
  if (r == 0) return extremes[rand_r(seed) % 5];
  if (r == 1) return valid_count + rand_r(seed) % 1000;
  return -1 - rand_r(seed) % 1000;
}

/* One random bad call. */
static void bad_call(unsigned* seed) {
  float buf[8] = {0};
  int64_t shape[2] = {4, 2};
  int64_t splits[64];
  hvd_handle* h = NULL;
  int kind = rand_r(seed) % 20;
  switch (kind) {
    case 0:
      expect_failure(hvd_allreduce(buf, buf, 8, (hvd_dtype)bad_enum(seed, 11), HVD_SUM, 1, 1, NULL), "allreduce dtype",
                     "unknown dtype");
      break;
    case 1:
      expect_failure(hvd_allreduce(buf, buf, 8, HVD_FLOAT32, (hvd_reduce_op)bad_enum(seed, 6), 1, 1, NULL),
                     "allreduce op", "unknown reduce op");
      break;
    case 2:
      expect_failure(hvd_allreduce(buf, buf, -1 - rand_r(seed) % 100000, HVD_FLOAT32, HVD_SUM, 1, 1, NULL),
                     "allreduce count", "negative");
      break;
    case 3:
      expect_failure(hvd_allreduce(NULL, buf, 1 + rand_r(seed) % 8, HVD_FLOAT32, HVD_SUM, 1, 1, "fuzz/null-in"),
                     "allreduce NULL in", "no data pointer");
      break;
    case 4:
      expect_failure(hvd_allreduce_async(buf, buf, 8, HVD_FLOAT32, HVD_SUM, 1, 1, NULL, NULL), "allreduce NULL handle",
                     "NULL");
      break;
    case 5: {
      int root = rand_r(seed) % 2 ? g_size + rand_r(seed) % 1000 : -1 - rand_r(seed) % 1000;
      expect_failure(hvd_broadcast(buf, 8, HVD_FLOAT32, root, NULL), "broadcast root", "is not a rank");
      break;
    }
    case 6:
      expect_failure(hvd_broadcast(buf, 8, (hvd_dtype)bad_enum(seed, 11), 0, NULL), "broadcast dtype", "unknown dtype");
      break;
    case 7:
      expect_failure(hvd_allgather_async(buf, shape, -1 - rand_r(seed) % 50, HVD_FLOAT32, NULL, &h), "allgather ndim",
                     "ndim");
      break;
    case 8:
      expect_failure(hvd_allgather_async(buf, shape, HVD_MAX_NDIM + 1 + rand_r(seed) % 1000, HVD_FLOAT32, NULL, &h),
                     "allgather huge ndim", "ndim");
      break;
    case 9:
      expect_failure(hvd_allgather_async(buf, NULL, 2, HVD_FLOAT32, NULL, &h), "allgather NULL shape", "shape is NULL");
      break;
    case 10: {
      int64_t negative[2] = {4, -1 - rand_r(seed) % 100};
      expect_failure(hvd_allgather(buf, negative, 2, HVD_FLOAT32, NULL, &h), "allgather negative dim",
                     "negative dimension");
      break;
    }
    case 11: {
      int64_t huge[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
      expect_failure(hvd_allgather(buf, huge, 2, HVD_FLOAT32, NULL, &h), "allgather overflow", "more elements");
      break;
    }
    case 12:
      expect_failure(hvd_allgather(buf, shape, 0, HVD_FLOAT32, NULL, &h), "allgather scalar", "scalar");
      break;
    case 13: {
      for (int i = 0; i < g_size; ++i) splits[i] = 0;
      splits[rand_r(seed) % g_size] = -1 - rand_r(seed) % 10;
      expect_failure(hvd_alltoall(buf, shape, 2, HVD_FLOAT32, splits, NULL, &h), "alltoall negative split", "split");
      break;
    }
    case 14: {
      for (int i = 0; i < g_size; ++i) splits[i] = 1 + rand_r(seed) % 5; /* sum is >= size; rows are 4 */
      splits[0] += 4;
      expect_failure(hvd_alltoall(buf, shape, 2, HVD_FLOAT32, splits, NULL, &h), "alltoall split sum", "add up");
      break;
    }
    case 15:
      expect_failure(hvd_reducescatter(buf, shape, 2, HVD_FLOAT32, HVD_ADASUM, NULL, &h), "reducescatter adasum",
                     "adasum");
      break;
    case 16:
      expect_failure(hvd_reducescatter_async(buf, shape, 2, HVD_INT32, (hvd_reduce_op)bad_enum(seed, 6), NULL, &h),
                     "reducescatter op", "unknown reduce op");
      break;
    case 17:
      expect_failure(hvd_allreduce(buf, buf, 8, HVD_INT32, HVD_ADASUM, 1, 1, NULL), "adasum int32", "floating-point");
      break;
    case 18: {
      double scale = rand_r(seed) % 2 ? NAN : INFINITY;
      expect_failure(hvd_allreduce(buf, buf, 8, HVD_FLOAT32, HVD_SUM, scale, 1, NULL), "allreduce scale", "finite");
      break;
    }
    default: {
      int which = rand_r(seed) % 4;
      if (which == 0) expect_failure(hvd_wait(NULL), "wait NULL", "NULL");
      if (which == 1) expect_failure(hvd_poll(NULL), "poll NULL", "NULL");
      if (which == 2) expect_failure(hvd_handle_output(NULL, NULL, NULL, 0, NULL), "output NULL", "NULL");
      if (which == 3) expect_failure(hvd_handle_received_splits(NULL, NULL, 0), "splits NULL", "NULL");
      break;
    }
  }
}

/* One good collective, unnamed, checked against what every rank can compute. */
static void good_call(int round) {
  char what[64];
  int kind = round % 4;
  snprintf(what, sizeof what, "round %d kind %d", round, kind);
  if (kind == 0) {
    int64_t v[3] = {g_rank + 1, round, 1};
    expect(hvd_allreduce(v, v, 3, HVD_INT64, HVD_SUM, 1, 1, NULL) == 0, what);
    expect(v[0] == (int64_t)g_size * (g_size + 1) / 2 && v[1] == (int64_t)round * g_size && v[2] == g_size, what);
  } else if (kind == 1) {
    double v[2] = {g_rank == 0 ? round : -1, g_rank == 0 ? 0.5 : -1};
    expect(hvd_broadcast(v, 2, HVD_FLOAT64, 0, NULL) == 0 && v[0] == round && v[1] == 0.5, what);
  } else if (kind == 2) {
    int32_t mine[2] = {g_rank, round};
    int64_t shape[2] = {1, 2}, out_shape[2] = {0, 0};
    const void* out = NULL;
    int ndim = 0;
    hvd_handle* h = NULL;
    expect(
        hvd_allgather(mine, shape, 2, HVD_INT32, NULL, &h) == 0 && hvd_handle_output(h, &out, out_shape, 2, &ndim) == 0,
        what);
    if (h) {
      const int32_t* o = (const int32_t*)out;
      expect(ndim == 2 && out_shape[0] == g_size && out_shape[1] == 2, what);
      for (int r = 0; r < g_size && out; ++r) expect(o[2 * r] == r && o[2 * r + 1] == round, what);
      hvd_handle_release(h);
    }
  } else {
    /* reducescatter of size rows of [rank+1, round]: this rank's row is the sum over ranks. */
    float rows[2 * 64];
    int64_t shape[2] = {g_size, 2}, out_shape[2] = {0, 0};
    const void* out = NULL;
    int ndim = 0;
    hvd_handle* h = NULL;
    for (int r = 0; r < g_size; ++r) rows[2 * r] = (float)(g_rank + 1), rows[2 * r + 1] = (float)round;
    expect(hvd_reducescatter(rows, shape, 2, HVD_FLOAT32, HVD_SUM, NULL, &h) == 0 &&
               hvd_handle_output(h, &out, out_shape, 2, &ndim) == 0,
           what);
    if (h) {
      const float* o = (const float*)out;
      expect(ndim == 2 && out_shape[0] == 1 && out_shape[1] == 2, what);
      expect(out && o[0] == (float)g_size * (g_size + 1) / 2 && o[1] == (float)round * g_size, what);
      hvd_handle_release(h);
    }
  }
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 3000;
  unsigned seed0 = argc > 2 ? (unsigned)atoi(argv[2]) : 12345u;
  float x = 1;
  /* Before init: a failed call, not a crash. */
  expect_failure(hvd_rank(), "rank before init", "init");
  expect_failure(hvd_allreduce(&x, &x, 1, HVD_FLOAT32, HVD_SUM, 1, 1, NULL), "allreduce before init", "init");
  if (hvd_init() != 0) {
    fprintf(stderr, "hvd_init: %s\n", hvd_last_error());
    return 1;
  }
  g_rank = hvd_rank();
  g_size = hvd_size();
  if (g_size > 64) return 2;
  unsigned seed = seed0 + 7919u * (unsigned)g_rank;
  int good = 0;
  for (int i = 0; i < rounds; ++i) {
    /* A different number of bad calls on each rank between two good ones. */
    int bad = rand_r(&seed) % 8;
    for (int b = 0; b < bad; ++b) bad_call(&seed);
    if (i % 4 == 0) good_call(good++);
  }
  expect(hvd_barrier() == 0, "final barrier");
  printf("rank %d: %d rounds, %d good collectives, %d failures\n", g_rank, rounds, good, g_failures);
  hvd_shutdown();
  return g_failures ? 1 : 0;
}
