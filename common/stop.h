// Why a job's engine or a transport was stopped, as a code and the facts that go with it, never as prose: libhvd's
// engine and transports carry it, the failure record (common/failure_record.h) keeps it for hvdrun's report, and
// the report reads the code. Contract: describe() is the one place a stop's words come from; a code's name (its
// JSON spelling) is stable, and an unknown name reads as kNone.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hvd {

enum class StopCode : std::uint8_t {
  kNone,          // not stopped
  kShutdown,      // a rank called hvd::shutdown() while others still ran
  kStall,         // the coordinator stopped a stall (HOROVOD_STALL_SHUTDOWN_TIME_SECONDS)
  kPeerLost,      // a peer died or its link broke under the data plane
  kElasticReset,  // this process called hvd::elastic::reset()
  kReform,        // hvdrun re-forms the elastic job (an elastic event)
};

struct Stop {
  StopCode code = StopCode::kNone;
  int rank = -1;         // kShutdown: the rank that called hvd::shutdown(); kPeerLost: the lost peer (job ranks)
  std::string host{};    // that rank's host
  std::string tensor{};  // kStall: the first tensor that stalled
  int seconds = 0;       // kStall: the shutdown time it waited past
  std::vector<std::string> waiting{};  // kStall: one line per stalled tensor ("allreduce 'x' waited 3 s for rank 1")
  std::int64_t event = -1;             // kReform: the elastic event's number
  bool process_sets = false;           // kElasticReset, kReform: said to a process set's transport
  std::string detail{};                // kPeerLost: the transport's account of the failure
  bool operator==(const Stop&) const = default;
};

std::string_view stop_code_name(StopCode code);  // "shutdown", "stall", ...
StopCode stop_code_named(std::string_view name);

// The stop in words: "rank 1 (h2) called hvd::shutdown()"; a stall spans lines (its waiting tensors).
std::string describe(const Stop& stop);
// What an op fails with once the engine stopped: "hvd is shut down: " and the stop.
std::string shut_down_message(const Stop& stop);
// A stall's root cause, said of the rank that did not submit the tensor.
std::string stalled_rank_reason(const Stop& stop);

nlohmann::json to_json(const Stop& stop);
Stop stop_from_json(const nlohmann::json& j);  // missing fields keep their defaults

}  // namespace hvd
