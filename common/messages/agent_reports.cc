#include "common/messages/agent_reports.h"

#include "common/messages/frame_fields.h"

namespace hvd::messages {

nlohmann::json Started::encode() const { return {{"type", "started"}, {"rank", rank}, {"pid", pid}}; }

Started Started::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  return {.rank = fields::required<int>(frame, name, "rank"), .pid = fields::or_default<int>(frame, name, "pid", 0)};
}

nlohmann::json SpawnFailed::encode() const {
  return {{"type", "spawn_failed"}, {"rank", rank}, {"code", code}, {"error", error}};
}

SpawnFailed SpawnFailed::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  return {.rank = fields::required<int>(frame, name, "rank"),
          .code = fields::required<int>(frame, name, "code"),
          .error = fields::required<std::string>(frame, name, "error")};
}

nlohmann::json Output::encode() const {
  return {{"type", "output"},
          {"rank", rank},
          {"stream", stream == OutputStream::kStderr ? "stderr" : "stdout"},
          {"lines", lines}};
}

Output Output::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  Output output;
  output.rank = fields::required<int>(frame, name, "rank");
  const auto stream = fields::required<std::string>(frame, name, "stream");
  if (stream != "stdout" && stream != "stderr") fields::throw_bad(name, "stream", "\"stdout\" or \"stderr\"", stream);
  output.stream = stream == "stderr" ? OutputStream::kStderr : OutputStream::kStdout;
  output.lines = fields::required<std::vector<std::string>>(frame, name, "lines");
  return output;
}

nlohmann::json Exit::encode() const {
  nlohmann::json frame{{"type", "exit"}, {"rank", rank},       {"pid", pid},
                       {"time_ms", time_ms}, {"stopped", stopped}, {"outside", outside}};
  if (code) frame["code"] = *code;
  if (signal) frame["signal"] = *signal;
  if (record) frame["record"] = to_json(*record);
  if (pending) frame["pending"] = to_json(*pending);
  if (!stderr_tail.empty()) frame["stderr_tail"] = stderr_tail;
  return frame;
}

Exit Exit::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  Exit exit;
  exit.rank = fields::required<int>(frame, name, "rank");
  exit.pid = fields::or_default<int>(frame, name, "pid", 0);
  exit.code = fields::optional<int>(frame, name, "code");
  exit.signal = fields::optional<int>(frame, name, "signal");
  exit.time_ms = fields::or_default<std::int64_t>(frame, name, "time_ms", 0);
  exit.stopped = fields::or_default<bool>(frame, name, "stopped", false);
  exit.outside = fields::or_default<bool>(frame, name, "outside", false);
  if (auto record = fields::optional<nlohmann::json>(frame, name, "record")) {
    exit.record = failure_record_from_json(*record);
  }
  if (auto pending = fields::optional<nlohmann::json>(frame, name, "pending")) {
    exit.pending = pending_op_from_json(*pending);
  }
  exit.stderr_tail = fields::or_default<std::vector<std::string>>(frame, name, "stderr_tail", {});
  return exit;
}

nlohmann::json Bye::encode() const { return {{"type", "bye"}}; }

Bye Bye::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  return {};
}

}  // namespace hvd::messages
