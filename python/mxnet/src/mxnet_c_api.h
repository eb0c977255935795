// The few pieces of MXNet's C API that hvd.mxnet calls, declared here so the build needs no MXNet: the function
// types are resolved at run time from the libmxnet Python already loaded (mxnet_library.h). Each declaration is
// copied from MXNet 1.9.1's include/mxnet/c_api.h (the layouts from engine.h and base.h) and checked against the wheel.
#pragma once

#include <cstdint>

namespace hvd::mxnet {

// c_api.h: typedef void *NDArrayHandle; typedef const void *ContextHandle; typedef const void *EngineFnPropertyHandle
using NDArrayHandle = void*;
using ContextHandle = const void*;
using EngineFnPropertyHandle = const void*;
// c_api.h: typedef void (*EngineAsyncFunc)(void*, void*, void*); the arguments are (RunContext*,
// CallbackOnComplete*, func_param); typedef void (*EngineFuncParamDeleter)(void*)
using EngineAsyncFunc = void (*)(void* run_context, void* on_complete, void* param);
using EngineFuncParamDeleter = void (*)(void* param);

// c_api.h, each returning 0 on success and -1 with MXGetLastError() set.
using MXEnginePushAsyncNDFn = int (*)(EngineAsyncFunc async_func, void* func_param, EngineFuncParamDeleter deleter,
                                      ContextHandle ctx_handle, NDArrayHandle* const_nds_handle, int num_const_nds,
                                      NDArrayHandle* mutable_nds_handle, int num_mutable_nds,
                                      EngineFnPropertyHandle prop_handle, int priority, const char* opr_name,
                                      bool wait);
using MXNDArrayGetDataFn = int (*)(NDArrayHandle handle, void** out_pdata);
using MXNDArrayGetShapeExFn = int (*)(NDArrayHandle handle, int* out_dim, const int** out_pdata);
using MXNDArrayGetDTypeFn = int (*)(NDArrayHandle handle, int* out_dtype);
using MXNDArrayGetContextFn = int (*)(NDArrayHandle handle, int* out_dev_type, int* out_dev_id);
using MXGetLastErrorFn = const char* (*)();
// A new handle to the same array (its memory and engine variable), owned by the caller until MXNDArrayFree.
using MXNDArrayDetachFn = int (*)(NDArrayHandle handle, NDArrayHandle* out);
using MXNDArrayFreeFn = int (*)(NDArrayHandle handle);

// base.h, struct Context { DeviceType dev_type; int32_t dev_id; } with enum DeviceType { kCPU = 1, kGPU = 2,
// kCPUPinned = 3, kCPUShared = 5 }: MXEnginePushAsyncND dereferences ctx_handle as one (it must not be null).
struct Context {
  int dev_type;
  std::int32_t dev_id;
};
inline constexpr int kDevCPU = 1;
inline constexpr int kDevGPU = 2;

// engine.h, class CallbackOnComplete: three private members in this order, no virtual functions, no base class:
//   void (*callback_)(Engine*, void*, const dmlc::Error*); Engine* engine_; void* param_;
// operator()(error) calls callback_(engine_, param_, error). MXNet hands the engine function a pointer to one on
// its stack, so it is copied (these three pointers) before that function returns.
struct CallbackOnComplete {
  void (*callback)(void* engine, void* param, const void* error);
  void* engine;
  void* param;

  void operator()() const { callback(engine, param, nullptr); }
};
static_assert(sizeof(CallbackOnComplete) == 3 * sizeof(void*));

// mshadow/base.h, enum TypeFlag (what MXNDArrayGetDType returns).
enum class MxDType : int {
  kFloat32 = 0, kFloat64 = 1, kFloat16 = 2, kUint8 = 3, kInt32 = 4, kInt8 = 5, kInt64 = 6, kBool = 7,
  kInt16 = 8, kUint16 = 9, kUint32 = 10, kUint64 = 11, kBfloat16 = 12,
};

}  // namespace hvd::mxnet
