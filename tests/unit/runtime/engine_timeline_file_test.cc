#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "hvd/error.h"
#include "runtime/engine/timeline.h"
#include "runtime/engine/timeline_file.h"

using namespace hvd::detail;

namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()))).string();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("timeline file: a complete JSON array after every append") {
  const auto path = temp_path("hvd_timeline_file");
  TimelineFile file(path, 1 << 20);
  CHECK(nlohmann::json::parse(read_all(path)).empty());
  for (int i = 0; i < 50; ++i) {
    REQUIRE(file.append(nlohmann::json{{"name", "e" + std::to_string(i)}, {"ts", i}}.dump()));
    const auto events = nlohmann::json::parse(read_all(path));  // throws if the file is not valid JSON
    REQUIRE(events.size() == static_cast<std::size_t>(i + 1));
    CHECK(events.back()["name"] == "e" + std::to_string(i));
  }
  CHECK(file.size() == read_all(path).size());
  std::remove(path.c_str());
}

TEST_CASE("timeline file: an append past the cap is refused and the file stays complete") {
  const auto path = temp_path("hvd_timeline_cap");
  TimelineFile file(path, 200);
  int appended = 0;
  while (file.append(R"({"name":"some event with a long enough name"})")) ++appended;
  CHECK(appended > 0);
  const auto text = read_all(path);
  CHECK(text.size() <= 200);
  CHECK(nlohmann::json::parse(text).size() == static_cast<std::size_t>(appended));
  std::remove(path.c_str());
}

TEST_CASE("timeline file: an unwritable path names itself") {
  CHECK_THROWS_WITH_AS(TimelineFile("/nonexistent-dir/tl.json", 1 << 20), doctest::Contains("/nonexistent-dir/tl.json"),
                       hvd::Error);
}

TEST_CASE("timeline: rank r's file puts the rank before the extension") {
  CHECK(Timeline::file_for_rank("tl.json", 0) == "tl.json");
  CHECK(Timeline::file_for_rank("tl.json", 3) == "tl.3.json");
  CHECK(Timeline::file_for_rank("/a.b/trace", 1) == "/a.b/trace.1");
  CHECK(Timeline::file_for_rank("out/.hidden", 2) == "out/.hidden.2");
}
