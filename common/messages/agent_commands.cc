#include "common/messages/agent_commands.h"

#include "common/messages/frame_fields.h"

namespace hvd::messages {
namespace {

Launch::Rank decode_rank(const nlohmann::json& item) {
  const auto name = name_of(Launch::kType);
  if (!item.is_object()) fields::throw_bad(name, "ranks", "an array of objects", item);
  Launch::Rank rank{.rank = fields::required<int>(item, name, "rank"), .env = {}};
  const auto env = fields::optional<nlohmann::json>(item, name, "env");
  if (!env) return rank;
  // A value that is not a string is the agent's to make one (as the launcher's JSON spelled it).
  for (const auto& [variable, value] : env->items()) {
    rank.env[variable] = value.is_string() ? value.get<std::string>() : value.dump();
  }
  return rank;
}

}  // namespace

nlohmann::json Launch::encode() const {
  nlohmann::json frames = nlohmann::json::array();
  for (const auto& r : ranks) frames.push_back({{"rank", r.rank}, {"env", r.env}});
  return {{"type", "launch"},          {"command", command},
          {"cwd", cwd},                {"kill_grace_s", kill_grace_s},
          {"output_window", output_window}, {"ranks", std::move(frames)}};
}

Launch Launch::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  const auto name = name_of(kType);
  Launch launch;
  launch.command = fields::required<std::vector<std::string>>(frame, name, "command");
  launch.cwd = fields::or_default<std::string>(frame, name, "cwd", "");
  launch.kill_grace_s = fields::or_default<double>(frame, name, "kill_grace_s", protocol::kDefaultKillGraceSeconds);
  launch.output_window = fields::or_default<std::size_t>(frame, name, "output_window", 0);
  const auto it = frame.find("ranks");
  if (it == frame.end()) fields::throw_missing(name, "ranks");
  if (!it->is_array()) fields::throw_bad(name, "ranks", "an array of objects", *it);
  for (const auto& item : *it) launch.ranks.push_back(decode_rank(item));
  return launch;
}

nlohmann::json Terminate::encode() const {
  nlohmann::json frame{{"type", "terminate"}};
  if (reason) frame["reason"] = *reason;
  return frame;
}

Terminate Terminate::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  return {.reason = fields::optional<std::string>(frame, name_of(kType), "reason")};
}

nlohmann::json Kill::encode() const { return {{"type", "kill"}}; }

Kill Kill::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  return {};
}

nlohmann::json Credit::encode() const { return {{"type", "credit"}, {"bytes", bytes}}; }

Credit Credit::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  return {.bytes = fields::required<std::size_t>(frame, name_of(kType), "bytes")};
}

nlohmann::json Heartbeat::encode() const { return {{"type", "heartbeat"}}; }

Heartbeat Heartbeat::decode(const nlohmann::json& frame) {
  fields::expect_type(frame, kType);
  return {};
}

}  // namespace hvd::messages
