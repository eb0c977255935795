#include "launcher/mpi/mpi_command.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>

#include "common/error.h"
#include "launcher/cli/folder_options.h"
#include "tests/unit/launcher/command_line.h"

using hvd::launcher::make_plan;
using hvd::launcher::mpi_command;
using hvd::launcher::mpi_options;
using Words = std::vector<std::string>;

namespace {

using hvd::test::parse;

const char* const kEnv[] = {"PATH=/usr/bin",      "HOROVOD_FUSION_THRESHOLD=1024",
                            "HOROVOD_RANK=7",     "HVD_SECRET=abc",
                            "HVD_STORE_ADDR=h:1", "FOO=from-env",
                            "HOME=/root",         nullptr};
const Words kEnvWords(kEnv, kEnv + 7);

Words command_for(std::initializer_list<const char*> args, uid_t euid = 1000) {
  const auto options = parse(args, kEnv);
  return mpi_command("/usr/bin/mpirun", mpi_options(options), make_plan(options.hosts, options.np), kEnvWords, euid);
}

// True when `part` appears in `words` as consecutive words.
bool has(const Words& words, const Words& part) {
  return std::search(words.begin(), words.end(), part.begin(), part.end()) != words.end();
}

}  // namespace

TEST_CASE("mpi_command: the whole command for a plain two-host job") {
  CHECK(command_for({"--mpi", "-np", "4", "-H", "h1:2,h2:2", "python", "train.py", "--lr", "0.1"}) ==
        Words{"/usr/bin/mpirun", "--tag-output", "-np", "4", "-H", "h1:2,h2:2", "-bind-to", "none", "-map-by", "slot",
              "-x", "PATH", "-x", "HOROVOD_FUSION_THRESHOLD", "python", "train.py", "--lr", "0.1"});
}

TEST_CASE("mpi_command: no hosts means localhost with -np slots; root gets --allow-run-as-root") {
  const auto words = command_for({"--mpi", "-np", "2", "prog"}, 0);
  CHECK(words[1] == "--allow-run-as-root");
  CHECK(has(words, {"-np", "2", "-H", "localhost:2"}));
}

TEST_CASE("mpi_command: hosts become one -H list with their slots; a user is refused, naming the fix") {
  CHECK(has(command_for({"--mpi", "-H", "h1:2,h2", "prog"}), {"-np", "3", "-H", "h1:2,h2:1"}));
  const auto hostfile = std::filesystem::temp_directory_path() / ("hvd_mpi_command_test." + std::to_string(::getpid()));
  std::ofstream(hostfile) << "h1 slots=2\nh2:3\n";
  const auto from_file = command_for({"--mpi", "-np", "4", "--hostfile", hostfile.c_str(), "prog"});
  std::filesystem::remove(hostfile);
  CHECK(has(from_file, {"-np", "4", "-H", "h1:2,h2:2"}));  // the plan's hosts: the ranks placed on each
  CHECK_THROWS_WITH_AS(
      command_for({"--mpi", "-H", "alice@h1:2,h2", "prog"}),
      doctest::Contains("host 'alice@h1:2': mpirun's -H takes no user; drop 'alice@' and set 'User alice'"),
      hvd::UsageError);
}

TEST_CASE("mpi_command: forwarded variables go by name, -x with its value; placement, HVD_* and the rest stay") {
  const auto words = command_for({"--mpi", "-x", "FOO", "-x", "BAR=baz qux", "prog"});
  CHECK(has(words, {"-x", "HOROVOD_FUSION_THRESHOLD"}));
  CHECK(has(words, {"-x", "PATH"}));  // as hvdrun's own agents give remote workers
  CHECK(has(words, {"-x", "FOO=from-env", "-x", "BAR=baz qux", "prog"}));
  for (const auto& word : words) {
    CHECK(word.find("HOROVOD_RANK") == std::string::npos);
    CHECK(word.find("HVD_") == std::string::npos);
    CHECK(word.find("HOME") == std::string::npos);
  }
  // A HOROVOD_ variable named with -x goes once, with the value given.
  const auto once = command_for({"--mpi", "-x", "HOROVOD_FUSION_THRESHOLD=8", "prog"});
  CHECK(std::count(once.begin(), once.end(), "-x") == 2);  // and PATH
  CHECK(has(once, {"-x", "HOROVOD_FUSION_THRESHOLD=8"}));
}

TEST_CASE("mpi_command: SSH options become one plm_rsh_args value; the interface both TCP includes") {
  const auto words = command_for({"--mpi", "-p", "2222", "--ssh-accept-new", "--network-interface", "eth0", "prog"});
  CHECK(has(words, {"-mca", "plm_rsh_args", "-p 2222 -o StrictHostKeyChecking=accept-new"}));
  CHECK(has(words, {"-mca", "btl_tcp_if_include", "eth0", "-mca", "oob_tcp_if_include", "eth0"}));
  CHECK(std::count(words.begin(), words.end(), "plm_rsh_args") == 1);
  const auto plain = command_for({"--mpi", "prog"});
  CHECK(std::count(plain.begin(), plain.end(), "-mca") == 0);
}

TEST_CASE("mpi_command: output flags map to mpirun's; --mpi-args split shell-style just before the program") {
  const auto words = command_for({"--mpi", "--prefix-timestamp", "--output-filename", "/tmp/out", "--mpi-args",
                                  "-x BAZ=qux -mca plm_rsh_args '-p 2 -q'", "prog", "a b"});
  CHECK(has(words, {"--timestamp-output", "--output-filename", "/tmp/out"}));
  CHECK(has(words, {"-x", "BAZ=qux", "-mca", "plm_rsh_args", "-p 2 -q", "prog", "a b"}));
  CHECK(words.back() == "a b");
}

TEST_CASE("--mpi: a bad --mpi-args quote and agent-only flags are UsageErrors naming the flag") {
  CHECK_THROWS_WITH_AS(parse({"--mpi", "--mpi-args", "-x 'A", "prog"}, kEnv), doctest::Contains("--mpi-args"),
                       hvd::UsageError);
  for (const char* flag : {"--start-timeout", "--kill-grace", "--coordinator-addr", "--agent-path"}) {
    CAPTURE(flag);
    const std::string message = std::string{flag} + " does not apply with --mpi";
    CHECK_THROWS_WITH_AS(parse({"--mpi", flag, "/x", "prog"}, kEnv), doctest::Contains(message.c_str()),
                         hvd::UsageError);
  }
  CHECK_THROWS_WITH_AS(parse({"--mpi", "--check-hosts"}, kEnv), doctest::Contains("--check-hosts does not apply"),
                       hvd::UsageError);
}

TEST_CASE("mpi_command: more ranks than cores here makes MPI's waits yield instead of poll") {
  const auto options = parse({"--mpi", "-np", "4", "prog"}, kEnv);
  const auto plan = make_plan(options.hosts, options.np);
  CHECK(has(mpi_command("/usr/bin/mpirun", mpi_options(options), plan, kEnvWords, 1000, true), {"-mca", "mpi_yield_when_idle", "1"}));
  const auto words = mpi_command("/usr/bin/mpirun", mpi_options(options), plan, kEnvWords, 1000, false);
  CHECK(std::find(words.begin(), words.end(), "mpi_yield_when_idle") == words.end());
}
