// The control-plane contract between hvdrun, hvd-agent and libhvd's store client.
//
// Transport: one TCP connection per agent and per worker store client to hvdrun's coordination server,
// authenticated by the handshake in handshake.h, then frames from frame.h (JSON objects).
//
// First frame from the client says who it is:
//   {"type":"hello","role":"agent","host":"h1","pid":123,"machine":"boot=... machine=... netns=..."}
//      (agent/machine_identity.h; hvdrun refuses a job whose -H names one machine twice)
//   {"type":"hello","role":"store","rank":3}
//
// Agent link, launcher -> agent:
//   {"type":"launch","command":["./train","--x"],"cwd":"/dir","kill_grace_s":5,"output_window":1048576,
//    "ranks":[{"rank":0,"env":{"HOROVOD_RANK":"0",...}}, ...]}
//   {"type":"terminate","reason":"..."}   SIGTERM every worker's group, SIGKILL after kill_grace_s; then the
//                                          agent sends "exit" for each worker and finally "bye", and exits.
//   {"type":"kill"}                        SIGKILL every worker now (the second Ctrl-C), output not waited for;
//                                          then "exit" for each and "bye", as for "terminate".
//   {"type":"credit","bytes":N}            N bytes of output were written out by hvdrun (flow control below)
//   {"type":"heartbeat"}
// Agent link, agent -> launcher:
//   {"type":"started","rank":0,"pid":1234}
//   {"type":"spawn_failed","rank":0,"code":127,"error":"cannot execute './train': No such file or directory"}
//   {"type":"output","rank":0,"stream":"stdout"|"stderr","lines":["...", ...]}   whole lines, no '\n'
//   {"type":"exit","rank":0,"pid":1234,"code":7}   or  {"type":"exit","rank":0,"pid":1234,"signal":11}
//      plus the root-cause report's facts (agent/exit_reports.h): "time_ms", "stopped" (the agent signalled it
//      first), "outside" (a stop signal from outside the job ended it), and "record", "pending", "stderr_tail"
//   {"type":"bye"}                                  all workers are reaped; the agent stops sending (a TCP
//                                                   half-close) and exits once hvdrun closes the link
//   {"type":"heartbeat"}
// Output flow control: an agent has at most "output_window" bytes of output in flight (sent, not yet credited),
// each line counted by output_cost(); past it, it stops reading its workers' pipes, which fill, and the workers
// block on write. hvdrun credits each batch once it is written to its stdout/stderr. So a slow reader of
// hvdrun's output slows the workers down, never the control frames, and neither side's buffers grow with it.
// Either side that hears nothing for kHeartbeatTimeout counts the other as lost: the launcher stops the job
// naming the host; the agent kills its workers and exits.
//
// Store link (worker -> launcher), one request at a time, each answered once:
//   {"op":"set","key":k,"value":v}            -> {"ok":true}
//   {"op":"get","key":k,"timeout_ms":t}       -> {"ok":true,"value":v}  (waits until set, or)
//                                             -> {"ok":false,"error":"timed out waiting for key 'k'"}
//   {"op":"add","key":k,"delta":n}            -> {"ok":true,"value":<new integer value>}
//   {"op":"rendezvous","worker":"h1/0","after":G}
//      elastic jobs only (HOROVOD_ELASTIC=1): waits until hvdrun forms a generation newer than G (-1 the first
//      time) that holds this worker, then
//                                             -> {"ok":true,"generation":G2,"rank":r,"size":n,"local_rank":l,
//                                                 "local_size":m,"cross_rank":c,"cross_size":k,"hostname":"h1",
//                                                 "events":E}
//      or, when the job has no place for it (host removed or blacklisted, job ending, below --min-np after
//      --elastic-timeout)                     -> {"ok":false,"error":"<why, naming host and flag>"}
//      A generation forms once every live worker waits in rendezvous (hvdrun announces a "reset" event to bring
//      them; a worker asking after the newest generation also triggers one). Ranks: hosts in the order they
//      joined the job (so rank 0 is a survivor holding committed state), workers by slot; local and cross ranks
//      as in the static plan.
// Values are strings (UTF-8 text; binary values are hex-encoded by the client).
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
