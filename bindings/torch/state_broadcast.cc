// broadcast_parameters, broadcast_object and metric_average: root's values everywhere, or a mean over ranks.
#include <torch/nn/module.h>

#include <cstring>
#include <string>
#include <vector>

#include "hvd/torch.h"

namespace hvd::torch {

void broadcast_parameters(const NamedTensors& named_tensors, int root) {
  ::torch::NoGradGuard no_grad;
  std::vector<TensorHandle> handles;
  handles.reserve(named_tensors.size());
  for (const auto& [name, tensor] : named_tensors) {
    Tensor data = tensor.detach();  // shares memory; lets us write into leaves that require grad
    BroadcastOptions options;
    options.root = root;
    options.name = "broadcast_parameters/" + name;
    handles.push_back(broadcast_async_(data, options));
  }
  for (auto& handle : handles) handle.wait();
}

void broadcast_parameters(const ::torch::OrderedDict<std::string, Tensor>& named_tensors, int root) {
  NamedTensors list;
  for (const auto& item : named_tensors) list.emplace_back(item.key(), item.value());
  broadcast_parameters(list, root);
}

void broadcast_parameters(const ::torch::nn::Module& module, int root) {
  NamedTensors list;
  for (const auto& item : module.named_parameters()) list.emplace_back("param/" + item.key(), item.value());
  for (const auto& item : module.named_buffers()) list.emplace_back("buffer/" + item.key(), item.value());
  broadcast_parameters(list, root);
}

std::string broadcast_object(const std::string& bytes, int root, const std::string& name) {
  const std::string prefix = "broadcast_object/" + (name.empty() ? std::string("unnamed") : name);
  Tensor length = ::torch::tensor({static_cast<std::int64_t>(bytes.size())}, ::torch::kInt64);
  broadcast_(length, {.root = root, .name = prefix + "/size"});
  Tensor payload = ::torch::empty({length.item<std::int64_t>()}, ::torch::kUInt8);
  if (hvd::rank() == root) std::memcpy(payload.data_ptr(), bytes.data(), bytes.size());
  broadcast_(payload, {.root = root, .name = prefix + "/bytes"});
  return std::string(static_cast<const char*>(payload.data_ptr()), static_cast<std::size_t>(payload.numel()));
}

double metric_average(double value, const std::string& name) {
  Tensor t = ::torch::tensor({value}, ::torch::kFloat64);
  AllreduceOptions options;
  options.op = ReduceOp::kAverage;
  options.name = "metric_average/" + name;
  allreduce_(t, options);
  return t.item<double>();
}

}  // namespace hvd::torch
