// Fashion-MNIST (or MNIST) from IDX files, gzip-compressed as Debian's dataset-fashion-mnist ships them or plain,
// read through zlib into tensors. A BatchDataset so that a LibTorch sampler's index batch becomes one batch tensor.
#pragma once

#include <torch/data/datasets/base.h>
#include <torch/data/example.h>
#include <torch/types.h>

#include <cstddef>
#include <string>

namespace hvd::examples {

// images: float32 [N, 1, 28, 28], normalized with Fashion-MNIST's mean and std; labels: int64 [N].
// Reads <dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]; throws std::runtime_error naming the file and
// the problem (missing, truncated, bad magic number).
struct FashionMnist {
  ::torch::Tensor images;
  ::torch::Tensor labels;
};
FashionMnist load_fashion_mnist(const std::string& dir, bool train);

class FashionMnistDataset
    : public ::torch::data::datasets::BatchDataset<FashionMnistDataset, ::torch::data::Example<>> {
 public:
  explicit FashionMnistDataset(FashionMnist data) : data_(std::move(data)) {}
  ::torch::data::Example<> get_batch(::c10::ArrayRef<std::size_t> indices) override;
  ::c10::optional<std::size_t> size() const override { return static_cast<std::size_t>(data_.labels.size(0)); }

 private:
  FashionMnist data_;
};

}  // namespace hvd::examples
