#include "launcher/cli/options.h"

#include <doctest/doctest.h>

#include <initializer_list>

#include "common/error.h"
#include "tests/unit/launcher/command_line.h"
#include "tests/unit/temp_file.h"

using hvd::UsageError;
using hvd::launcher::ExitNow;
using hvd::launcher::HostSpec;
using hvd::launcher::LaunchOptions;

namespace {

using hvd::test::parse;
using hvd::test::parse_any;
using hvd::test::error_of;

using Command = std::vector<std::string>;

using hvd::test::TempFile;

}  // namespace

TEST_CASE("defaults: one rank on localhost") {
  const auto options = parse({"./train"});
  CHECK(options.np == 1);
  CHECK(options.hosts == std::vector<HostSpec>{{"", "localhost", 1}});
  CHECK(options.command == Command{"./train"});
  CHECK(options.start_timeout_s == 30);
  CHECK(options.kill_grace_s == 5);
  CHECK(options.log_level == "warning");
  CHECK_FALSE(options.verbose);
  CHECK(options.exports.empty());
}

TEST_CASE("-np N without hosts: localhost:N") {
  const auto options = parse({"-np", "4", "./train"});
  CHECK(options.np == 4);
  CHECK(options.hosts == std::vector<HostSpec>{{"", "localhost", 4}});
  CHECK(parse({"-np=3", "x"}).np == 3);
  CHECK(parse({"--num-proc", "2", "x"}).np == 2);
  CHECK(parse({"-n", "2", "x"}).np == 2);
}

TEST_CASE("everything after the command belongs to it, even flags") {
  CHECK(parse({"-np", "2", "./train", "--epochs", "1"}).command == Command{"./train", "--epochs", "1"});
  CHECK(parse({"-np", "2", "./train", "-np", "3", "--verbose", "-H", "x"}).command ==
        Command{"./train", "-np", "3", "--verbose", "-H", "x"});
  const auto options = parse({"./train", "--help", "--version", "--", "-x"});
  CHECK(options.command == Command{"./train", "--help", "--version", "--", "-x"});
  CHECK_FALSE(options.verbose);
  CHECK(options.np == 1);
}

TEST_CASE("-- ends the options") {
  CHECK(parse({"-np", "2", "--", "./train", "-np", "5"}).command == Command{"./train", "-np", "5"});
  CHECK(parse({"--", "--weird-name"}).command == Command{"--weird-name"});
  CHECK(parse({"--verbose", "--", "python3", "-c", "print(1)"}).command == Command{"python3", "-c", "print(1)"});
}

TEST_CASE("hosts: -H, all slots by default, first N slots with -np") {
  auto options = parse({"-H", "h1:2,h2:2", "./t"});
  CHECK(options.np == 4);
  CHECK(options.hosts.size() == 2);
  options = parse({"-np", "3", "--hosts", "h1:2,h2:2", "./t"});
  CHECK(options.np == 3);
  CHECK(options.hosts.size() == 2);  // the plan, not the options, drops unused hosts
}

TEST_CASE("hosts: --hostfile") {
  TempFile file("h1 slots=2\nh2:3\n");
  const auto options = parse({"--hostfile", file.path().c_str(), "./t"});
  CHECK(options.np == 5);
  CHECK(options.hosts == std::vector<HostSpec>{{"", "h1", 2}, {"", "h2", 3}});
  CHECK(error_of({"--hostfile", "/nonexistent/hosts", "./t"}).find("cannot read it") != std::string::npos);
}

TEST_CASE("all the other flags") {
  TempFile key("key");
  const auto options = parse({"--start-timeout",
                              "12.5",
                              "--kill-grace",
                              "0",
                              "--output-filename",
                              "/tmp/out",
                              "--prefix-timestamp",
                              "--verbose",
                              "--log-level",
                              "debug",
                              "-p",
                              "2222",
                              "-i",
                              key.path().c_str(),
                              "--ssh-config",
                              key.path().c_str(),
                              "--ssh-accept-new",
                              "--agent-path",
                              "/opt/hvd/bin/hvd-agent",
                              "--network-interface",
                              "eth0",
                              "./t"});
  CHECK(options.start_timeout_s == 12.5);
  CHECK(options.kill_grace_s == 0);
  CHECK(options.output_dir == "/tmp/out");
  CHECK(options.prefix_timestamp);
  CHECK(options.verbose);
  CHECK(options.log_level == "debug");
  CHECK(options.ssh_port == 2222);
  CHECK(options.ssh_identity_file == key.path());
  CHECK(options.ssh_config == key.path());
  CHECK(options.ssh_accept_new);
  CHECK(options.agent_path == "/opt/hvd/bin/hvd-agent");
  CHECK(options.network_interface == "eth0");
  CHECK(options.command == Command{"./t"});
  CHECK(parse({"--coordinator-addr", "10.0.0.1", "./t"}).coordinator_addr == "10.0.0.1");
  // --mpi takes the SSH and interface flags too (mpi_command_test.cc); the agents' own flags it refuses.
  const auto mpi = parse({"--mpi", "--mpi-args", "--bind-to none", "--network-interface", "eth0", "./t"});
  CHECK(mpi.mpi);
  CHECK(mpi.mpi_args == "--bind-to none");
}

TEST_CASE("--start-timeout falls back to HOROVOD_START_TIMEOUT") {
  const char* const env[] = {"HOROVOD_START_TIMEOUT=45", nullptr};
  CHECK(parse({"./t"}, env).start_timeout_s == 45);
  CHECK(parse({"--start-timeout", "7", "./t"}, env).start_timeout_s == 7);
  const char* const bad[] = {"HOROVOD_START_TIMEOUT=soon", nullptr};
  CHECK(error_of({"./t"}, bad) ==
        "bad HOROVOD_START_TIMEOUT='soon': expected a number of seconds above 0; fix or unset it");
  CHECK(parse({"--start-timeout", "7", "./t"}, bad).start_timeout_s == 7);
}

TEST_CASE("-x: from the environment or with a value, repeatable, in order") {
  const char* const env[] = {"FOO=from-env", "BAR=b", nullptr};
  const auto options = parse({"-x", "FOO", "-x", "BAZ=1=2", "-x", "BAR", "-x", "EMPTY=", "./t", "-x", "Q"}, env);
  using Exports = std::vector<std::pair<std::string, std::string>>;
  CHECK(options.exports == Exports{{"FOO", "from-env"}, {"BAZ", "1=2"}, {"BAR", "b"}, {"EMPTY", ""}});
  CHECK(options.command == Command{"./t", "-x", "Q"});
  CHECK(parse({"-x", "A=1", "-x", "A=2", "./t"}).exports == Exports{{"A", "2"}});
  CHECK(parse({"-xA=1", "./t"}).exports == Exports{{"A", "1"}});
}

TEST_CASE("-x errors") {
  CHECK(error_of({"-x", "NOPE", "./t"}) ==
        "-x NOPE: NOPE is not set in hvdrun's environment; export it or write -x NOPE=VALUE");
  CHECK(error_of({"-x", "HOROVOD_RANK=3", "./t"}) ==
        "-x HOROVOD_RANK: hvdrun sets it for each rank; drop -x HOROVOD_RANK");
  CHECK(error_of({"-x", "HVD_SECRET=x", "./t"}).find("hvdrun sets it") != std::string::npos);
  CHECK(error_of({"-x", "1BAD=x", "./t"}).find("not a variable name") != std::string::npos);
  CHECK(error_of({"-x", "=x", "./t"}).find("not a variable name") != std::string::npos);
}

TEST_CASE("--help and --version exit at once") {
  auto result = parse_any({"--version"});
  REQUIRE(std::holds_alternative<ExitNow>(result));
  CHECK(std::get<ExitNow>(result).code == 0);
  // The version line, then what the build has (launcher_version_man checks those against --check-build).
  CHECK(std::get<ExitNow>(result).text.starts_with("hvdrun 0.1.0\nbackends: built-in TCP and shared memory; MPI: "));
  result = parse_any({"--help"});
  REQUIRE(std::holds_alternative<ExitNow>(result));
  CHECK(std::get<ExitNow>(result).code == 0);
  const auto& help = std::get<ExitNow>(result).text;
  for (const char* flag : {"--num-proc", "-np", "--hosts", "--hostfile", "--start-timeout", "-x", "--ssh-port",
                           "--check-hosts", "--check-build", "--mpi-args"}) {
    CHECK_MESSAGE(help.find(flag) != std::string::npos, flag);
  }
  CHECK(std::holds_alternative<ExitNow>(parse_any({"-np", "2", "-h"})));
}

TEST_CASE("check modes need no command") {
  CHECK(parse({"--check-hosts", "-H", "h1,h2"}).check_hosts);
  CHECK(parse({"--check-build"}).check_build);
  CHECK(error_of({"--check-hosts", "./t"}) == "--check-hosts runs no command; drop './t'");
}

TEST_CASE("usage errors: one line naming the value and the fix") {
  CHECK(error_of({}) == "no command given; usage: hvdrun [options] [--] COMMAND [ARGS...]");
  CHECK(error_of({"-np", "2"}) == "no command given; usage: hvdrun [options] [--] COMMAND [ARGS...]");
  CHECK(error_of({"-np", "2", "--"}).starts_with("no command given"));
  CHECK(error_of({"-np", "0", "./t"}) == "-np 0: must be from 1 to 1048576; give e.g. -np 4");
  CHECK(error_of({"-np", "-1", "./t"}) == "-np -1: must be from 1 to 1048576; give e.g. -np 4");
  CHECK(error_of({"-np", "four", "./t"}) == "-np 'four' is not a whole number; give e.g. -np 4");
  CHECK(error_of({"-np", "2.5", "./t"}).find("not a whole number") != std::string::npos);
  CHECK(error_of({"-np", "8", "-H", "h1:2,h2:2", "./t"}) ==
        "-np 8 but the hosts offer 4 slots (h1:2, h2:2); lower -np or add hosts");
  CHECK(error_of({"-H", "h1:x", "./t"}).starts_with("-H 'h1:x': slots 'x' is not a whole number"));
  CHECK(error_of({"-H", "h1:2,h1:2", "./t"}).find("listed twice") != std::string::npos);
  CHECK(error_of({"-H", "h1", "--hostfile", "f", "./t"}) == "-H and --hostfile both given; use one of them");
  CHECK(error_of({"--start-timeout", "abc", "./t"}) ==
        "--start-timeout 'abc' is not a number of seconds; give e.g. --start-timeout 30");
  CHECK(error_of({"--start-timeout", "0", "./t"}).find("more than 0") != std::string::npos);
  CHECK(error_of({"--kill-grace", "-1", "./t"}).find("0 or more") != std::string::npos);
  CHECK(error_of({"--kill-grace", "inf", "./t"}).find("not a number of seconds") != std::string::npos);
  CHECK(error_of({"--log-level", "loud", "./t"}).starts_with("--log-level 'loud' is unknown"));
  CHECK(error_of({"-p", "70000", "./t"}) == "--ssh-port 70000: must be from 1 to 65535; give e.g. -p 22");
  CHECK(error_of({"-i", "/nonexistent/key", "./t"}).find("--ssh-identity-file '/nonexistent/key': cannot read") !=
        std::string::npos);
  CHECK(error_of({"--agent-path", "hvd-agent", "./t"}).find("not an absolute path") != std::string::npos);
  CHECK(error_of({"--network-interface", "eth0", "--coordinator-addr", "x", "./t"}).find("use one of them") !=
        std::string::npos);
  CHECK(error_of({"--mpi-args", "-v", "./t"}) == "--mpi-args needs --mpi; add --mpi");
  CHECK(error_of({"--output-filename", "", "./t"}).find("--output-filename is empty") != std::string::npos);
}

TEST_CASE("unknown and malformed flags: one line, a usage error") {
  for (const auto& text : {error_of({"--bogus", "./t"}), error_of({"-q", "./t"}), error_of({"--bogus", "--", "./t"}),
                           error_of({"--bogus=1", "./t"})}) {
    CHECK(text.starts_with("unknown flag '"));
    CHECK(text.find('\n') == std::string::npos);
  }
  const auto missing_value = error_of({"./t", "-np"});  // fine: -np belongs to the command
  CHECK(missing_value.empty());
  const auto no_value = error_of({"-H"});
  CHECK(no_value.find("see hvdrun --help") != std::string::npos);
  CHECK(no_value.find('\n') == std::string::npos);
  CHECK(error_of({"-np", "2", "-np", "3", "./t"}).find("see hvdrun --help") != std::string::npos);
}
