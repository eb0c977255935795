// Resolving MXNet's C API at run time, and the two things hvd.mxnet asks of it: an NDArray as a TensorView, and
// an asynchronous operation pushed on its engine.
#include "mxnet_library.h"

#include <dlfcn.h>

#include <algorithm>

#include "hvd/error.h"

namespace hvd::mxnet {
namespace {

template <typename Fn>
Fn resolve(void* library, const char* symbol, const std::string& path) {
  void* found = dlsym(library, symbol);
  if (!found)
    throw Error(ErrorKind::kUsage, std::string("hvd.mxnet: ") + path + " has no " + symbol +
                                       "; hvd.mxnet needs MXNet 1.9 (its C API)");
  return reinterpret_cast<Fn>(found);
}

}  // namespace

MxnetLibrary::MxnetLibrary(const std::string& path) {
  // RTLD_NOLOAD: the library Python imported, never a second copy with its own engine.
  library_ = dlopen(path.c_str(), RTLD_NOLOAD | RTLD_NOW);
  if (!library_) {
    const char* why = dlerror();
    throw Error(ErrorKind::kUsage, "hvd.mxnet: libmxnet at '" + path + "' is not loaded in this process (" +
                                       (why ? why : "unknown") + "); import mxnet before hvd.mxnet");
  }
  push_async_ = resolve<MXEnginePushAsyncNDFn>(library_, "MXEnginePushAsyncND", path);
  get_data_ = resolve<MXNDArrayGetDataFn>(library_, "MXNDArrayGetData", path);
  get_shape_ = resolve<MXNDArrayGetShapeExFn>(library_, "MXNDArrayGetShapeEx", path);
  get_dtype_ = resolve<MXNDArrayGetDTypeFn>(library_, "MXNDArrayGetDType", path);
  get_context_ = resolve<MXNDArrayGetContextFn>(library_, "MXNDArrayGetContext", path);
  last_error_ = resolve<MXGetLastErrorFn>(library_, "MXGetLastError", path);
  detach_ = resolve<MXNDArrayDetachFn>(library_, "MXNDArrayDetach", path);
  free_ = resolve<MXNDArrayFreeFn>(library_, "MXNDArrayFree", path);
}

MxnetLibrary::~MxnetLibrary() {
  if (library_) dlclose(library_);  // drops the reference RTLD_NOLOAD took; Python keeps the library loaded
}

void MxnetLibrary::check(int rc, const char* call) const {
  if (rc != 0) throw Error(ErrorKind::kBackend, std::string("hvd.mxnet: ") + call + " failed: " + last_error_());
}

TensorView MxnetLibrary::describe(NDArrayHandle array) const {
  int dev_type = 0, dev_id = 0;
  check(get_context_(array, &dev_type, &dev_id), "MXNDArrayGetContext");
  if (dev_type == kDevGPU)
    throw Error(ErrorKind::kUsage, "hvd.mxnet: GPU NDArrays are not supported yet; copy to mx.cpu() first");
  int mx_dtype = 0;
  check(get_dtype_(array, &mx_dtype), "MXNDArrayGetDType");
  int ndim = 0;
  const int* dims = nullptr;
  check(get_shape_(array, &ndim, &dims), "MXNDArrayGetShapeEx");
  if (ndim < 0) throw Error(ErrorKind::kUsage, "hvd.mxnet: the NDArray's shape is unknown");
  TensorView view;
  view.dtype = to_hvd_dtype(mx_dtype);
  view.shape = Shape(dims, dims + ndim);
  check(get_data_(array, &view.data), "MXNDArrayGetData");
  return view;
}

NDArrayHandle MxnetLibrary::hold(NDArrayHandle array) const {
  NDArrayHandle held = nullptr;
  check(detach_(array, &held), "MXNDArrayDetach");
  return held;
}

void MxnetLibrary::release(NDArrayHandle held) const noexcept {
  // Frees our handle only: MXNet releases the memory once the last handle is gone and its pending ops are done.
  free_(held);
}

void MxnetLibrary::push(EngineAsyncFunc fn, void* param, EngineFuncParamDeleter deleter,
                        const std::vector<NDArrayHandle>& reads, const std::vector<NDArrayHandle>& writes,
                        int priority, const char* op_name) const {
  // MXNet's engine refuses a variable listed twice, so an in-place op's array is a write only.
  std::vector<NDArrayHandle> const_nds;
  for (auto* a : reads)
    if (std::find(writes.begin(), writes.end(), a) == writes.end() &&
        std::find(const_nds.begin(), const_nds.end(), a) == const_nds.end())
      const_nds.push_back(a);
  std::vector<NDArrayHandle> mutable_nds = writes;
  static const Context cpu{kDevCPU, 0};
  int rc = push_async_(fn, param, deleter, &cpu, const_nds.data(), static_cast<int>(const_nds.size()),
                       mutable_nds.data(), static_cast<int>(mutable_nds.size()), nullptr, priority, op_name, false);
  if (rc != 0) {
    deleter(param);  // MXNet took no ownership of param when the push failed
    check(rc, "MXEnginePushAsyncND");
  }
}

DataType to_hvd_dtype(int mx_dtype) {
  switch (static_cast<MxDType>(mx_dtype)) {
    case MxDType::kFloat32: return DataType::kFloat32;
    case MxDType::kFloat64: return DataType::kFloat64;
    case MxDType::kFloat16: return DataType::kFloat16;
    case MxDType::kBfloat16: return DataType::kBFloat16;
    case MxDType::kUint8: return DataType::kUInt8;
    case MxDType::kInt8: return DataType::kInt8;
    case MxDType::kInt16: return DataType::kInt16;
    case MxDType::kUint16: return DataType::kUInt16;
    case MxDType::kInt32: return DataType::kInt32;
    case MxDType::kInt64: return DataType::kInt64;
    case MxDType::kBool: return DataType::kBool;
    default: break;
  }
  throw Error(ErrorKind::kUsage, "hvd.mxnet: MXNet dtype code " + std::to_string(mx_dtype) +
                                     " has no hvd type (supported: float16/32/64, bfloat16, (u)int8, (u)int16, "
                                     "int32, int64, bool)");
}

}  // namespace hvd::mxnet
