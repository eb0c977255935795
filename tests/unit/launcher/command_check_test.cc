#include "launcher/checks/command_check.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"

using hvd::UsageError;
using hvd::launcher::resolve_command;
namespace fs = std::filesystem;

namespace {

// A temporary directory with a script "tool" (executable) and "data" (not executable); the test runs inside it.
class Sandbox {
 public:
  Sandbox() : dir_(fs::temp_directory_path() / ("hvd_command_check_test." + std::to_string(::getpid()))) {
    fs::create_directories(dir_ / "bin");
    fs::create_directories(dir_ / "sub");
    write("bin/tool", 0755);
    write("bin/data", 0644);
    write("local", 0755);
    previous_ = fs::current_path();
    fs::current_path(dir_);
  }
  ~Sandbox() {
    fs::current_path(previous_);
    fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  void write(const std::string& name, mode_t mode) {
    std::ofstream(dir_ / name) << "#!/bin/sh\n";
    ::chmod((dir_ / name).c_str(), mode);
  }
  fs::path dir_;
  fs::path previous_;
};

std::string error_of(const std::string& command, const std::string& path_env) {
  try {
    resolve_command(command, path_env);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("resolve_command: found in PATH, first match wins") {
  Sandbox box;
  CHECK(resolve_command("tool", "/nonexistent:" + box.path("bin")) == box.path("bin/tool"));
  CHECK(resolve_command("sh", "/usr/bin:/bin").ends_with("/sh"));
  // An empty PATH entry is the current directory, as for execvp.
  CHECK(resolve_command("local", "/nonexistent:") == box.path("local"));
}

TEST_CASE("resolve_command: a path is checked, not searched, and made absolute") {
  Sandbox box;
  CHECK(resolve_command("./local", "") == box.path("local"));
  CHECK(resolve_command("bin/tool", "") == box.path("bin/tool"));
  CHECK(resolve_command("sub/../bin/tool", "") == box.path("bin/tool"));
  CHECK(resolve_command(box.path("bin/tool"), "") == box.path("bin/tool"));
}

TEST_CASE("resolve_command: errors name the command and the fix") {
  Sandbox box;
  CHECK(error_of("nosuch", "/usr/bin:" + box.path("bin")) ==
        "command 'nosuch' not found in PATH; give its path (./nosuch) or add its directory to PATH");
  CHECK(error_of("data", box.path("bin")) == "command 'data' found at " + box.path("bin/data") +
                                                 " but it is not executable; chmod +x " + box.path("bin/data"));
  CHECK(error_of("./bin/data", "") == "'./bin/data' is not executable; chmod +x ./bin/data");
  CHECK(error_of("./missing", "").starts_with("'./missing' does not exist; check the path (relative to "));
  CHECK(error_of("./sub", "") == "'./sub' is a directory; give the program to run");
  CHECK(error_of("", "/bin").starts_with("the command is empty"));
  CHECK(error_of("tool", "") != "(no error)");  // only the current directory is searched
}
