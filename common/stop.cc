#include "common/stop.h"

#include <array>
#include <utility>

#include "common/advisory_json.h"

namespace hvd {
namespace {

constexpr std::array<std::pair<StopCode, std::string_view>, 6> kNames{{
    {StopCode::kNone, "none"},
    {StopCode::kShutdown, "shutdown"},
    {StopCode::kStall, "stall"},
    {StopCode::kPeerLost, "peer_lost"},
    {StopCode::kElasticReset, "elastic_reset"},
    {StopCode::kReform, "reform"},
}};

std::string rank_named(const Stop& s) {
  return "rank " + std::to_string(s.rank) + (s.host.empty() ? "" : " (" + s.host + ")");
}

std::string stall_words(const Stop& s) {
  std::string out =
      "stalled for more than HOROVOD_STALL_SHUTDOWN_TIME_SECONDS=" + std::to_string(s.seconds) + " s, shutting down:";
  for (const auto& line : s.waiting) out += "\n  " + line;
  return out;
}

std::string reform_words(const Stop& s) {
  if (s.process_sets) return "hvdrun is re-forming the job; process sets are dropped at the reset";
  return "hvdrun is re-forming the job (elastic event " + std::to_string(s.event) +
         ": a worker failed or a host was lost); hvd::elastic::run resets and goes on from the last commit";
}

}  // namespace

std::string_view stop_code_name(StopCode code) {
  for (const auto& [c, name] : kNames) {
    if (c == code) return name;
  }
  return "none";
}

StopCode stop_code_named(std::string_view name) {
  for (const auto& [c, n] : kNames) {
    if (n == name) return c;
  }
  return StopCode::kNone;
}

std::string describe(const Stop& s) {
  switch (s.code) {
    case StopCode::kNone:
      return "not stopped";
    case StopCode::kShutdown:
      return rank_named(s) + " called hvd::shutdown()";
    case StopCode::kStall:
      return stall_words(s);
    case StopCode::kPeerLost:
      return s.detail.empty() ? "lost " + rank_named(s) : s.detail;
    case StopCode::kElasticReset:
      return std::string("the runtime is being reset (hvd::elastic::reset)") +
             (s.process_sets ? "; process sets are dropped" : "");
    case StopCode::kReform:
      return reform_words(s);
  }
  return "stopped";
}

std::string shut_down_message(const Stop& s) { return "hvd is shut down: " + describe(s); }

std::string stalled_rank_reason(const Stop& s) {
  return "stall: this rank did not submit '" + s.tensor + "', which the other ranks waited in";
}

nlohmann::json to_json(const Stop& s) {
  nlohmann::json j{{"code", stop_code_name(s.code)}};
  if (s.rank >= 0) j["rank"] = s.rank;
  if (!s.host.empty()) j["host"] = s.host;
  if (!s.tensor.empty()) j["tensor"] = s.tensor;
  if (s.seconds > 0) j["seconds"] = s.seconds;
  if (!s.waiting.empty()) j["waiting"] = s.waiting;
  if (s.event >= 0) j["event"] = s.event;
  if (s.process_sets) j["process_sets"] = true;
  if (!s.detail.empty()) j["detail"] = s.detail;
  return j;
}

Stop stop_from_json(const nlohmann::json& j) {
  Stop s;
  if (!j.is_object()) return s;
  std::string code;
  get_if_present(j, "code", code);
  s.code = stop_code_named(code);
  get_if_present(j, "rank", s.rank);
  get_if_present(j, "host", s.host);
  get_if_present(j, "tensor", s.tensor);
  get_if_present(j, "seconds", s.seconds);
  get_if_present(j, "waiting", s.waiting);
  get_if_present(j, "event", s.event);
  get_if_present(j, "process_sets", s.process_sets);
  get_if_present(j, "detail", s.detail);
  return s;
}

}  // namespace hvd
