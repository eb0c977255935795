// --horovod-compat: the flag parses, the shim is found beside hvdrun (build tree layout) or refused with the
// places looked at, and PYTHONPATH gets the shim first, ahead of -x PYTHONPATH or hvdrun's own.
#include "launcher/cli/horovod_compat.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <variant>

#include "common/error.h"
#include "tests/unit/launcher/command_line.h"

using namespace hvd::launcher;

namespace {

using hvd::test::parse;

std::string pythonpath(const LaunchOptions& options) {
  for (const auto& [name, value] : options.exports) {
    if (name == "PYTHONPATH") return value;
  }
  return "<unset>";
}

}  // namespace

TEST_CASE("--horovod-compat is off unless given") {
  const char* env[] = {nullptr};
  CHECK_FALSE(parse({"-np", "2", "python3", "t.py"}, env).horovod_compat);
  CHECK(parse({"--horovod-compat", "-np", "2", "python3", "t.py"}, env).horovod_compat);
}

TEST_CASE("the shim goes first on PYTHONPATH") {
  const char* env[] = {"PYTHONPATH=/home/u/lib", nullptr};
  auto options = parse({"--horovod-compat", "python3", "t.py"}, env);
  add_horovod_compat(options, "/opt/hvd/shim", env);
  CHECK(pythonpath(options) == "/opt/hvd/shim:/home/u/lib");

  auto with_x = parse({"--horovod-compat", "-x", "PYTHONPATH=/x", "python3", "t.py"}, env);
  add_horovod_compat(with_x, "/opt/hvd/shim", env);
  CHECK(pythonpath(with_x) == "/opt/hvd/shim:/x");

  const char* empty[] = {nullptr};
  auto bare = parse({"--horovod-compat", "python3", "t.py"}, empty);
  add_horovod_compat(bare, "/opt/hvd/shim", empty);
  CHECK(pythonpath(bare) == "/opt/hvd/shim");
}

TEST_CASE("the shim is found in a build tree, and its absence names the places looked at") {
  const auto root = std::filesystem::temp_directory_path() / ("hvd_compat_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "bin");
  const std::string looked_at = (root / "python" / "hvd" / "_compat").string();
  CHECK_THROWS_WITH_AS(find_horovod_compat_dir(root / "bin"), doctest::Contains(looked_at.c_str()), hvd::UsageError);
  std::filesystem::create_directories(root / "python" / "hvd" / "_compat" / "horovod");
  std::ofstream(root / "python" / "hvd" / "_compat" / "horovod" / "__init__.py") << "\n";
  CHECK(find_horovod_compat_dir(root / "bin") == root / "python" / "hvd" / "_compat");
  std::filesystem::remove_all(root);
}
