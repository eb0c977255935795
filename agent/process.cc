#include "agent/process.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>  // clone_args, CLONE_INTO_CGROUP: glibc 2.36 has no clone3 wrapper
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <tuple>

#include "agent/worker_cgroup.h"

extern char** environ;

namespace hvd::agent {
namespace {

// What the child reports when it cannot get to exec.
struct ChildFailure {
  int stage = -1;  // -1: none (exec succeeded), 0: chdir, 1: exec, 2: entering the cgroup
  int error = 0;
};

// Everything the child needs, prepared by the parent: the child may not allocate (it runs on the parent's
// memory until exec), so candidate paths, argv and envp are built before the clone.
struct ChildArgs {
  pid_t parent;
  int out_fd, err_fd, null_fd;
  const char* cwd;
  std::vector<char*>* candidates;  // execve each in turn, as execvp walks the worker's PATH
  char** argv;
  char** envp;
  char** sh_argv;  // {"/bin/sh", <slot for the script>, argv[1]...}: execvp's fallback for a script without #!
  const char* cgroup_procs;  // non-null: the child writes its pid there before exec
  ChildFailure* failure;     // in the parent's memory (CLONE_VM), or
  int failure_fd;            // a pipe's write end (fork-style clone, memory not shared), or -1
};

[[noreturn]] void child_failed(const ChildArgs* a, int stage, int error) {
  ChildFailure failure{stage, error};
  if (a->failure_fd >= 0) {
    [[maybe_unused]] auto n = ::write(a->failure_fd, &failure, sizeof failure);
  } else {
    *a->failure = failure;
  }
  ::_exit(127);
}

// The fallback way into a cgroup: writes this process's pid, formatted without allocating.
bool enter_cgroup(const char* procs_file) {
  char digits[16];
  char* end = digits + sizeof digits;
  char* p = end;
  for (pid_t pid = ::getpid(); pid > 0; pid /= 10) *--p = static_cast<char>('0' + pid % 10);
  int fd = ::open(procs_file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, p, static_cast<std::size_t>(end - p)) == end - p;
  ::close(fd);
  return ok;
}

// Runs between clone and exec, the parent suspended until exec or exit (vfork semantics), either on its own stack
// in the parent's memory or in a copy of it: async-signal-safe calls only, and no writes to memory but through
// child_failed.
int run_child(void* raw) {
  auto* a = static_cast<ChildArgs*>(raw);
  // Asio's handlers stay installed in the child's copy of the signal table; a signal before exec must not run
  // them (they write to the agent's self-pipe), so every disposition goes back to default before signals are
  // unblocked.
  for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::setpgid(0, 0);
  // A second guard besides the agent's own teardown: the worker dies with the agent even on SIGKILL.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != a->parent) ::_exit(127);
  if (a->cgroup_procs != nullptr && !enter_cgroup(a->cgroup_procs)) child_failed(a, 2, errno);
  ::dup2(a->null_fd, STDIN_FILENO);
  ::dup2(a->out_fd, STDOUT_FILENO);
  ::dup2(a->err_fd, STDERR_FILENO);
  // Sockets and pipes the agent opened without CLOEXEC must not leak into workers.
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 4096; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  if (a->cwd != nullptr && ::chdir(a->cwd) != 0) child_failed(a, 0, errno);
  int error = ENOENT;
  bool denied = false;
  for (char* path : *a->candidates) {
    ::execve(path, a->argv, a->envp);
    error = errno;
    if (error == ENOEXEC) {
      a->sh_argv[1] = path;  // scratch the parent set aside for this; it is suspended until we exec or exit
      ::execve(a->sh_argv[0], a->sh_argv, a->envp);
      error = errno;
    }
    denied |= error == EACCES;
    if (error != ENOENT && error != ENOTDIR && error != EACCES) break;
  }
  child_failed(a, 1, denied && (error == ENOENT || error == ENOTDIR) ? EACCES : error);
}

#if defined(__x86_64__)
// clone3 starting the child on a stack of its own, as clone(2) does: fn(arg) runs there and its result is the exit
// code. A C call cannot do this (the child would return from syscall() onto an empty stack), and glibc 2.36 exports
// no clone3 wrapper, so this is its __clone3 in a dozen instructions. Returns the pid, or -errno.
extern "C" long hvd_clone3_on_stack(clone_args* args, std::size_t size, int (*fn)(void*), void* arg);
asm(R"(
    .text
    .globl hvd_clone3_on_stack
    .hidden hvd_clone3_on_stack
    .type hvd_clone3_on_stack, @function
hvd_clone3_on_stack:
    .cfi_startproc
    movq %rdx, %r8          # fn and arg survive the syscall in r8/r9 (it clobbers only rcx and r11)
    movq %rcx, %r9
    movl $435, %eax         # __NR_clone3
    syscall
    testq %rax, %rax
    jz 1f
    ret                     # the parent: the child's pid or -errno
1:
    .cfi_undefined rip      # the child, on its new stack: nothing to unwind into
    xorl %ebp, %ebp
    movq %r9, %rdi
    callq *%r8
    movl %eax, %edi
    movl $60, %eax          # __NR_exit
    syscall
    hlt
    .cfi_endproc
    .size hvd_clone3_on_stack, .-hvd_clone3_on_stack
)");
constexpr bool kCgroupChildSharesMemory = true;
#else
constexpr bool kCgroupChildSharesMemory = false;
#endif

// clone3 with CLONE_INTO_CGROUP, so the worker is born in the cgroup and nobody migrates. On x86-64 the child shares
// our memory and runs on `stack`, like the plain clone in spawn(); elsewhere it runs fork-style on a copy of it,
// which costs the agent's page tables (~0.25 ms a worker) and sends failures through child.failure_fd. -1 with errno
// when the kernel lacks it (ENOSYS before 5.3, E2BIG or EINVAL before 5.7).
pid_t clone_into_cgroup(int cgroup_dir, ChildArgs& child, std::byte* stack, std::size_t stack_size) {
  clone_args args{};
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<std::uint64_t>(cgroup_dir);
#if defined(__x86_64__)
  args.flags = CLONE_VM | CLONE_VFORK | CLONE_INTO_CGROUP;
  args.stack = reinterpret_cast<std::uint64_t>(stack);
  args.stack_size = stack_size;
  const long result = hvd_clone3_on_stack(&args, sizeof args, run_child, &child);
  if (result < 0) {
    errno = static_cast<int>(-result);
    return -1;
  }
  return static_cast<pid_t>(result);
#else
  (void)stack, (void)stack_size;
  args.flags = CLONE_VFORK | CLONE_INTO_CGROUP;
  const long pid = ::syscall(SYS_clone3, &args, sizeof args);
  if (pid == 0) run_child(&child);  // never returns
  return static_cast<pid_t>(pid);
#endif
}

// execvp's search, done before the clone: the program itself when it names a path, else each directory of the
// worker's PATH (the agent's own PATH does not matter).
std::vector<std::string> exec_candidates(const std::string& program, const std::vector<std::string>& env) {
  if (program.find('/') != std::string::npos) return {program};
  std::string path = "/bin:/usr/bin";
  for (const auto& entry : env) {
    if (entry.starts_with("PATH=")) path = entry.substr(5);
  }
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    std::size_t end = path.find(':', begin);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(begin, end - begin);
    out.push_back((dir.empty() ? std::string(".") : dir) + "/" + program);
    begin = end + 1;
  }
  return out;
}

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& overlay) {
  std::map<std::string, std::string> all;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    all.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  for (const auto& [name, value] : overlay) all[name] = value;
  std::vector<std::string> out;
  out.reserve(all.size());
  for (const auto& [name, value] : all) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::pair<UniqueFd, UniqueFd> make_pipe(const std::string& what) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw SpawnError(what + ": pipe: " + std::strerror(errno), 126);
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// Starts the child with every signal blocked (no handler may run on its borrowed stack): into the job's cgroup with
// clone3 where it can, else with clone, the child writing itself into cgroup.procs when a cgroup is asked for.
pid_t clone_child(const SpawnOptions& options, ChildArgs& child, std::byte* stack, std::size_t stack_bytes,
                  const std::string& cannot_spawn) {
  sigset_t all, previous;
  ::sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, &previous);
  pid_t pid = -1;
  int clone_errno = 0;
  if (options.cgroup_dir >= 0) {
    UniqueFd failure_r, failure_w;
    if (!kCgroupChildSharesMemory) {
      std::tie(failure_r, failure_w) = make_pipe(cannot_spawn);
      child.failure_fd = failure_w.get();
    }
    pid = clone_into_cgroup(options.cgroup_dir, child, stack, stack_bytes);
    clone_errno = errno;
    if (failure_w.valid()) {
      failure_w.reset();
      if (pid > 0 && ::read(failure_r.get(), child.failure, sizeof *child.failure) != sizeof *child.failure) {
        *child.failure = {};
      }
      child.failure_fd = -1;
    }
    if (pid < 0 && (clone_errno == ENOSYS || clone_errno == E2BIG || clone_errno == EINVAL)) {
      child.cgroup_procs = options.cgroup_procs.c_str();
    }
  }
  if (options.cgroup_dir < 0 || child.cgroup_procs != nullptr) {
    pid = ::clone(run_child, stack + stack_bytes, CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
    clone_errno = errno;
  }
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) {
    throw SpawnError("cannot start '" + options.command[0] + "'" + " on " + options.host + ": clone: " +
                         std::strerror(clone_errno),
                     126);
  }
  return pid;
}

// The child failed before or at exec: reap it and say which step failed.
[[noreturn]] void throw_child_failure(pid_t pid, const ChildFailure& failure, const SpawnOptions& options,
                                      const std::string& where) {
  const std::string& program = options.command[0];
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int code = failure.error == ENOENT ? 127 : 126;
  if (failure.stage == 2) {
    throw SpawnError("cannot start '" + program + "'" + where + " in the workers' cgroup " + options.cgroup_procs +
                         ": " + std::strerror(failure.error) + "; set " + WorkerCgroup::kRootEnv +
                         " to a cgroup v2 directory the agent may write",
                     126);
  }
  if (failure.stage == 0) {
    throw SpawnError("cannot change to directory '" + options.cwd + "'" + where + " to run '" + program +
                         "': " + std::strerror(failure.error),
                     code);
  }
  throw SpawnError("cannot execute '" + program + "'" + where + ": " + std::strerror(failure.error), code);
}

}  // namespace

// Spawns with clone(CLONE_VM | CLONE_VFORK) rather than fork: no page tables are copied and the parent resumes
// exactly when exec has succeeded or failed, so no error pipe is needed (glibc's posix_spawn works this way;
// it is not used because the child must also set PR_SET_PDEATHSIG).
Process Process::spawn(const SpawnOptions& options) {
  const std::string where = " on " + options.host;
  if (options.command.empty()) throw SpawnError("empty worker command" + where, 127);
  const std::string& program = options.command[0];
  const std::string cannot_spawn = "cannot spawn '" + program + "'" + where;
  auto [out_r, out_w] = make_pipe(cannot_spawn);
  auto [err_r, err_w] = make_pipe(cannot_spawn);
  UniqueFd null_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null_fd.valid()) throw SpawnError("cannot open /dev/null" + where + ": " + std::strerror(errno), 126);

  std::vector<std::string> args = options.command;
  std::vector<std::string> env = merged_environment(options.env);
  std::vector<std::string> candidates = exec_candidates(program, env);
  auto argv = pointers(args);
  auto envp = pointers(env);
  auto candidate_ptrs = pointers(candidates);
  candidate_ptrs.pop_back();  // a list to walk, not a null-terminated array
  std::string shell = "/bin/sh";
  std::vector<char*> sh_argv{shell.data(), nullptr};
  sh_argv.insert(sh_argv.end(), argv.begin() + 1, argv.end());  // argv's tail ends with its nullptr
  ChildFailure failure;
  ChildArgs child{.parent = ::getpid(),
                  .out_fd = out_w.get(),
                  .err_fd = err_w.get(),
                  .null_fd = null_fd.get(),
                  .cwd = options.cwd.empty() ? nullptr : options.cwd.c_str(),
                  .candidates = &candidate_ptrs,
                  .argv = argv.data(),
                  .envp = envp.data(),
                  .sh_argv = sh_argv.data(),
                  .cgroup_procs = nullptr,
                  .failure = &failure,
                  .failure_fd = -1};
  constexpr std::size_t kStackBytes = 64 * 1024;
  auto stack = std::make_unique_for_overwrite<std::byte[]>(kStackBytes);

  const pid_t pid = clone_child(options, child, stack.get(), kStackBytes, cannot_spawn);
  if (failure.stage >= 0) throw_child_failure(pid, failure, options, where);
  // The child set its own group before exec; setting it from here too keeps signal_group right regardless.
  ::setpgid(pid, pid);
  return Process(pid, std::move(out_r), std::move(err_r));
}

Process::Process(Process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      reaped_(other.reaped_),
      stdout_(std::move(other.stdout_)),
      stderr_(std::move(other.stderr_)) {}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    reaped_ = other.reaped_;
    stdout_ = std::move(other.stdout_);
    stderr_ = std::move(other.stderr_);
  }
  return *this;
}

Process::~Process() { release(); }

void Process::release() {
  if (pid_ > 0 && !reaped_) {
    ::kill(-pid_, SIGKILL);
    wait();
  }
  pid_ = -1;
}

bool Process::signal_group(int sig) const {
  if (pid_ <= 0) return false;
  return ::kill(-pid_, sig) == 0;
}

int Process::wait() {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) break;  // ECHILD: reaped elsewhere
  }
  reaped_ = true;
  return status;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* abbrev = ::sigabbrev_np(sig);
    return "signal " + std::to_string(sig) + (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "status " + std::to_string(status);
}

}  // namespace hvd::agent
