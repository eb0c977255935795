// IDX reader: big-endian header (magic, dimension sizes), then unsigned bytes. gzread reads plain files too.
#include "examples/fashion_mnist_data.h"

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

namespace hvd::examples {
namespace {

constexpr double kMean = 0.2860;  // Fashion-MNIST training set pixel mean and std (of values in [0, 1])
constexpr double kStd = 0.3530;

std::string find_file(const std::string& dir, const std::string& stem) {
  for (const std::string& name : {stem + ".gz", stem}) {
    if (std::filesystem::exists(std::filesystem::path(dir) / name)) return (std::filesystem::path(dir) / name).string();
  }
  throw std::runtime_error("fashion-mnist: neither " + dir + "/" + stem + ".gz nor " + dir + "/" + stem +
                           " exists; install dataset-fashion-mnist or pass --data-dir");
}

// Returns the dimension sizes after checking the magic number; `data` gets the payload bytes.
std::vector<std::int64_t> read_idx(const std::string& path, int expected_dims, std::vector<std::uint8_t>& data) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw std::runtime_error("fashion-mnist: cannot open " + path);
  auto read_exact = [&](void* out, std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      int got = gzread(file.get(), static_cast<char*>(out) + done, static_cast<unsigned>(n - done));
      if (got <= 0) throw std::runtime_error("fashion-mnist: " + path + " is truncated or not gzip/IDX");
      done += static_cast<std::size_t>(got);
    }
  };
  auto read_u32 = [&] {
    unsigned char b[4];
    read_exact(b, 4);
    return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | b[3];
  };
  const std::uint32_t magic = read_u32();
  if (magic != 0x800u + static_cast<std::uint32_t>(expected_dims)) {
    throw std::runtime_error("fashion-mnist: " + path + " has magic number " + std::to_string(magic) +
                             ", expected " + std::to_string(0x800 + expected_dims) + " (unsigned bytes, " +
                             std::to_string(expected_dims) + " dimensions)");
  }
  std::vector<std::int64_t> dims;
  std::int64_t count = 1;
  for (int i = 0; i < expected_dims; ++i) {
    dims.push_back(read_u32());
    count *= dims.back();
  }
  data.resize(static_cast<std::size_t>(count));
  read_exact(data.data(), data.size());
  return dims;
}

}  // namespace

FashionMnist load_fashion_mnist(const std::string& dir, bool train) {
  const std::string prefix = train ? "train" : "t10k";
  std::vector<std::uint8_t> image_bytes, label_bytes;
  const std::string image_path = find_file(dir, prefix + "-images-idx3-ubyte");
  const std::string label_path = find_file(dir, prefix + "-labels-idx1-ubyte");
  auto image_dims = read_idx(image_path, 3, image_bytes);
  auto label_dims = read_idx(label_path, 1, label_bytes);
  if (image_dims[0] != label_dims[0]) {
    throw std::runtime_error("fashion-mnist: " + image_path + " has " + std::to_string(image_dims[0]) + " images but " +
                             label_path + " has " + std::to_string(label_dims[0]) + " labels");
  }
  auto u8 = ::torch::TensorOptions().dtype(::torch::kUInt8);
  FashionMnist out;
  out.images = ::torch::from_blob(image_bytes.data(), {image_dims[0], 1, image_dims[1], image_dims[2]}, u8)
                   .to(::torch::kFloat32)
                   .div_(255.0)
                   .sub_(kMean)
                   .div_(kStd);
  out.labels = ::torch::from_blob(label_bytes.data(), {label_dims[0]}, u8).to(::torch::kInt64);
  return out;
}

::torch::data::Example<> FashionMnistDataset::get_batch(::c10::ArrayRef<std::size_t> indices) {
  std::vector<std::int64_t> idx(indices.begin(), indices.end());
  auto index = ::torch::tensor(idx, ::torch::kInt64);
  return {data_.images.index_select(0, index), data_.labels.index_select(0, index)};
}

}  // namespace hvd::examples
