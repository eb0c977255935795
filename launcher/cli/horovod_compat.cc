#include "launcher/cli/horovod_compat.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"

namespace hvd::launcher {

std::filesystem::path find_horovod_compat_dir(const std::filesystem::path& bin_dir) {
  const std::filesystem::path candidates[] = {
      bin_dir.parent_path() / "python" / "hvd" / "_compat",
      bin_dir.parent_path() / HVD_PYTHON_INSTALL_DIR / "hvd" / "_compat",
  };
  std::string tried;
  for (const auto& dir : candidates) {
    std::error_code error;
    if (std::filesystem::is_regular_file(dir / "horovod" / "__init__.py", error)) {
      return std::filesystem::weakly_canonical(dir, error);
    }
    tried += (tried.empty() ? "" : ", ") + dir.string();
  }
  throw UsageError("--horovod-compat: hvd's Python package is not beside hvdrun (looked in " + tried +
                   "); build it (scripts/build.sh with python3-torch and pybind11-dev installed) or install it "
                   "with cmake --install, or drop --horovod-compat");
}

void add_horovod_compat(LaunchOptions& options, const std::string& shim_dir, const char* const* environ_) {
  auto given = std::find_if(options.exports.begin(), options.exports.end(),
                            [](const auto& entry) { return entry.first == "PYTHONPATH"; });
  std::string old;
  if (given != options.exports.end()) {
    old = given->second;
    options.exports.erase(given);
  } else {
    for (auto entry = environ_; entry != nullptr && *entry != nullptr; ++entry) {
      if (std::strncmp(*entry, "PYTHONPATH=", 11) == 0) old = *entry + 11;
    }
  }
  options.exports.emplace_back("PYTHONPATH", old.empty() ? shim_dir : shim_dir + ":" + old);
}

}  // namespace hvd::launcher
