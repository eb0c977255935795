// The libmxnet that Python has loaded, reached through dlopen(RTLD_NOLOAD) + dlsym: hvd.mxnet never links MXNet,
// so the extension builds without it and uses exactly the MXNet the script imported. describe() turns an NDArray
// handle into an hvd::TensorView; push() puts an asynchronous function on MXNet's engine. Errors are hvd::Error.
#pragma once

#include <string>
#include <vector>

#include "hvd/types.h"
#include "mxnet_c_api.h"

namespace hvd::mxnet {

class MxnetLibrary {
 public:
  // `path` is the file Python loaded (mxnet.base._LIB._name); it must be loaded already.
  explicit MxnetLibrary(const std::string& path);
  ~MxnetLibrary();
  MxnetLibrary(const MxnetLibrary&) = delete;
  MxnetLibrary& operator=(const MxnetLibrary&) = delete;

  // The array's memory (allocated now if MXNet deferred it), dtype and shape; only CPU arrays are accepted.
  // Call it on the engine, inside the op that uses the array: MXNet allocates a deferred array's memory inside
  // the op that first writes it, and two threads allocating it at once would each get their own buffer.
  TensorView describe(NDArrayHandle array) const;

  // A handle of our own to `array` (the same memory), so that the op can still describe it after Python freed
  // its handle; release() gives it back.
  NDArrayHandle hold(NDArrayHandle array) const;
  void release(NDArrayHandle held) const noexcept;

  // Runs fn(run_context, on_complete, param) on MXNet's engine once `reads` are ready to read and `writes` to
  // write; `deleter(param)` runs when MXNet drops the operation. A handle in both lists is passed as a write only.
  void push(EngineAsyncFunc fn, void* param, EngineFuncParamDeleter deleter, const std::vector<NDArrayHandle>& reads,
            const std::vector<NDArrayHandle>& writes, int priority, const char* op_name) const;

 private:
  void check(int rc, const char* call) const;

  void* library_ = nullptr;
  MXEnginePushAsyncNDFn push_async_ = nullptr;
  MXNDArrayGetDataFn get_data_ = nullptr;
  MXNDArrayGetShapeExFn get_shape_ = nullptr;
  MXNDArrayGetDTypeFn get_dtype_ = nullptr;
  MXNDArrayGetContextFn get_context_ = nullptr;
  MXGetLastErrorFn last_error_ = nullptr;
  MXNDArrayDetachFn detach_ = nullptr;
  MXNDArrayFreeFn free_ = nullptr;
};

// MXNet's dtype code as hvd's; throws a usage error for one hvd cannot move (uint32, uint64).
DataType to_hvd_dtype(int mx_dtype);

}  // namespace hvd::mxnet
