// `hvd-agent --check-peers`: the worker that `hvdrun --check-hosts` runs once per host. It listens on this
// host's data-plane address, publishes it in the job's rendezvous store, connects to every other host's
// listener, and prints one line per peer for hvdrun to tabulate:
//   CHECK <this host> <peer host> <peer address> ok <milliseconds>
//   CHECK <this host> <peer host> <peer address> fail <reason>
// Exits 0 when every peer was reached, 1 otherwise.
#pragma once

namespace hvd::agent {

int run_peer_check();

}  // namespace hvd::agent
