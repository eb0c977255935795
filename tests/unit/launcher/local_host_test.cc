#include "launcher/plan/local_host.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/logging.h"
#include "launcher/ssh/ssh_agent.h"
#include "launcher/ssh/ssh_connection.h"

using hvd::launcher::is_local_host;
using hvd::launcher::local_interface_addresses;

TEST_CASE("loopback names and addresses are local") {
  CHECK(is_local_host("localhost"));
  CHECK(is_local_host("LOCALHOST"));
  CHECK(is_local_host("127.0.0.1"));
  CHECK(is_local_host("127.1.2.3"));
  CHECK(is_local_host("::1"));
  CHECK(is_local_host("[::1]"));
  CHECK(is_local_host("::ffff:127.0.0.1"));
}

TEST_CASE("this machine's hostname is local") {
  std::string name = hvd::this_hostname();
  CHECK(is_local_host(name));
  if (auto dot = name.find('.'); dot != std::string::npos) CHECK(is_local_host(name.substr(0, dot)));
}

TEST_CASE("every interface address is local") {
  std::vector<std::string> addresses = local_interface_addresses();
  REQUIRE_FALSE(addresses.empty());
  for (const auto& a : addresses) {
    CAPTURE(a);
    CHECK(is_local_host(a));
  }
}

TEST_CASE("other addresses and unknown names are not local") {
  CHECK_FALSE(is_local_host(""));
  CHECK_FALSE(is_local_host("203.0.113.77"));  // TEST-NET-3: never configured here
  CHECK_FALSE(is_local_host("2001:db8::77"));
  CHECK_FALSE(is_local_host("no-such-host.invalid"));
  CHECK_FALSE(is_local_host("localhost-not"));
}

TEST_CASE("the remote agent command quotes every word and checks the directory and the agent") {
  using hvd::launcher::remote_agent_command;
  using hvd::launcher::shell_quote;
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  std::string cmd = remote_agent_command({"/opt/hvd agent", "--host", "h1"}, "/work/it's here");
  CHECK(cmd.starts_with("cd '/work/it'\\''s here' 2>/dev/null || {"));
  CHECK(cmd.find("test -x '/opt/hvd agent' ||") != std::string::npos);
  CHECK(cmd.ends_with("exec '/opt/hvd agent' '--host' 'h1'"));
}
