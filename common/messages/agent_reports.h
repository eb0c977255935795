// What an agent sends hvdrun on its control link (common/protocol.h), each message a struct with one encoder and
// one decoder. A field with a default here is optional on the wire. (The heartbeat goes both ways:
// agent_commands.h.)
//   {"type":"started","rank":0,"pid":1234}
//   {"type":"spawn_failed","rank":0,"code":127,"error":"cannot execute './train': No such file or directory"}
//   {"type":"output","rank":0,"stream":"stdout"|"stderr","lines":["...", ...]}   whole lines, no '\n'
//   {"type":"exit","rank":0,"pid":1234,"code":7}   or  {"type":"exit","rank":0,"pid":1234,"signal":11}
//      plus the root-cause report's facts (agent/exit_reports.h): "time_ms", "stopped" (the agent signalled it
//      first), "outside" (a stop signal from outside the job ended it), and "record", "pending", "stderr_tail"
//   {"type":"bye"}     all workers are reaped; the agent stops sending (a TCP half-close) and exits once hvdrun
//                      closes the link
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/failure_record.h"
#include "common/messages/message_error.h"
#include "common/messages/message_type.h"

namespace hvd::messages {

struct Started {
  static constexpr MessageType kType = MessageType::kStarted;
  int rank = 0;  // the launch's rank (or elastic worker id)
  int pid = 0;

  nlohmann::json encode() const;
  static Started decode(const nlohmann::json& frame);
  bool operator==(const Started&) const = default;
};

struct SpawnFailed {
  static constexpr MessageType kType = MessageType::kSpawnFailed;
  int rank = 0;
  int code = 127;     // the exit code a shell gives the same failure (127 not found, 126 not executable)
  std::string error;  // names the command and the cause

  nlohmann::json encode() const;
  static SpawnFailed decode(const nlohmann::json& frame);
  bool operator==(const SpawnFailed&) const = default;
};

enum class OutputStream { kStdout, kStderr };

struct Output {
  static constexpr MessageType kType = MessageType::kOutput;
  int rank = 0;
  OutputStream stream = OutputStream::kStdout;
  std::vector<std::string> lines;  // whole lines, without their '\n'

  nlohmann::json encode() const;
  static Output decode(const nlohmann::json& frame);
  bool operator==(const Output&) const = default;
};

struct Exit {
  static constexpr MessageType kType = MessageType::kExit;
  int rank = 0;
  int pid = 0;                  // optional on the wire
  std::optional<int> code;      // exited with this code, or
  std::optional<int> signal;    // was killed by this signal
  std::int64_t time_ms = 0;     // this host's wall clock when it ended; 0: not said
  bool stopped = false;         // the agent had signalled it first (hvdrun's teardown)
  bool outside = false;         // a stop signal from outside the job ended it
  std::optional<FailureRecord> record;   // what the worker left (common/failure_record.h)
  std::optional<PendingOp> pending;      // the coordinator's oldest pending op
  std::vector<std::string> stderr_tail;  // its last stderr lines; empty: none (not sent)

  nlohmann::json encode() const;
  static Exit decode(const nlohmann::json& frame);
  bool operator==(const Exit&) const = default;
};

struct Bye {
  static constexpr MessageType kType = MessageType::kBye;

  nlohmann::json encode() const;
  static Bye decode(const nlohmann::json& frame);
  bool operator==(const Bye&) const = default;
};

}  // namespace hvd::messages
