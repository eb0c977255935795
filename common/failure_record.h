// Why a worker failed, as the worker itself saw it: the record libhvd (or hvd.torch, or torch's @record) leaves
// in a file per rank for its agent, which reads it after the worker's exit and sends it with the exit report
// (common/protocol.h) for hvdrun's root-cause report (launcher/report/).
// Contract: a record is a cause (the rank failed on its own: an uncaught exception, a mismatch it sent, bad
// input) or a consequence (the rank failed because of `blame`: a peer's shutdown, death, lost link, or a stall in
// which those ranks did not submit). Files are written whole (a temporary file renamed over), so a reader never
// sees half of one. The coordinator (rank 0) also keeps the op its ranks wait in, in `<file>.pending`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/stop.h"

namespace hvd {

// The environment variables the agent sets per worker: hvd's own record file, and torch's, which a script's
// torch.distributed.elastic @record writes (as under torchrun).
inline constexpr const char* kEnvErrorFile = "HVD_ERROR_FILE";
inline constexpr const char* kEnvTorchErrorFile = "TORCHELASTIC_ERROR_FILE";

struct FailureRecord {
  enum class Role { kCause, kConsequence };
  Role role = Role::kCause;
  std::string reason;                // one line: "RuntimeError: boom on rank 1"
  std::vector<std::string> details;  // the last traceback frames, the rest of a long message
  std::vector<int> blame;            // a consequence: the ranks it failed because of
  std::string tensor;                // the tensor it failed in, when known
  bool stall = false;                // a consequence of a stall shutdown: `blame` did not submit `tensor`
  std::optional<Stop> stop;          // libhvd's engine was stopped: why, as a code and its facts ("stop" in JSON)
  std::string source;                // "python", "c++", "hvd" (libhvd's engine), "torch" (@record)
  std::int64_t time_ms = 0;          // wall clock, ms since the epoch, when the rank failed
  bool operator==(const FailureRecord&) const = default;
};

// An op some ranks wait in because others have not submitted it (the coordinator's oldest pending tensor).
struct PendingOp {
  std::string op;             // "allreduce"
  std::string tensor;         // its name
  std::vector<int> missing;   // the ranks that have not submitted it
  std::int64_t since_ms = 0;  // when the first rank submitted it
  int others = 0;             // how many more tensors wait
  bool operator==(const PendingOp&) const = default;
};

std::int64_t wall_clock_ms();

nlohmann::json to_json(const FailureRecord& record);
FailureRecord failure_record_from_json(const nlohmann::json& j);  // missing fields keep their defaults
nlohmann::json to_json(const PendingOp& pending);
PendingOp pending_op_from_json(const nlohmann::json& j);

// Writes `j` to `path` whole; false (and nothing left behind) when it cannot.
bool write_json_file(const std::string& path, const nlohmann::json& j) noexcept;
// The JSON in `path`; nullopt when missing, empty or not JSON.
std::optional<nlohmann::json> read_json_file(const std::string& path);

// torch.distributed.elastic's error file ({"message": {"message": "T: m", "extraInfo": {"py_callstack": ...,
// "timestamp": "<s>"}}}) as a cause; nullopt when `j` is not one.
std::optional<FailureRecord> record_from_torch_error_file(const nlohmann::json& j);

// The last `keep` lines of a Python traceback or message, blank lines dropped.
std::vector<std::string> last_lines(const std::string& text, std::size_t keep);

}  // namespace hvd
