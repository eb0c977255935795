#include "launcher/report/report_json.h"

#include <time.h>

#include <algorithm>
#include <cstdio>

namespace hvd::launcher::report {
namespace {

using json = nlohmann::json;

json time_or_null(std::int64_t ms) { return ms > 0 ? json(iso_time(ms)) : json(nullptr); }

const char* state_of(const RankEnding& e) {
  switch (e.state) {
    case RankEnding::State::kRunning:
      return "running";
    case RankEnding::State::kSpawnFailed:
      return "not started";
    case RankEnding::State::kLost:
      return "lost";
    case RankEnding::State::kUnknown:
      return "unknown";
    case RankEnding::State::kExited:
      break;
  }
  if (e.outside || (e.stopped && (e.signal || !e.is_cause_record()))) return "stopped";
  return e.failed() ? "failed" : "ok";
}

json ending_fields(const RankEnding& e) {
  return {{"rank", e.rank},
          {"host", e.host},
          {"pid", e.pid > 0 ? json(e.pid) : json(nullptr)},
          {"exit_code", e.code ? json(*e.code) : json(nullptr)},
          {"signal", e.signal ? json(signal_name(*e.signal)) : json(nullptr)},
          {"time", time_or_null(e.time_ms)}};
}

json root_json(const RootCause& root, const Facts& f) {
  json j;
  if (root.host_loss) {
    const HostLoss& loss = f.losses[*root.host_loss];
    j = {{"kind", "host"},
         {"rank", nullptr},
         {"host", loss.host},
         {"pid", nullptr},
         {"exit_code", nullptr},
         {"signal", nullptr},
         {"time", time_or_null(loss.time_ms)}};
  } else {
    j = ending_fields(f.endings[*root.rank]);
    j["kind"] = "rank";
    j["time"] = time_or_null(root.time_ms);
  }
  j["inferred"] = root.inferred;
  j["reason"] = root.reason;
  j["details"] = root.details;
  j["source"] = root.source;
  return j;
}

json rank_json(const RankEnding& e, const Verdict& v, std::size_t index) {
  json j = ending_fields(e);
  j["state"] = state_of(e);
  j["outside"] = e.outside;
  const bool is_root = v.root && v.root->rank == index;
  auto in = [index](const std::vector<std::size_t>& list) {
    return std::find(list.begin(), list.end(), index) != list.end();
  };
  j["role"] = is_root              ? json("root cause")
              : in(v.other_causes) ? json("cause")
              : in(v.consequences) ? json("consequence")
                                   : json(nullptr);
  j["reason"] = e.record ? json(e.record->reason) : json(nullptr);
  j["blame"] = e.is_consequence() ? json(e.record->blame) : json::array();
  return j;
}

json waiting_json(const PendingOp& p, const Facts& f) {
  json missing = json::array();
  for (int r : p.missing) {
    json m{{"rank", r}, {"host", nullptr}, {"pid", nullptr}};
    for (const auto& e : f.endings) {
      if (e.rank == r) m = {{"rank", r}, {"host", e.host}, {"pid", e.pid > 0 ? json(e.pid) : json(nullptr)}};
    }
    missing.push_back(m);
  }
  return {{"op", p.op}, {"tensor", p.tensor}, {"since", time_or_null(p.since_ms)}, {"missing", missing}};
}

}  // namespace

std::string iso_time(std::int64_t ms) {
  const time_t seconds = static_cast<time_t>(ms / 1000);
  struct tm utc {};
  gmtime_r(&seconds, &utc);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

json render_json(const Verdict& v, const Facts& f) {
  static const char* kOutcomes[] = {"succeeded", "failed", "stopped"};
  json ranks = json::array();
  for (std::size_t i = 0; i < f.endings.size(); ++i) ranks.push_back(rank_json(f.endings[i], v, i));
  json lost = json::array();
  for (const auto& l : f.losses)
    lost.push_back({{"host", l.host}, {"reason", l.reason}, {"time", time_or_null(l.time_ms)}});
  return {{"outcome", kOutcomes[static_cast<int>(v.outcome)]},
          {"exit_code", v.exit_code},
          {"signal", f.fate.signal ? json(signal_name(*f.fate.signal)) : json(nullptr)},
          {"root_cause", v.root ? root_json(*v.root, f) : json(nullptr)},
          {"ranks", ranks},
          {"lost_hosts", lost},
          {"waiting", f.fate.pending ? waiting_json(*f.fate.pending, f) : json(nullptr)}};
}

}  // namespace hvd::launcher::report
