#include "runtime/engine/layout.h"

#include <algorithm>

namespace hvd::detail {
namespace {

std::size_t row_bytes_of(const Response& r) {
  return static_cast<std::size_t>(num_elements(tail(r.shapes[0]))) * size_of(r.dtype);
}

}  // namespace

Shape tail(const Shape& shape) { return shape.empty() ? Shape{} : Shape(shape.begin() + 1, shape.end()); }

std::int64_t rows_of(std::int64_t dim0, int rank, int size) { return dim0 / size + (rank < dim0 % size ? 1 : 0); }

std::int64_t first_row(std::int64_t dim0, int rank, int size) {
  return rank * (dim0 / size) + std::min<std::int64_t>(rank, dim0 % size);
}

AllgatherLayout allgather_layout(const Response& r, int size) {
  const std::size_t row_bytes = row_bytes_of(r);
  AllgatherLayout l;
  std::int64_t rows = 0;
  for (int q = 0; q < size; ++q) {
    l.bytes.push_back(static_cast<std::size_t>(r.rank_rows[q]) * row_bytes);
    rows += r.rank_rows[q];
  }
  l.output_shape = r.shapes[0];
  l.output_shape[0] = rows;
  l.empty = rows == 0 || row_bytes == 0;
  return l;
}

AlltoallLayout alltoall_layout(const Response& r, int rank, int size) {
  const std::size_t row_bytes = row_bytes_of(r);
  const auto n = static_cast<std::size_t>(size), me = static_cast<std::size_t>(rank);
  AlltoallLayout l;
  std::int64_t rows = 0, moved = 0;
  for (std::size_t q = 0; q < n; ++q) {
    l.send_bytes.push_back(static_cast<std::size_t>(r.splits[me * n + q]) * row_bytes);
    l.received_rows.push_back(r.splits[q * n + me]);
    l.recv_bytes.push_back(static_cast<std::size_t>(l.received_rows.back()) * row_bytes);
    rows += l.received_rows.back();
  }
  for (auto s : r.splits) moved += s;
  l.output_shape = r.shapes[0];
  l.output_shape[0] = rows;
  l.empty = moved == 0 || row_bytes == 0;
  return l;
}

}  // namespace hvd::detail
