#include <doctest/doctest.h>

#include "common/error.h"
#include "launcher/elastic/discovery.h"

using hvd::UsageError;
using hvd::launcher::HostSpec;
using hvd::launcher::elastic::parse_discovery_output;

TEST_CASE("discovery output: host:slots lines, blanks and comments skipped") {
  const auto hosts = parse_discovery_output("h1:2\n\n# spare\nuser@h2:4  \nh3\n", "./d.sh");
  REQUIRE(hosts.size() == 3);
  CHECK(hosts[0] == HostSpec{"", "h1", 2});
  CHECK(hosts[1] == HostSpec{"user", "h2", 4});
  CHECK(hosts[2] == HostSpec{"", "h3", 1});
  CHECK(parse_discovery_output("", "./d.sh").empty());
}

TEST_CASE("discovery output: a bad line names the script, the line and the fix") {
  auto message = [](const std::string& text) {
    try {
      parse_discovery_output(text, "./d.sh");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto bad_slots = message("h1:2\nh2:two\n");
  CHECK(bad_slots.find("./d.sh") != std::string::npos);
  CHECK(bad_slots.find("line 2") != std::string::npos);
  CHECK(message("h1:2 h2:2\n").find("one host:slots per line") != std::string::npos);
  CHECK(message("h1:2\nh1:3\n").find("listed twice") != std::string::npos);
  CHECK(message("h1:0\n").find("line 1") != std::string::npos);
}
