// hvdrun --horovod-compat: puts the `horovod` shim of hvd's Python package (hvd/_compat) first on the workers'
// PYTHONPATH, so an unmodified Horovod script (`import horovod.torch as hvd`) runs on hvd. Without the flag nothing
// named horovod is importable from hvd. The shim is looked for beside hvdrun: <bin>/../python/hvd/_compat (a build
// tree) and <bin>/../<python install dir>/hvd/_compat (an installed prefix); remote hosts must have it at the same
// path.
#pragma once

#include <filesystem>
#include <string>

#include "launcher/cli/options.h"

namespace hvd::launcher {

// The shim folder for an hvdrun in `bin_dir`; throws UsageError naming the places looked at and the fix.
std::filesystem::path find_horovod_compat_dir(const std::filesystem::path& bin_dir);

// Prepends `shim_dir` to the workers' PYTHONPATH: to an -x PYTHONPATH when given, else to hvdrun's own
// (`environ_`, "NAME=VALUE" entries, null-terminated). The result is an export, so it reaches remote and
// mpirun-started workers too.
void add_horovod_compat(LaunchOptions& options, const std::string& shim_dir, const char* const* environ_);

}  // namespace hvd::launcher
