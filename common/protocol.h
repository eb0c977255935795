// The control-plane contract between hvdrun, hvd-agent and libhvd's store client.
//
// Transport: one TCP connection per agent and per worker store client to hvdrun's coordination server,
// authenticated by the handshake in handshake.h, then frames from frame.h (JSON objects).
//
// The messages, each a struct with one encoder and one decoder, their wire form beside them (common/messages/):
//   hello.h           the first frame of every connection: an agent's or a store client's hello
//   agent_commands.h  hvdrun -> agent: launch, terminate, kill, credit, heartbeat (both ways)
//   agent_reports.h   agent -> hvdrun: started, spawn_failed, output, exit (with the report's facts), bye
//   store_requests.h  store client -> hvdrun: set, get, add, rendezvous (elastic jobs)
//   store_answers.h   hvdrun -> store client: each request's answer, or a refusal
//   message_type.h    the list of them all (MessageType, message_types()), and a frame's type
//
// Agent link. Output flow control: an agent has at most "output_window" bytes of output in flight (sent, not yet credited),
// each line counted by output_cost(); past it, it stops reading its workers' pipes, which fill, and the workers
// block on write. hvdrun credits each batch once it is written to its stdout/stderr. So a slow reader of
// hvdrun's output slows the workers down, never the control frames, and neither side's buffers grow with it.
// Either side that hears nothing for kHeartbeatTimeout counts the other as lost: the launcher stops the job
// naming the host; the agent kills its workers and exits.
//
// Store link (worker -> launcher; the server: store/store_server.h): one request at a time, each answered once. Values are strings (UTF-8 text;
// binary values are hex-encoded by the client).
//
// Elastic events: hvdrun sets the key "elastic/event/<n>" (n = 1, 2, ...) to "reset" (a worker failed or a host
// was lost: workers abort their in-flight operations with ErrorKind::kMembership and rendezvous) or
// "hosts_updated" (hosts were added or removed: workers finish the step, interrupt at their next commit and
// rendezvous). A worker watches from event E+1, E from its rendezvous answer, with a second store connection.
// Each generation's data-plane keys live under the prefix "elastic/g<G>/".
#pragma once

#include <chrono>
#include <cstddef>

namespace hvd::protocol {

inline constexpr std::chrono::seconds kHeartbeatInterval{1};
inline constexpr std::chrono::seconds kHeartbeatTimeout{10};
// "kill_grace_s" of the launch message when hvdrun has no --kill-grace: SIGTERM, then SIGKILL this much later.
inline constexpr double kDefaultKillGraceSeconds = 5;

inline constexpr std::size_t kOutputWindow = 1u << 20;  // bytes of output in flight per agent
inline constexpr std::size_t kOutputLineCost = 64;      // per line: bookkeeping and the printed prefix
inline constexpr std::size_t output_cost(std::size_t line_bytes, std::size_t lines) {
  return line_bytes + lines * kOutputLineCost;
}

// Environment the agent sets for each worker besides the HOROVOD_* contract.
inline constexpr const char* kEnvStoreAddr = "HVD_STORE_ADDR";  // host:port of hvdrun's coordination server
inline constexpr const char* kEnvSecret = "HVD_SECRET";         // job secret, hex (/proc/PID/environ is 0400)
inline constexpr const char* kEnvDataAddr = "HVD_DATA_ADDR";    // address to bind/advertise for the data plane
// Elastic jobs: HOROVOD_ELASTIC=1 (Horovod's name) and a stable worker name "<host>/<slot>". The HOROVOD_RANK
// family is set too, as Horovod sets it: the worker's place in the generation it starts into (scripts read it
// before init()); the runtime ignores it and asks hvdrun for its place at every init (the rendezvous op above),
// so after a reset hvd::rank() is the truth and the environment tells only where the worker started.
inline constexpr const char* kEnvElastic = "HOROVOD_ELASTIC";
inline constexpr const char* kEnvWorkerId = "HVD_WORKER_ID";
inline constexpr const char* kEnvElasticTimeout = "HVD_ELASTIC_TIMEOUT";  // seconds, --elastic-timeout

}  // namespace hvd::protocol
