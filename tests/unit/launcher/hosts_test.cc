#include "launcher/hosts.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"

using hvd::UsageError;
using hvd::launcher::HostSpec;
using hvd::launcher::parse_host_list;
using hvd::launcher::parse_hostfile;

namespace {

// A hostfile in its own temporary directory, removed with the object.
class TempHostfile {
 public:
  explicit TempHostfile(const std::string& text)
      : dir_(std::filesystem::temp_directory_path() /
             ("hvd_hosts_test." + std::to_string(::getpid()) + "." + std::to_string(counter_++))) {
    std::filesystem::create_directories(dir_);
    std::ofstream(path()) << text;
  }
  ~TempHostfile() { std::filesystem::remove_all(dir_); }
  std::string path() const { return (dir_ / "hosts").string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
};

std::string error_of(auto&& call) {
  try {
    call();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

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
  TempHostfile empty_slots("h1 slots=\n");
  CHECK(error_of([&] { parse_hostfile(empty_slots.path()); }).find(":1 'h1 slots=': slots ''") != std::string::npos);
  TempHostfile zero_slots("\nh1 slots=0\n");
  CHECK(error_of([&] { parse_hostfile(zero_slots.path()); }).find(":2 'h1 slots=0': slots must be at least 1") !=
        std::string::npos);
  TempHostfile negative("h1 slots=-2\n");
  CHECK(error_of([&] { parse_hostfile(negative.path()); }).find("at least 1") != std::string::npos);
  TempHostfile unknown("h1 slots=2 max_slots=4\n");
  CHECK(error_of([&] { parse_hostfile(unknown.path()); })
            .find(":1 'h1 slots=2 max_slots=4': unexpected "
                  "'max_slots=4'") != std::string::npos);
  TempHostfile twice("h1:2 slots=2\n");
  CHECK(error_of([&] { parse_hostfile(twice.path()); }).find("slots given twice") != std::string::npos);
  TempHostfile bad_token("h1:x\n");
  CHECK(error_of([&] { parse_hostfile(bad_token.path()); }).find(":1 'h1:x'") != std::string::npos);
  TempHostfile duplicate("h1 slots=2\n# x\nh1 slots=2\n");
  CHECK(error_of([&] { parse_hostfile(duplicate.path()); })
            .find(":3 'h1 slots=2': host 'h1' is listed twice "
                  "(first on line 1)") != std::string::npos);
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
