#include "launcher/plan/same_machine.h"

#include <doctest/doctest.h>

using hvd::launcher::HostSpec;
using hvd::launcher::same_machine_problem;

TEST_CASE("same machine: distinct identities pass, a repeated one names both hosts and the merged entry") {
  const std::vector<HostSpec> hosts{{"", "localhost", 1}, {"", "h2", 2}, {"", "127.0.0.1", 3}};
  CHECK(same_machine_problem(hosts, {"boot=a netns=1", "boot=b netns=1", "boot=a netns=2"}).empty());
  const auto problem = same_machine_problem(hosts, {"boot=a netns=1", "boot=b netns=1", "boot=a netns=1"});
  CHECK(problem.find("'localhost' and '127.0.0.1' reach the same machine") != std::string::npos);
  CHECK(problem.find("list it once with all its slots (localhost:4)") != std::string::npos);
}

TEST_CASE("same machine: an agent that reported no identity is never matched") {
  const std::vector<HostSpec> hosts{{"", "h1", 1}, {"", "h2", 1}};
  CHECK(same_machine_problem(hosts, {"", ""}).empty());
  CHECK(same_machine_problem(hosts, {"x"}).empty());
}
