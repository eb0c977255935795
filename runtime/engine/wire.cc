#include "runtime/engine/wire.h"

#include <cstring>
#include <span>
#include <type_traits>

#include "hvd/error.h"

namespace hvd::detail {
namespace {

class Writer {
 public:
  template <typename T>
  requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void put(T v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void put(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }
  void put(std::span<const std::int64_t> v) {  // a shape (hvd::Shape) or a vector of sizes
    put(static_cast<std::uint32_t>(v.size()));
    out_.append(reinterpret_cast<const char*>(v.data()), v.size_bytes());
  }
  void put(const Stop& s) {
    put(s.code), put(static_cast<std::int32_t>(s.rank)), put(s.host), put(s.tensor);
    put(static_cast<std::int32_t>(s.seconds)), put(static_cast<std::uint32_t>(s.waiting.size()));
    for (const auto& line : s.waiting) put(line);
    put(s.event), put(static_cast<std::uint8_t>(s.process_sets)), put(s.detail);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  template <typename T>
  requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void get(T& v) {
    need(sizeof v);
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
  }
  void get(std::string& s) {
    std::uint32_t n = 0;
    get(n);
    need(n);
    s.assign(in_.data() + pos_, n);
    pos_ += n;
  }
  void get(std::vector<std::int64_t>& v) {
    std::uint32_t n = 0;
    get(n);
    need(std::size_t{n} * sizeof(std::int64_t));
    v.resize(n);
    std::memcpy(v.data(), in_.data() + pos_, n * sizeof(std::int64_t));
    pos_ += n * sizeof(std::int64_t);
  }
  void get(Shape& s) {
    std::uint32_t n = 0;
    get(n);
    need(std::size_t{n} * sizeof(std::int64_t));
    s.clear();
    for (std::uint32_t i = 0; i < n; ++i) {
      std::int64_t d;
      get(d);
      s.push_back(d);
    }
  }
  void get(Stop& s) {
    std::int32_t rank = -1, seconds = 0;
    std::uint8_t process_sets = 0;
    get(s.code), get(rank), get(s.host), get(s.tensor), get(seconds);
    s.waiting.resize(count());
    for (auto& line : s.waiting) get(line);
    get(s.event), get(process_sets), get(s.detail);
    s.rank = rank, s.seconds = seconds, s.process_sets = process_sets != 0;
  }
  std::uint32_t count() {
    std::uint32_t n = 0;
    get(n);
    return n;
  }

 private:
  void need(std::size_t n) {
    if (in_.size() - pos_ < n)
      throw Error(ErrorKind::kMismatch, "negotiation message truncated (a peer runs another hvd version?)");
  }
  const std::string& in_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string encode(const RequestList& list) {
  Writer w;
  w.put(static_cast<std::uint8_t>(list.shutdown));
  w.put(static_cast<std::uint32_t>(list.requests.size()));
  for (const auto& r : list.requests) {
    w.put(r.rank), w.put(r.type), w.put(r.name), w.put(r.dtype), w.put(r.shape), w.put(r.reduce_op);
    w.put(r.prescale), w.put(r.postscale), w.put(r.root), w.put(r.splits), w.put(r.group), w.put(r.group_size);
    w.put(r.device);
  }
  return w.take();
}

RequestList decode_requests(const std::string& bytes) {
  Reader rd(bytes);
  RequestList list;
  std::uint8_t shutdown = 0;
  rd.get(shutdown);
  list.shutdown = shutdown != 0;
  list.requests.resize(rd.count());
  for (auto& r : list.requests) {
    rd.get(r.rank), rd.get(r.type), rd.get(r.name), rd.get(r.dtype), rd.get(r.shape), rd.get(r.reduce_op);
    rd.get(r.prescale), rd.get(r.postscale), rd.get(r.root), rd.get(r.splits), rd.get(r.group);
    rd.get(r.group_size), rd.get(r.device);
  }
  return list;
}

std::string encode(const ResponseList& list) {
  Writer w;
  w.put(list.shutdown), w.put(list.shutdown_blame);
  w.put(static_cast<std::uint32_t>(list.responses.size()));
  for (const auto& r : list.responses) {
    w.put(r.type);
    w.put(static_cast<std::uint32_t>(r.names.size()));
    for (const auto& n : r.names) w.put(n);
    w.put(r.error), w.put(r.error_kind), w.put(r.blame), w.put(r.dtype), w.put(r.reduce_op), w.put(r.prescale), w.put(r.postscale),
        w.put(r.root);
    w.put(static_cast<std::uint32_t>(r.shapes.size()));
    for (const auto& s : r.shapes) w.put(s);
    w.put(r.rank_rows), w.put(r.splits), w.put(r.last_joined_rank), w.put(r.device);
  }
  return w.take();
}

ResponseList decode_responses(const std::string& bytes) {
  Reader rd(bytes);
  ResponseList list;
  rd.get(list.shutdown), rd.get(list.shutdown_blame);
  list.responses.resize(rd.count());
  for (auto& r : list.responses) {
    rd.get(r.type);
    r.names.resize(rd.count());
    for (auto& n : r.names) rd.get(n);
    rd.get(r.error), rd.get(r.error_kind), rd.get(r.blame), rd.get(r.dtype), rd.get(r.reduce_op), rd.get(r.prescale),
        rd.get(r.postscale), rd.get(r.root);
    r.shapes.resize(rd.count());
    for (auto& s : r.shapes) rd.get(s);
    rd.get(r.rank_rows), rd.get(r.splits), rd.get(r.last_joined_rank), rd.get(r.device);
  }
  return list;
}

}  // namespace hvd::detail
