// What hvdrun sends an agent on its control link (common/protocol.h), each message a struct with one encoder and
// one decoder. A field with a default here is optional on the wire.
//   {"type":"launch","command":["./train","--x"],"cwd":"/dir","kill_grace_s":5,"output_window":1048576,
//    "ranks":[{"rank":0,"env":{"HOROVOD_RANK":"0",...}}, ...]}
//   {"type":"terminate","reason":"..."}   SIGTERM every worker's group, SIGKILL after kill_grace_s; then the
//                                          agent sends "exit" for each worker and finally "bye", and exits.
//   {"type":"kill"}                        SIGKILL every worker now (the second Ctrl-C), output not waited for;
//                                          then "exit" for each and "bye", as for "terminate".
//   {"type":"credit","bytes":N}            N bytes of output were written out by hvdrun (flow control)
//   {"type":"heartbeat"}                   both ways: either side that hears nothing for kHeartbeatTimeout
//                                          counts the other as lost
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/messages/message_error.h"
#include "common/messages/message_type.h"
#include "common/protocol.h"
#include "common/worker_contract.h"

namespace hvd::messages {

// Start workers. An elastic job sends one per host each time it adds workers there; the first sets the job up.
struct Launch {
  static constexpr MessageType kType = MessageType::kLaunch;
  struct Rank {
    int rank = 0;  // a rank (static job) or a worker id (elastic): the id of its reports and its output prefix
    EnvMap env;    // its environment besides what it inherits: the worker contract, completed (no secret)
    bool operator==(const Rank&) const = default;
  };
  std::vector<std::string> command;
  std::string cwd;  // "": the agent's own
  double kill_grace_s = protocol::kDefaultKillGraceSeconds;
  std::size_t output_window = 0;  // bytes of output in flight before the agent stops reading; 0: no limit
  std::vector<Rank> ranks;

  nlohmann::json encode() const;
  static Launch decode(const nlohmann::json& frame);
  bool operator==(const Launch&) const = default;
};

struct Terminate {
  static constexpr MessageType kType = MessageType::kTerminate;
  std::optional<std::string> reason;  // for the agent's log; hvdrun's teardown gives none

  nlohmann::json encode() const;
  static Terminate decode(const nlohmann::json& frame);
  bool operator==(const Terminate&) const = default;
};

struct Kill {
  static constexpr MessageType kType = MessageType::kKill;

  nlohmann::json encode() const;
  static Kill decode(const nlohmann::json& frame);
  bool operator==(const Kill&) const = default;
};

struct Credit {
  static constexpr MessageType kType = MessageType::kCredit;
  std::size_t bytes = 0;  // output_cost() of the output written out since the last credit

  nlohmann::json encode() const;
  static Credit decode(const nlohmann::json& frame);
  bool operator==(const Credit&) const = default;
};

struct Heartbeat {
  static constexpr MessageType kType = MessageType::kHeartbeat;

  nlohmann::json encode() const;
  static Heartbeat decode(const nlohmann::json& frame);
  bool operator==(const Heartbeat&) const = default;
};

}  // namespace hvd::messages
