#include "agent/process.h"

#include <doctest/doctest.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "agent/worker_cgroup.h"

using hvd::agent::Process;
using hvd::agent::SpawnError;
using hvd::agent::SpawnOptions;

namespace {

SpawnOptions sh(const std::string& script) {
  SpawnOptions o;
  o.command = {"/bin/sh", "-c", script};
  o.host = "testhost";
  return o;
}

std::string read_all(hvd::UniqueFd fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd.get(), buf, sizeof buf)) > 0) out.append(buf, n);
  return out;
}

// A zombie counts as dead: its reaper may be a container's init that never waits.
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, comm, state;
  if (!(stat >> pid_field >> comm >> state)) return false;
  return state != "Z";
}

bool gone_within(pid_t pid, std::chrono::milliseconds bound) {
  auto until = std::chrono::steady_clock::now() + bound;
  while (alive(pid)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// A program that does not exist: 127, and the message names it and the host.
void expect_missing_program_fails(SpawnOptions o) {
  o.command = {"/nonexistent/program"};
  try {
    Process::spawn(o);
    FAIL("spawn succeeded");
  } catch (const SpawnError& e) {
    CHECK(e.exit_code() == 127);
    CHECK(std::string(e.what()) == "cannot execute '/nonexistent/program' on testhost: No such file or directory");
  }
}

// The workers' cgroup for a test. Where cgroup v2 is not writable the test fails, naming why: the paths these tests
// hold would otherwise go untested without a word (CI runs as root on Linux, where it is writable).
std::unique_ptr<hvd::agent::WorkerCgroup> test_cgroup() {
  std::string why_not;
  auto cgroup = hvd::agent::WorkerCgroup::create("testhost", why_not);
  if (!cgroup) {
    FAIL("no writable cgroup v2 here (" << why_not << "): run as root on Linux with cgroup2 mounted, or set "
         << std::string(hvd::agent::WorkerCgroup::kRootEnv) << " to a writable cgroup2 directory");
  }
  return cgroup;
}

}  // namespace

TEST_CASE("Process runs a shell with the overlaid environment, cwd and pipes") {
  auto o = sh("echo out $HVD_TEST_VAR; echo err >&2; pwd; read x; echo stdin=$?; exit 7");
  o.env["HVD_TEST_VAR"] = "value";
  o.cwd = "/tmp";
  auto p = Process::spawn(o);
  CHECK(::getpgid(p.pid()) == p.pid());
  auto out = read_all(p.take_stdout());
  auto err = read_all(p.take_stderr());
  int status = p.wait();
  CHECK(out == "out value\n/tmp\nstdin=1\n");  // stdin is /dev/null: read fails at EOF
  CHECK(err == "err\n");
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 7);
}

TEST_CASE("Process reports death by signal") {
  auto p = Process::spawn(sh("kill -SEGV $$"));
  int status = p.wait();
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGSEGV);
  CHECK(hvd::agent::describe_status(status) == "signal 11 (SIGSEGV)");
}

TEST_CASE("Process::spawn fails with 127 for a missing program and 126 for one not executable") {
  SpawnOptions o;
  o.host = "testhost";
  expect_missing_program_fails(o);
  std::string path = "/tmp/hvd_process_test_noexec_" + std::to_string(::getpid());
  std::ofstream(path) << "#!/bin/sh\n";
  ::chmod(path.c_str(), 0644);
  o.command = {path};
  try {
    Process::spawn(o);
    FAIL("spawn succeeded");
  } catch (const SpawnError& e) {
    CHECK(e.exit_code() == 126);
    CHECK(std::string(e.what()).find("Permission denied") != std::string::npos);
  }
  ::unlink(path.c_str());
  o.command = {"definitely-not-a-command-hvd"};
  CHECK_THROWS_AS(Process::spawn(o), SpawnError);
}

TEST_CASE("Process::spawn names the directory when cwd is missing") {
  auto o = sh("true");
  o.cwd = "/nonexistent/dir";
  try {
    Process::spawn(o);
    FAIL("spawn succeeded");
  } catch (const SpawnError& e) {
    CHECK(std::string(e.what()).find("'/nonexistent/dir'") != std::string::npos);
  }
}

TEST_CASE("Process searches the worker's PATH and runs commands relative to cwd") {
  std::string dir = "/tmp/hvd_process_test_dir_" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0755);
  std::string script = dir + "/hello.sh";
  std::ofstream(script) << "#!/bin/sh\necho hi from script\n";
  ::chmod(script.c_str(), 0755);
  SpawnOptions o;
  o.host = "testhost";
  o.command = {"./hello.sh"};
  o.cwd = dir;
  auto p = Process::spawn(o);
  CHECK(read_all(p.take_stdout()) == "hi from script\n");
  p.wait();
  o.command = {"hello.sh"};
  o.cwd = "/";
  o.env["PATH"] = dir + ":/usr/bin:/bin";
  auto q = Process::spawn(o);
  CHECK(read_all(q.take_stdout()) == "hi from script\n");
  q.wait();
  ::unlink(script.c_str());
  ::rmdir(dir.c_str());
}

TEST_CASE("a process group signal reaches grandchildren; the destructor kills and reaps") {
  pid_t grandchild = -1;
  pid_t child = -1;
  {
    auto p = Process::spawn(sh("sleep 1000 & echo $!; wait"));
    child = p.pid();
    auto out = p.take_stdout();
    std::string line;
    char c;
    while (::read(out.get(), &c, 1) == 1 && c != '\n') line.push_back(c);
    grandchild = std::stoi(line);
    CHECK(alive(grandchild));
    CHECK(::getpgid(grandchild) == child);
    CHECK(p.signal_group(SIGTERM));
    int status = p.wait();
    CHECK(WIFSIGNALED(status));
  }
  CHECK(gone_within(grandchild, std::chrono::seconds(5)));
  {
    auto p = Process::spawn(sh("sleep 1000"));
    child = p.pid();
  }
  CHECK_FALSE(alive(child));  // reaped by the destructor, so not even a zombie
}

TEST_CASE("Process is move-only and a moved-from one owns nothing") {
  auto p = Process::spawn(sh("exit 4"));
  pid_t pid = p.pid();
  Process q = std::move(p);
  CHECK(p.pid() == -1);
  CHECK(q.pid() == pid);
  CHECK(WEXITSTATUS(q.wait()) == 4);
}

TEST_CASE("Process::spawn starts a worker inside the agent's cgroup and reports failures from there too") {
  auto cgroup = test_cgroup();
  auto o = sh("grep '^0::' /proc/self/cgroup");
  o.cgroup_dir = cgroup->dir_fd();
  o.cgroup_procs = cgroup->procs_file();
  auto p = Process::spawn(o);
  auto out = read_all(p.take_stdout());
  CHECK(p.wait() == 0);
  CHECK(out.find("/hvd-testhost-" + std::to_string(::getpid()) + "\n") != std::string::npos);
  // The spawning process itself stays where it was.
  std::ifstream own("/proc/self/cgroup");
  std::string own_text((std::istreambuf_iterator<char>(own)), std::istreambuf_iterator<char>());
  CHECK(own_text.find("hvd-testhost") == std::string::npos);

  expect_missing_program_fails(o);
}

TEST_CASE("Process::spawn falls back to the child entering the cgroup itself where clone3 is refused") {
  auto cgroup = test_cgroup();
  // In a child process, clone3 answers ENOSYS as under seccomp profiles that refuse it (Docker's default) or on
  // kernels before 5.3; the worker must still start inside the cgroup.
  pid_t tester = ::fork();
  REQUIRE(tester >= 0);
  if (tester == 0) {
    sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    sock_fprog program{static_cast<unsigned short>(std::size(filter)), filter};
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || ::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
      ::_exit(3);
    try {
      auto o = sh("grep '^0::' /proc/self/cgroup");
      o.cgroup_dir = cgroup->dir_fd();
      o.cgroup_procs = cgroup->procs_file();
      auto p = Process::spawn(o);
      auto out = read_all(p.take_stdout());
      bool inside = p.wait() == 0 && out.find("/hvd-testhost-") != std::string::npos;
      ::_exit(inside ? 0 : 1);
    } catch (...) {
      ::_exit(2);
    }
  }
  int status = 0;
  REQUIRE(::waitpid(tester, &status, 0) == tester);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 1: the worker ran outside the cgroup, 2: spawn threw, 3: no seccomp
}
