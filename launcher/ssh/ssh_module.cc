#include "launcher/ssh/ssh_module.h"

#include <dlfcn.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iterator>
#include <string>
#include <string_view>

#include "common/error.h"

namespace hvd::launcher {
namespace {

StartSshAgentFn load_entry() {
  std::error_code ec;
  const std::filesystem::path bin = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
  std::string tried;
  // Relative to hvdrun's directory, as CMake placed it: installed, then the build tree (usually the same layout).
  const std::string_view dirs[] = {HVD_SSH_MODULE_INSTALL_DIR, HVD_SSH_MODULE_BUILD_DIR};
  for (std::size_t i = 0; i < std::size(dirs); ++i) {
    if (i > 0 && dirs[i] == dirs[0]) break;
    const std::string path = (bin / dirs[i] / "hvd-ssh.so").lexically_normal().string();
    // RTLD_LOCAL: libssh's symbols stay out of hvdrun's global scope.
    void* module = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) {
      tried += "\n  " + std::string(::dlerror());
      continue;
    }
    if (auto entry = reinterpret_cast<SshModuleEntryFn>(::dlsym(module, kSshModuleEntry))) {
      const auto level = spdlog::level::to_string_view(spdlog::get_level());
      return entry(std::string(level.data(), level.size()).c_str());
    }
    tried += "\n  " + path + ": no " + kSshModuleEntry + " in it (a module of another hvd version?)";
  }
  throw Error(ErrorKind::kBackend, "hvdrun cannot load its SSH module, needed to start agents on other hosts:" + tried +
              "\nreinstall hvd so that hvd-ssh.so lies in " HVD_SSH_MODULE_INSTALL_DIR " relative to hvdrun");
}

}  // namespace

std::unique_ptr<AgentProcess> start_ssh_agent_from_module(asio::io_context& io, AgentStart start, const HostSpec& host,
                                                          const SshOptions& ssh) {
  return load_entry()(io, std::move(start), host, ssh);
}

}  // namespace hvd::launcher
