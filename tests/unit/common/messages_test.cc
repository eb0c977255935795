// The control-plane messages (common/messages/): for every type message_types() lists, the struct encodes to the
// frame the protocol spells out and that frame decodes back to the struct; a field that is missing or of the
// wrong type fails the decoder naming the message and the field; a frame of another type is refused.
#include <doctest/doctest.h>

#include <functional>
#include <optional>
#include <set>
#include <string>

#include "common/messages/agent_commands.h"
#include "common/messages/agent_reports.h"
#include "common/messages/hello.h"
#include "common/messages/message_type.h"
#include "common/messages/store_answers.h"
#include "common/messages/store_requests.h"

using namespace hvd::messages;
using hvd::FailureRecord;
using nlohmann::json;

namespace {

// One message: its frame as the protocol spells it, and its struct's encoder and decoder against that frame.
struct Case {
  json wire;
  std::function<json()> encode;                        // the struct's encode()
  std::function<bool(const json&)> decodes_to_struct;  // decode(frame) == the struct
  std::function<void(const json&)> decode;             // decode, for the error cases
};

template <class T>
Case make_case(T value, json wire) {
  return {std::move(wire), [value] { return value.encode(); },
          [value](const json& frame) { return T::decode(frame) == value; },
          [](const json& frame) { T::decode(frame); }};
}

FailureRecord sample_record() {
  FailureRecord r;
  r.role = FailureRecord::Role::kConsequence;
  r.reason = "peer lost";
  r.blame = {2};
  r.tensor = "grad";
  hvd::Stop stop;
  stop.code = hvd::StopCode::kPeerLost;
  stop.rank = 2;
  stop.host = "h2";
  stop.detail = "connection reset";
  r.stop = stop;
  r.source = "hvd";
  r.time_ms = 99;
  return r;
}

json sample_record_json() { return hvd::to_json(sample_record()); }

Launch sample_launch() {
  Launch launch;
  launch.command = {"./train", "--x"};
  launch.cwd = "/dir";
  launch.kill_grace_s = 2.5;
  launch.output_window = 1048576;
  launch.ranks = {{.rank = 0, .env = {{"HOROVOD_RANK", "0"}}}, {.rank = 1, .env = {{"HOROVOD_RANK", "1"}}}};
  return launch;
}

Exit sample_exit() {
  Exit exit;
  exit.rank = 3;
  exit.pid = 1234;
  exit.signal = 11;
  exit.time_ms = 1700000000000;
  exit.stopped = true;
  exit.outside = false;
  exit.record = sample_record();
  exit.pending = hvd::PendingOp{.op = "allreduce", .tensor = "grad", .missing = {1}, .since_ms = 5, .others = 2};
  exit.stderr_tail = {"Traceback", "RuntimeError: boom"};
  return exit;
}

// Every type has a case here; a type added to MessageType without one fails "every message type...".
std::optional<Case> case_of(MessageType type) {
  switch (type) {
    case MessageType::kAgentHello:
      return make_case(AgentHello{.host = "h1", .pid = 123, .machine = "boot=b machine=m netns=n"},
                       {{"type", "hello"}, {"role", "agent"}, {"host", "h1"}, {"pid", 123},
                        {"machine", "boot=b machine=m netns=n"}});
    case MessageType::kStoreHello:
      return make_case(StoreHello{.rank = 3}, {{"type", "hello"}, {"role", "store"}, {"rank", 3}});
    case MessageType::kLaunch:
      return make_case(sample_launch(), {{"type", "launch"},
                                         {"command", {"./train", "--x"}},
                                         {"cwd", "/dir"},
                                         {"kill_grace_s", 2.5},
                                         {"output_window", 1048576},
                                         {"ranks",
                                          {{{"rank", 0}, {"env", {{"HOROVOD_RANK", "0"}}}},
                                           {{"rank", 1}, {"env", {{"HOROVOD_RANK", "1"}}}}}}});
    case MessageType::kTerminate:
      return make_case(Terminate{.reason = "host h2 was removed"},
                       {{"type", "terminate"}, {"reason", "host h2 was removed"}});
    case MessageType::kKill:
      return make_case(Kill{}, {{"type", "kill"}});
    case MessageType::kCredit:
      return make_case(Credit{.bytes = 4096}, {{"type", "credit"}, {"bytes", 4096}});
    case MessageType::kHeartbeat:
      return make_case(Heartbeat{}, {{"type", "heartbeat"}});
    case MessageType::kStarted:
      return make_case(Started{.rank = 2, .pid = 4321}, {{"type", "started"}, {"rank", 2}, {"pid", 4321}});
    case MessageType::kSpawnFailed:
      return make_case(SpawnFailed{.rank = 1, .code = 126, .error = "cannot execute './train': Permission denied"},
                       {{"type", "spawn_failed"},
                        {"rank", 1},
                        {"code", 126},
                        {"error", "cannot execute './train': Permission denied"}});
    case MessageType::kOutput:
      return make_case(Output{.rank = 0, .stream = OutputStream::kStderr, .lines = {"a", "b"}},
                       {{"type", "output"}, {"rank", 0}, {"stream", "stderr"}, {"lines", {"a", "b"}}});
    case MessageType::kExit:
      return make_case(sample_exit(), {{"type", "exit"},
                                       {"rank", 3},
                                       {"pid", 1234},
                                       {"signal", 11},
                                       {"time_ms", 1700000000000},
                                       {"stopped", true},
                                       {"outside", false},
                                       {"record", sample_record_json()},
                                       {"pending",
                                        {{"op", "allreduce"},
                                         {"tensor", "grad"},
                                         {"missing", {1}},
                                         {"since_ms", 5},
                                         {"others", 2}}},
                                       {"stderr_tail", {"Traceback", "RuntimeError: boom"}}});
    case MessageType::kBye:
      return make_case(Bye{}, {{"type", "bye"}});
    case MessageType::kSetRequest:
      return make_case(SetRequest{.key = "k", .value = "v"}, {{"op", "set"}, {"key", "k"}, {"value", "v"}});
    case MessageType::kGetRequest:
      return make_case(GetRequest{.key = "k", .timeout = std::chrono::milliseconds(250)},
                       {{"op", "get"}, {"key", "k"}, {"timeout_ms", 250}});
    case MessageType::kAddRequest:
      return make_case(AddRequest{.key = "n", .delta = -2}, {{"op", "add"}, {"key", "n"}, {"delta", -2}});
    case MessageType::kRendezvousRequest:
      return make_case(RendezvousRequest{.worker = "h1/0", .after = 4},
                       {{"op", "rendezvous"}, {"worker", "h1/0"}, {"after", 4}});
    case MessageType::kSetAnswer:
      return make_case(SetAnswer{}, {{"ok", true}});
    case MessageType::kGetAnswer:
      return make_case(GetAnswer{.value = "v"}, {{"ok", true}, {"value", "v"}});
    case MessageType::kAddAnswer:
      return make_case(AddAnswer{.value = 7}, {{"ok", true}, {"value", 7}});
    case MessageType::kRendezvousAnswer:
      return make_case(RendezvousAnswer{.generation = 2,
                                        .rank = 1,
                                        .size = 4,
                                        .local_rank = 1,
                                        .local_size = 2,
                                        .cross_rank = 0,
                                        .cross_size = 2,
                                        .hostname = "h1",
                                        .events = 3},
                       {{"ok", true},
                        {"generation", 2},
                        {"rank", 1},
                        {"size", 4},
                        {"local_rank", 1},
                        {"local_size", 2},
                        {"cross_rank", 0},
                        {"cross_size", 2},
                        {"hostname", "h1"},
                        {"events", 3}});
    case MessageType::kStoreRefusal:
      return make_case(StoreRefusal{.error = "timed out waiting for key 'k'"},
                       {{"ok", false}, {"error", "timed out waiting for key 'k'"}});
  }
  return std::nullopt;
}

bool is_answer(MessageType type) {
  for (const auto& info : message_types()) {
    if (info.type == type) return info.receivers == kToStoreClient;
  }
  return false;
}

// The field that says what a frame is: never dropped in the field-by-field check.
bool says_type(const std::string& field) { return field == "type" || field == "op" || field == "ok" || field == "role"; }

}  // namespace

TEST_CASE("message_types lists every type once, in the enum's order, with a unique name and a receiver") {
  std::set<std::string_view> names;
  int index = 0;
  for (const auto& info : message_types()) {
    CHECK(static_cast<int>(info.type) == index++);
    CHECK(names.insert(info.name).second);
    CHECK(info.receivers != 0u);
    CHECK(name_of(info.type) == info.name);
  }
  CHECK(index == static_cast<int>(MessageType::kStoreRefusal) + 1);
}

TEST_CASE("every message type encodes to its wire frame and decodes back to the same struct") {
  for (const auto& info : message_types()) {
    CAPTURE(info.name);
    const auto c = case_of(info.type);
    REQUIRE_MESSAGE(c, "no test case for message type '", info.name, "'");
    CHECK(c->encode() == c->wire);
    CHECK(c->decodes_to_struct(c->wire));
    CHECK(c->decodes_to_struct(c->encode()));
    // A frame that names its type is told apart by it; answers are told apart by the request they answer.
    if (!is_answer(info.type)) {
      CHECK(message_type_of(c->wire) == info.type);
    } else {
      CHECK_FALSE(message_type_of(c->wire).has_value());
    }
  }
}

TEST_CASE("every field a decoder needs fails it by name when missing; optional ones decode without it") {
  for (const auto& info : message_types()) {
    const auto c = case_of(info.type);
    REQUIRE(c);
    for (const auto& [field, value] : c->wire.items()) {
      if (says_type(field)) continue;
      CAPTURE(info.name);
      CAPTURE(field);
      json frame = c->wire;
      frame.erase(field);
      try {
        c->decode(frame);
      } catch (const MessageError& e) {
        CHECK(e.field() == field);
        CHECK(e.message_name() == info.name);
        CHECK(std::string(e.what()) ==
              "malformed '" + std::string(info.name) + "' message: field '" + field + "' is missing");
      }
    }
  }
}

TEST_CASE("a field of the wrong type fails the decoder naming the message, the field and what it must be") {
  json exit = case_of(MessageType::kExit)->wire;
  exit["rank"] = "three";
  CHECK_THROWS_WITH_AS(Exit::decode(exit), "malformed 'exit' message: field 'rank' must be an integer, not \"three\"",
                       MessageError);
  json output = case_of(MessageType::kOutput)->wire;
  output["lines"] = json::array({"a", 1});
  CHECK_THROWS_WITH_AS(Output::decode(output),
                       "malformed 'output' message: field 'lines' must be an array of strings, not [\"a\",1]",
                       MessageError);
  output = case_of(MessageType::kOutput)->wire;
  output["stream"] = "stdin";
  CHECK_THROWS_WITH_AS(Output::decode(output), doctest::Contains("field 'stream' must be \"stdout\" or \"stderr\""),
                       MessageError);
  json credit = case_of(MessageType::kCredit)->wire;
  credit["bytes"] = -1;
  CHECK_THROWS_WITH_AS(Credit::decode(credit), doctest::Contains("field 'bytes' must be a non-negative integer"),
                       MessageError);
  json rendezvous = case_of(MessageType::kRendezvousAnswer)->wire;
  rendezvous["size"] = 1.5;
  CHECK_THROWS_WITH_AS(RendezvousAnswer::decode(rendezvous), doctest::Contains("field 'size' must be an integer"),
                       MessageError);
}

TEST_CASE("the fields the protocol leaves optional take their defaults") {
  const auto exit = Exit::decode({{"type", "exit"}, {"rank", 0}, {"code", 0}});
  CHECK(exit.pid == 0);
  CHECK(exit.code == 0);
  CHECK_FALSE(exit.signal);
  CHECK_FALSE(exit.record);
  CHECK(exit.stderr_tail.empty());
  const auto launch = Launch::decode({{"type", "launch"}, {"command", {"true"}}, {"ranks", {{{"rank", 0}}}}});
  CHECK(launch.cwd.empty());
  CHECK(launch.kill_grace_s == hvd::protocol::kDefaultKillGraceSeconds);
  CHECK(launch.output_window == 0u);
  REQUIRE(launch.ranks.size() == 1u);
  CHECK(launch.ranks[0].env.empty());
  CHECK_FALSE(Terminate::decode({{"type", "terminate"}}).reason);
  CHECK(Terminate{}.encode() == json{{"type", "terminate"}});
  CHECK(GetRequest::decode({{"op", "get"}, {"key", "k"}}).timeout == GetRequest::kDefaultTimeout);
  CHECK(RendezvousRequest::decode({{"op", "rendezvous"}, {"worker", "h1/0"}}).after == -1);
}

TEST_CASE("a frame of another type, or a hello of another role, is refused naming what it is") {
  CHECK_THROWS_WITH_AS(Launch::decode({{"type", "exit"}, {"rank", 0}}),
                       "malformed 'launch' message: the frame is of type 'exit'", MessageError);
  CHECK_THROWS_WITH_AS(AgentHello::decode({{"type", "hello"}, {"role", "store"}, {"rank", 1}}),
                       doctest::Contains("the frame is of type 'store hello'"), MessageError);
  CHECK_THROWS_WITH_AS(StoreHello::decode({{"type", "hello"}, {"role", "spy"}}),
                       doctest::Contains("field 'role' must be"), MessageError);
  CHECK_THROWS_WITH_AS(Bye::decode({{"rank", 0}}), "malformed 'bye' message: field 'type' is missing", MessageError);
  CHECK_THROWS_WITH_AS(SetRequest::decode({{"op", "get"}, {"key", "k"}}),
                       doctest::Contains("the frame is of type 'get request'"), MessageError);
  CHECK_THROWS_WITH_AS(GetAnswer::decode({{"ok", false}, {"error", "no"}}), doctest::Contains("refused"),
                       MessageError);
  CHECK_THROWS_WITH_AS(StoreRefusal::decode({{"ok", true}}), doctest::Contains("did not refuse"), MessageError);
  CHECK(is_refusal({{"ok", false}, {"error", "no"}}));
  CHECK_FALSE(is_refusal({{"ok", true}}));
  CHECK_THROWS_WITH_AS(is_refusal({{"error", "no"}}), doctest::Contains("field 'ok' is missing"), MessageError);
  CHECK_FALSE(message_type_of({{"type", "launch-all"}}).has_value());
  CHECK_FALSE(message_type_of({{"type", 7}}).has_value());
  CHECK(claimed_type({{"type", "launch-all"}}) == "\"launch-all\"");
  CHECK(claimed_type({{"type", "hello"}, {"role", "spy"}}) == "\"hello\" role \"spy\"");
  CHECK(claimed_type({{"op", "del"}}) == "op \"del\"");
  CHECK(claimed_type({{"key", "k"}}) == "none");
}

TEST_CASE("a launch's environment values that are not strings reach the worker as their JSON text") {
  const auto launch = Launch::decode(
      {{"type", "launch"}, {"command", {"true"}}, {"ranks", {{{"rank", 0}, {"env", {{"N", 4}, {"S", "x"}}}}}}});
  CHECK(launch.ranks.at(0).env.at("N") == "4");
  CHECK(launch.ranks.at(0).env.at("S") == "x");
}
