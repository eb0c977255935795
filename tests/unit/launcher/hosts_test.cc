#include "launcher/plan/hosts.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "common/error.h"
#include "tests/unit/error_of.h"
#include "tests/unit/temp_file.h"

using hvd::UsageError;
using hvd::launcher::HostSpec;
using hvd::launcher::parse_host_list;
using hvd::launcher::parse_hostfile;

namespace {

// A hostfile in its own temporary directory, removed with the object.
struct TempHostfile : hvd::test::TempFile {
  explicit TempHostfile(const std::string& text) : TempFile(text, "hosts") {}
};

std::string error_of(auto&& call) { return hvd::test::error_of<UsageError>(call); }

}  // namespace

TEST_CASE("host list: names, slots, users") {
  const auto hosts = parse_host_list("h1:4,h2,alice@h3:2,10.0.0.1:3");
  REQUIRE(hosts.size() == 4);
  CHECK(hosts[0] == HostSpec{"", "h1", 4});
  CHECK(hosts[1] == HostSpec{"", "h2", 1});
  CHECK(hosts[2] == HostSpec{"alice", "h3", 2});
  CHECK(hosts[3] == HostSpec{"", "10.0.0.1", 3});
  CHECK(hosts[2].display() == "alice@h3:2");
  CHECK(hosts[2].target() == "alice@h3");
  CHECK(hosts[0].display() == "h1:4");
  CHECK(hosts[0].target() == "h1");
}

TEST_CASE("host list: IPv6 literals in brackets") {
  const auto hosts = parse_host_list("[::1]:2,bob@[fe80::1%eth0]");
  REQUIRE(hosts.size() == 2);
  CHECK(hosts[0] == HostSpec{"", "::1", 2});
  CHECK(hosts[0].display() == "[::1]:2");
  CHECK(hosts[1] == HostSpec{"bob", "fe80::1%eth0", 1});
  CHECK(error_of([] { parse_host_list("::1:2"); }).find("brackets") != std::string::npos);
  CHECK(error_of([] { parse_host_list("[::1:2"); }).find("missing ']'") != std::string::npos);
  CHECK_THROWS_AS(parse_host_list("[::1]x"), UsageError);
  CHECK_THROWS_AS(parse_host_list("[h1]:2"), UsageError);
}

TEST_CASE("host list: malformed tokens name the token and the fix") {
  CHECK(error_of([] { parse_host_list("h1:x"); }) ==
        "-H 'h1:x': slots 'x' is not a whole number; write NAME, NAME:SLOTS or USER@NAME:SLOTS, e.g. h1:4");
  CHECK(error_of([] { parse_host_list(":4"); }) ==
        "-H ':4': no host name; write NAME, NAME:SLOTS or USER@NAME:SLOTS, e.g. h1:4");
  CHECK(error_of([] { parse_host_list("h1:0"); }) ==
        "-H 'h1:0': slots must be at least 1; drop the host or give it 1 or more slots");
  CHECK(error_of([] { parse_host_list("h1:-1"); }) ==
        "-H 'h1:-1': slots must be at least 1; drop the host or give it 1 or more slots");
  CHECK(error_of([] { parse_host_list("h1:2,,h2:2"); }) == "-H 'h1:2,,h2:2': entry 2 is empty; remove the extra comma");
  CHECK(error_of([] { parse_host_list("h1:2,"); }).find("entry 2 is empty") != std::string::npos);
  CHECK(error_of([] { parse_host_list(""); }).find("no hosts") != std::string::npos);
  CHECK(error_of([] { parse_host_list("h1:"); }).find("slots '' is not a whole number") != std::string::npos);
  CHECK(error_of([] { parse_host_list("h1:2x"); }).find("slots '2x'") != std::string::npos);
  CHECK(error_of([] { parse_host_list("h1:99999999999"); }).find("not a whole number") != std::string::npos);
  CHECK_THROWS_AS(parse_host_list("h 1:2"), UsageError);
  CHECK_THROWS_AS(parse_host_list("-oProxyCommand=x"), UsageError);
  CHECK_THROWS_AS(parse_host_list("@h1"), UsageError);
  CHECK_THROWS_AS(parse_host_list("a@b@h1"), UsageError);
}

TEST_CASE("host list: a host listed twice") {
  CHECK(error_of([] { parse_host_list("h1:2,h2:2,h1:1"); }) ==
        "-H 'h1:2,h2:2,h1:1': host 'h1' is listed twice; list it once with all its slots (h1:3)");
  CHECK_THROWS_AS(parse_host_list("H1,h1"), UsageError);
  CHECK_THROWS_AS(parse_host_list("h1,alice@h1"), UsageError);
}

TEST_CASE("hostfile: all line forms, comments and blank lines") {
  TempHostfile file(
      "# cluster\n"
      "\n"
      "h1 slots=4\n"
      "  h2:2   # two GPUs\n"
      "h3\n"
      "alice@h4\tslots=3\r\n"
      "[::1] slots=2\n");
  const auto hosts = parse_hostfile(file.path());
  REQUIRE(hosts.size() == 5);
  CHECK(hosts[0] == HostSpec{"", "h1", 4});
  CHECK(hosts[1] == HostSpec{"", "h2", 2});
  CHECK(hosts[2] == HostSpec{"", "h3", 1});
  CHECK(hosts[3] == HostSpec{"alice", "h4", 3});
  CHECK(hosts[4] == HostSpec{"", "::1", 2});
}

TEST_CASE("hostfile: bad lines name FILE:LINE") {
  TempHostfile bad_slots("h1 slots=4\nh2 slots=x\n");
  CHECK(error_of([&] { parse_hostfile(bad_slots.path()); }) ==
        bad_slots.path() +
            ":2 'h2 slots=x': slots 'x' is not a whole number; write NAME, NAME:SLOTS or "
            "USER@NAME:SLOTS, e.g. h1:4");
  // Each file's error names the line and says what is wrong with it.
  const std::pair<const char*, const char*> cases[] = {
      {"h1 slots=\n", ":1 'h1 slots=': slots ''"},
      {"\nh1 slots=0\n", ":2 'h1 slots=0': slots must be at least 1"},
      {"h1 slots=-2\n", "at least 1"},
      {"h1 slots=2 max_slots=4\n", ":1 'h1 slots=2 max_slots=4': unexpected 'max_slots=4'"},
      {"h1:2 slots=2\n", "slots given twice"},
      {"h1:x\n", ":1 'h1:x'"},
      {"h1 slots=2\n# x\nh1 slots=2\n", ":3 'h1 slots=2': host 'h1' is listed twice (first on line 1)"},
  };
  for (const auto& [text, expected] : cases) {
    TempHostfile file(text);
    const std::string error = error_of([&] { parse_hostfile(file.path()); });
    CHECK_MESSAGE(error.find(expected) != std::string::npos, "hostfile '", text, "': ", error);
  }
}

TEST_CASE("hostfile: unreadable, a directory, or empty") {
  CHECK(error_of([] { parse_hostfile("/nonexistent/hosts"); }) ==
        "--hostfile '/nonexistent/hosts': cannot read it (No such file or directory); check the path");
  CHECK(error_of([] { parse_hostfile("/"); }).find("is a directory") != std::string::npos);
  TempHostfile comments_only("# nothing\n\n");
  CHECK(error_of([&] { parse_hostfile(comments_only.path()); }).find("lists no hosts") != std::string::npos);
}

TEST_CASE("total_slots and describe_hosts") {
  const auto hosts = parse_host_list("h1:2,bob@h2:3");
  CHECK(hvd::launcher::total_slots(hosts) == 5);
  CHECK(hvd::launcher::describe_hosts(hosts) == "h1:2, bob@h2:3");
}

TEST_CASE("host names: RFC 1123 lengths and characters, IP literals, user names") {
  const std::string label63(63, 'a');
  const std::string name253 = label63 + "." + label63 + "." + label63 + "." + std::string(61, 'b');
  REQUIRE(name253.size() == 253);
  CHECK(parse_host_list(name253 + ":2")[0].name == name253);
  CHECK(parse_host_list(label63)[0].name == label63);
  CHECK(parse_host_list("my_host-1.example.org:1")[0].name == "my_host-1.example.org");
  CHECK(parse_host_list("192.0.2.255:1")[0].name == "192.0.2.255");
  CHECK(parse_host_list("[2001:db8::1]:3")[0] == HostSpec{"", "2001:db8::1", 3});
  CHECK(parse_host_list("[::ffff:192.0.2.1]")[0].name == "::ffff:192.0.2.1");
  CHECK(parse_host_list("first.last@h1")[0].user == "first.last");

  // Each bad value names the value or the part at fault, and the fix.
  const std::string long_name(300, 'x');
  auto e = error_of([&] { parse_host_list(long_name + ":1"); });
  CHECK(e.find("at most 253 characters, this one 300") != std::string::npos);
  CHECK(e.find("e.g. h1:4") != std::string::npos);
  CHECK(e.size() < 400);  // the value is shortened, the line stays readable
  e = error_of([&] { parse_host_list(std::string(64, 'a') + ".org"); });
  CHECK(e.find("has 64 characters; a label has at most 63") != std::string::npos);
  CHECK(error_of([] { parse_host_list("h1..org"); }).find("empty label") != std::string::npos);
  CHECK(error_of([] { parse_host_list("h1.:2"); }).find("empty label") != std::string::npos);
  CHECK(error_of([] { parse_host_list("-h1"); }).find("starts or ends with '-'") != std::string::npos);
  CHECK(error_of([] { parse_host_list("h1-.org"); }).find("label 'h1-'") != std::string::npos);
  CHECK(error_of([] { parse_host_list("h!1:2"); }).find("'!', which a host name cannot have") != std::string::npos);
  CHECK(error_of([] { parse_host_list("h\x01:2"); }).find("byte 1") != std::string::npos);
  CHECK(error_of([] { parse_host_list("256.1.1.1"); }).find("'256.1.1.1' is not an IPv4 address") != std::string::npos);
  CHECK(error_of([] { parse_host_list("10.1.1:2"); }).find("not an IPv4 address") != std::string::npos);
  CHECK(error_of([] { parse_host_list("[2001:db8::g]:2"); }).find("not an IPv6 address") != std::string::npos);
  CHECK(error_of([] { parse_host_list("[1:2:3:4:5:6:7:8:9]"); }).find("not an IPv6 address") != std::string::npos);
  CHECK(error_of([] { parse_host_list("[fe80::1%]"); }).find("not an IPv6 address") != std::string::npos);
  CHECK(error_of([] { parse_host_list("::1:2"); }).find("in brackets") != std::string::npos);
  CHECK(error_of([] { parse_host_list("@h1:2"); }).find("'' before '@' is not a user name") != std::string::npos);
  CHECK(error_of([] { parse_host_list(std::string(33, 'u') + "@h1"); }).find("is not a user name") !=
        std::string::npos);
  CHECK(error_of([] { parse_host_list("a b@h1"); }).find("is not a user name") != std::string::npos);
  CHECK(error_of([] { parse_host_list("u@v@h1"); }).find("'@', which a host name cannot have") != std::string::npos);
}
