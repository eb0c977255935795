/* libhvd's C API: init, the queries and the collectives on raw CPU buffers, so other languages can bind without
 * the C++ ABI. Functions returning int return 0 (or a non-negative value) on success and -1 on failure; then
 * hvd_last_error() says why and hvd_last_error_kind() what kind of failure it was (per thread, valid until the
 * thread's next failing call). Async ops hand out an hvd_handle that the caller must release with
 * hvd_handle_release(). */
#ifndef HVD_C_API_H_
#define HVD_C_API_H_

#include <stdint.h>

#include "hvd/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The values are hvd::DataType's and hvd::ReduceOp's. Any other value is refused by the call (-1, "unknown dtype
 * 99; pass one of HVD_UINT8 (0) ... HVD_BOOL (10)"), as are negative counts, NULL pointers where data is needed,
 * a root that is not a rank and splits that do not add up: a bad call fails alone and the job goes on. */
typedef enum {
  HVD_UINT8 = 0,
  HVD_INT8 = 1,
  HVD_UINT16 = 2,
  HVD_INT16 = 3,
  HVD_INT32 = 4,
  HVD_INT64 = 5,
  HVD_FLOAT16 = 6,
  HVD_BFLOAT16 = 7,
  HVD_FLOAT32 = 8,
  HVD_FLOAT64 = 9,
  HVD_BOOL = 10
} hvd_dtype;
typedef enum { HVD_SUM = 0, HVD_AVERAGE = 1, HVD_MIN = 2, HVD_MAX = 3, HVD_PRODUCT = 4, HVD_ADASUM = 5 } hvd_reduce_op;

/* The most dimensions a shape may have here. */
#define HVD_MAX_NDIM 32

typedef struct hvd_handle hvd_handle;

/* The kind of the thread's last failure (hvd::ErrorKind's values), so a binding can raise a matching exception
 * without parsing the message: a bad argument or variable is USAGE and the job goes on; PEER_LOST, MISMATCH and
 * STALL end the job. */
typedef enum {
  HVD_ERROR_NONE = 0, /* no call on this thread has failed yet */
  HVD_ERROR_INTERNAL = 1,
  HVD_ERROR_USAGE = 2,
  HVD_ERROR_PEER_LOST = 3,
  HVD_ERROR_MISMATCH = 4,
  HVD_ERROR_STALL = 5,
  HVD_ERROR_BACKEND = 6,
  HVD_ERROR_MEMBERSHIP = 7 /* elastic: the job is being re-formed; reset and go on */
} hvd_error_kind;

/* Where the last failure happened: ranks are -1 and strings "" where unknown; the strings stay valid until the
 * thread's next failing call. */
typedef struct {
  hvd_error_kind kind;
  int rank;           /* the rank that raised it */
  int peer;           /* the other rank involved: the lost peer, the rank that disagrees */
  const char* host;   /* the raising rank's host */
  const char* tensor; /* the tensor's name */
} hvd_error_info;

HVD_API const char* hvd_last_error(void);
HVD_API hvd_error_kind hvd_last_error_kind(void);
HVD_API void hvd_last_error_info(hvd_error_info* info);

HVD_API int hvd_init(void);
HVD_API int hvd_shutdown(void);
HVD_API int hvd_is_initialized(void);
HVD_API int hvd_rank(void);
HVD_API int hvd_size(void);
HVD_API int hvd_local_rank(void);
HVD_API int hvd_local_size(void);
HVD_API int hvd_cross_rank(void);
HVD_API int hvd_cross_size(void);

/* Timeline at run time (hvd/timeline.h): mark_cycles non-zero adds an instant event per engine cycle. */
HVD_API int hvd_start_timeline(const char* file, int mark_cycles);
HVD_API int hvd_stop_timeline(void);

/* `name` may be NULL (named from call order). `out` may equal `in`. */
HVD_API int hvd_allreduce(const void* in, void* out, int64_t count, hvd_dtype dtype, hvd_reduce_op op, double prescale,
                          double postscale, const char* name);
HVD_API int hvd_allreduce_async(const void* in, void* out, int64_t count, hvd_dtype dtype, hvd_reduce_op op,
                                double prescale, double postscale, const char* name, hvd_handle** handle);
HVD_API int hvd_broadcast(void* data, int64_t count, hvd_dtype dtype, int root, const char* name);
HVD_API int hvd_broadcast_async(void* data, int64_t count, hvd_dtype dtype, int root, const char* name,
                                hvd_handle** handle);
/* Outputs are owned by the handle: read them with hvd_handle_output() after hvd_wait(). The blocking forms
 * (hvd_allgather, hvd_alltoall, hvd_reducescatter) wait themselves and hand out the finished handle, whose output
 * is read the same way; release it with hvd_handle_release(). */
HVD_API int hvd_allgather_async(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const char* name,
                                hvd_handle** handle);
/* `splits` has size() entries, or is NULL for equal parts. */
HVD_API int hvd_alltoall_async(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const int64_t* splits,
                               const char* name, hvd_handle** handle);
HVD_API int hvd_reducescatter_async(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, hvd_reduce_op op,
                                    const char* name, hvd_handle** handle);
HVD_API int hvd_allgather(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const char* name,
                          hvd_handle** result);
HVD_API int hvd_alltoall(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, const int64_t* splits,
                         const char* name, hvd_handle** result);
HVD_API int hvd_reducescatter(const void* in, const int64_t* shape, int ndim, hvd_dtype dtype, hvd_reduce_op op,
                              const char* name, hvd_handle** result);
HVD_API int hvd_barrier(void);
HVD_API int hvd_join(void); /* returns the last rank to join */

/* Process sets (hvd/process_set.h). hvd_init_process_sets: num_sets sets, set s is set_sizes[s] ranks taken in turn
 * from `ranks`; ids 1.. in that order. hvd_add_process_set returns the new id (HOROVOD_DYNAMIC_PROCESS_SETS=1);
 * both, and hvd_remove_process_set, are collective over every rank. hvd_use_process_set(id): the calling thread's
 * later collectives (and hvd_barrier) run on set `id` (0: the global set); returns the previous id. */
HVD_API int hvd_init_process_sets(const int* ranks, const int* set_sizes, int num_sets);
HVD_API int hvd_add_process_set(const int* ranks, int count);
HVD_API int hvd_remove_process_set(int id);
HVD_API int hvd_process_set_rank(int id); /* this rank's place in the set, -1 outside it */
HVD_API int hvd_process_set_size(int id);
HVD_API int hvd_process_set_ranks(int id, int* ranks, int max_count); /* returns the count */
HVD_API int hvd_use_process_set(int id);

/* An exception nobody caught, for hvdrun's root-cause report: a framework module's exception hook hands it to
 * hvd_record_uncaught, so that one rule, libhvd's, decides whether it is a cause or a consequence of another
 * rank's failure. Strings may be NULL (empty). */
typedef struct {
  const char* source;        /* who saw it: "python" */
  const char* type_name;     /* "RuntimeError" */
  const char* message;       /* may span lines */
  const char* const* frames; /* the traceback's last frames, innermost last, each may span lines */
  int num_frames;
  int is_hvd_error; /* an hvd error (HorovodInternalError): peer and tensor are its fields */
  int peer;         /* the rank the error is down to, -1 none */
  const char* tensor;
} hvd_uncaught_exception;

/* Records `e` in the failure record file `path` (the worker's HVD_ERROR_FILE) as this rank's: a cause, or a
 * consequence of the rank it is down to (the one the engine recorded when it stopped, or the error's peer). Returns
 * 0, or -1 on a NULL argument; a record that cannot be written is skipped (a report never fails a rank). */
HVD_API int hvd_record_uncaught(const char* path, const hvd_uncaught_exception* e);

HVD_API int hvd_poll(hvd_handle* handle); /* 1 done, 0 running */
HVD_API int hvd_wait(hvd_handle* handle); /* 0, or -1 with the op's error in hvd_last_error() */
/* After hvd_wait() (-1 before): the output's data and shape (up to max_ndim dimensions; *ndim gets the real
 * count). */
HVD_API int hvd_handle_output(hvd_handle* handle, const void** data, int64_t* shape, int max_ndim, int* ndim);
/* Alltoall: rows received from each rank (size() entries). */
HVD_API int hvd_handle_received_splits(hvd_handle* handle, int64_t* splits, int max_count);
HVD_API void hvd_handle_release(hvd_handle* handle);

#ifdef __cplusplus
}
#endif

#endif /* HVD_C_API_H_ */
