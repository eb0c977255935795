/* The MPI side of scripts/bench-collectives.sh: MPI_Allreduce (sum, float32) over the same sizes and with the same
 * method and output as hvd-bench: '#' comments, then "bytes median_us algbw_GBps busbw_GBps" per size (median of
 * timed iterations, the slowest rank's median, busbw = algbw x 2(n-1)/n). Each result is checked first.
 *   mpirun -np 2 build/bin/mpi-allreduce-bench --min 8 --max 256M --factor 2 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t parse_bytes(const char* s) {
  char* end = NULL;
  double v = strtod(s, &end);
  double mult = 1;
  if (*end == 'K')
    mult = 1024.0;
  else if (*end == 'M')
    mult = 1048576.0;
  else if (*end == 'G')
    mult = 1073741824.0;
  return (size_t)(v * mult);
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t lo = 8, hi = 64u << 20, list[64];
  int nlist = 0;
  double factor = 2, seconds = 0.3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--min"))
      lo = parse_bytes(argv[i + 1]);
    else if (!strcmp(argv[i], "--max"))
      hi = parse_bytes(argv[i + 1]);
    else if (!strcmp(argv[i], "--factor"))
      factor = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--time"))
      seconds = atof(argv[i + 1]);
    else if (!strcmp(argv[i], "--sizes")) {
      char* copy = strdup(argv[i + 1]);
      for (char* t = strtok(copy, ","); t && nlist < 64; t = strtok(NULL, ",")) list[nlist++] = parse_bytes(t);
      free(copy);
    }
  }
  if (nlist == 0) {
    for (double s = (double)lo; s <= (double)hi * 1.0000001 && nlist < 64; s *= factor) list[nlist++] = (size_t)s;
  }
  if (rank == 0) {
    printf("# mpi-allreduce-bench sum dtype=float32 np=%d\n# bytes median_us algbw_GBps busbw_GBps\n", size);
  }
  for (int k = 0; k < nlist; ++k) {
    size_t n = list[k] / 4 ? list[k] / 4 : 1;
    float* buf = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) buf[i] = (float)(rank + 1);
    MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    float want = (float)size * (size + 1) / 2;
    if (buf[0] != want || buf[n - 1] != want) {
      fprintf(stderr, "mpi-allreduce-bench: rank %d: wrong result at %zu bytes\n", rank, n * 4);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < 3; ++i) MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double planned = seconds / (MPI_Wtime() - t0 > 1e-7 ? MPI_Wtime() - t0 : 1e-7);
    planned = planned < 5 ? 5 : planned > 2000 ? 2000 : planned;
    MPI_Bcast(&planned, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int iters = (int)planned;
    double* us = malloc(sizeof(double) * (size_t)iters);
    for (int i = 0; i < iters; ++i) {
      double s = MPI_Wtime();
      MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      us[i] = (MPI_Wtime() - s) * 1e6;
    }
    qsort(us, (size_t)iters, sizeof(double), cmp);
    double median = us[iters / 2], worst;
    MPI_Allreduce(&median, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double algbw = (double)(n * 4) / (worst * 1e-6) / 1e9;
    if (rank == 0) {
      printf("%zu %.2f %.3f %.3f\n", n * 4, worst, algbw, algbw * 2.0 * (size - 1) / size);
      fflush(stdout);
    }
    free(us);
    free(buf);
  }
  MPI_Finalize();
  return 0;
}
