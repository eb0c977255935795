"""Runs generated collective cases under hvdrun and reports every disagreement with the reference, shrunk to a
smallest failing case and printed as the command that reruns it alone (docs/testing.md, "The collective case
generator"). Used by scripts/fuzz-collectives.sh and the ctest collective_cases.

  fuzz_collectives.py --bin build/bin [--seed S] [--cases N] [--jobs J] [--minutes M] [--case LINE]

Exits 0 when every case agreed, 1 when any disagreed (or hung, or crashed its job), 2 on bad arguments.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from case_generator import DTYPES, REDUCTIONS, generate, parse_case_line  # noqa: E402
from shrink import shrink  # noqa: E402

OK = re.compile(r"CASE (\d+) ok")
FAILED = re.compile(r"CASE (\d+) FAIL ")
JOB_SECONDS = 30       # a job's start and end
CASE_SECONDS = 6       # per case: the bound that turns a hang into a failure


def job_env(job, bin_dir):
    env = dict(os.environ)
    for key in [k for k in env if k.startswith(("HOROVOD_", "HVD_"))]:
        del env[key]
    if job["fusion"] == "off":
        env["HOROVOD_FUSION_THRESHOLD"] = "0"
    env["HOROVOD_HIERARCHICAL_ALLREDUCE"] = env["HOROVOD_HIERARCHICAL_ALLGATHER"] = job["hier"]
    # a case that hangs fails its job in seconds, naming the op, instead of waiting for the stall check's minute
    env["HOROVOD_STALL_CHECK_TIME_SECONDS"] = "10"
    env["HOROVOD_STALL_SHUTDOWN_TIME_SECONDS"] = "30"
    if Runner.framework != "c++":
        env["PYTHONPATH"] = os.path.join(os.path.dirname(os.path.abspath(bin_dir)), "python")
    return env


class Runner:
    """What runs the cases on every rank: libhvd's C++ API (hvd_case_runner), or a framework module's runner
    (--framework torch: hvd.torch through tests/cases/torch_case_runner.py, with the interpreter
    scripts/framework-python.sh names)."""
    framework = "c++"
    python = None

    @classmethod
    def command(cls, bin_dir, path):
        if cls.framework == "c++":
            return [os.path.join(bin_dir, "hvd_case_runner"), path]
        here = os.path.dirname(os.path.abspath(__file__))
        return [cls.python, os.path.join(here, f"{cls.framework}_case_runner.py"), os.path.abspath(bin_dir), path]

    @classmethod
    def dtypes(cls):
        """The dtypes the runner's framework has: torch 1.13 has no uint16."""
        return [d for d in DTYPES if not (cls.framework == "torch" and d == "uint16")]

    @classmethod
    def scatter_reductions(cls):
        """hvd.torch's reducescatter takes Sum and Average only, as Horovod's does."""
        return ["sum", "average"] if cls.framework == "torch" else REDUCTIONS


class Hosts:
    """Where jobs run: this host, and with --netns the netns cluster's h1 and h2 (hvdrun started inside h0)."""
    netns = None
    ssh_config = None

    @classmethod
    def command(cls, bin_dir, job):
        hvdrun = os.path.join(bin_dir, "hvdrun")
        if job["hosts"] == 1:
            return [hvdrun, "-np", str(job["np"])]
        first = (job["np"] + 1) // 2
        return [cls.netns, "exec", "h0", hvdrun, "--ssh-config", cls.ssh_config, "-H",
                f"h1:{first},h2:{job['np'] - first}", "-np", str(job["np"])]


def run_job(bin_dir, job, lines):
    """Runs `lines` in one hvdrun job. Returns (results, output): results[k] is None (passed on every rank), a
    list of failure lines, or "unfinished" when the job ended before every rank reported it."""
    with tempfile.NamedTemporaryFile("w", suffix=".cases", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    command = Hosts.command(bin_dir, job)
    if job["backend"] == "mpi":
        command.append("--mpi")
    command += Runner.command(bin_dir, path)
    try:
        done = subprocess.run(command, env=job_env(job, bin_dir), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=JOB_SECONDS + CASE_SECONDS * len(lines))
        output = done.stdout
    except subprocess.TimeoutExpired as e:
        output = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        output += f"\n(hvdrun timed out after {e.timeout} s)"
    finally:
        os.unlink(path)
    oks, failures = {}, {}
    for line in output.splitlines():
        # mpirun's tagged output may join two ranks' lines into one: count every "ok" in a line
        for m in OK.finditer(line):
            oks[int(m.group(1))] = oks.get(int(m.group(1)), 0) + 1
        m = FAILED.search(line)
        if m:
            failures.setdefault(int(m.group(1)), []).append(line.strip())
    results = []
    for k in range(len(lines)):
        if k in failures:
            results.append(failures[k])
        elif oks.get(k, 0) == job["np"]:
            results.append(None)
        else:
            results.append("unfinished")
    return results, output


def fails(bin_dir, line):
    """Whether `line` alone fails (for shrinking): its failure lines, or None."""
    job, _, _ = parse_case_line(line)
    results, output = run_job(bin_dir, job, [line])
    if results[0] is None:
        return None
    return results[0] if results[0] != "unfinished" else ["the job did not finish the case:"] + output.splitlines()[-8:]


def run_plan(bin_dir, plan, deadline=None):
    """Runs every job of the plan; returns [(line, failure lines, seconds into the run when found)]. A job that dies mid-way is resumed after the
    case it died in, which is reported as failing."""
    found, started = [], time.monotonic()
    for job, lines in plan:
        pending = list(lines)
        while pending:
            if deadline and time.monotonic() > deadline:
                return found
            results, output = run_job(bin_dir, job, pending)
            unfinished = next((k for k, r in enumerate(results) if r == "unfinished"), None)
            for k, r in enumerate(results[:unfinished]):
                if r:
                    found.append((pending[k], r, time.monotonic() - started))
            if unfinished is None:
                break
            tail = [l for l in output.splitlines() if l.strip()][-10:]
            found.append((pending[unfinished], ["the job ended (or hung) in this case:"] + tail,
                          time.monotonic() - started))
            pending = pending[unfinished + 1:]
    return found


def report(bin_dir, found, shrink_seconds, shrink_max):
    for index, (line, failure, after) in enumerate(found):
        print(f"\nDISAGREEMENT found {after:.1f} s into the run, in: {line}")
        for f in failure[:12]:
            print(f"    {f}")
        if index >= shrink_max:
            print(f"  not shrunk (the first {shrink_max} are); rerun it: scripts/fuzz-collectives.sh --case '{line}'")
            continue
        small, small_failure, tries, seconds = shrink(line, lambda l: fails(bin_dir, l), shrink_seconds)
        print(f"  shrunk in {tries} runs, {seconds:.0f} s, to: {small}")
        for f in (small_failure or [])[:12]:
            print(f"    {f}")
        print(f"  rerun it: scripts/fuzz-collectives.sh --case '{small}'")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", required=True, help="the folder with hvdrun and hvd_case_runner (build/bin)")
    p.add_argument("--seed", type=int, help="the generator's seed (default: a new one, printed first)")
    p.add_argument("--cases", type=int, default=200, help="cases per round (default 200)")
    p.add_argument("--jobs", type=int, default=10, help="hvdrun jobs per round (default 10)")
    p.add_argument("--minutes", type=float, help="run rounds with new seeds until this much time has passed")
    p.add_argument("--case", help="run this one case line alone")
    p.add_argument("--framework", choices=["c++", "torch"], default="c++",
                   help="run the cases through libhvd's C++ API (default) or hvd.torch")
    p.add_argument("--netns", help="scripts/netns-cluster.sh, with the cluster up: jobs on 2 hosts too")
    p.add_argument("--ssh-config", help="the cluster's SSH config (netns-cluster.sh config)")
    p.add_argument("--shrink-seconds", type=float, default=120, help="time to spend shrinking each failure")
    p.add_argument("--shrink-max", type=int, default=3, help="failures shrunk per round (default 3)")
    a = p.parse_args()
    Hosts.netns, Hosts.ssh_config = a.netns, a.ssh_config
    Runner.framework = a.framework
    if a.framework != "c++":
        here = os.path.dirname(os.path.abspath(__file__))
        Runner.python = subprocess.run([os.path.join(here, "..", "..", "scripts", "framework-python.sh"), a.framework],
                                       stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    hosts = (1, 2) if a.netns else (1,)
    if a.case:
        failure = fails(a.bin, a.case)
        print("case passed" if failure is None else "case FAILED:\n    " + "\n    ".join(failure))
        return 0 if failure is None else 1
    deadline = time.monotonic() + a.minutes * 60 if a.minutes else None
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    total_cases, total_found, rounds, uncovered = 0, 0, 0, 0
    started = time.monotonic()
    while True:
        print(f"seed {seed}", flush=True)
        plan, coverage = generate(seed, a.cases, a.jobs, hosts, Runner.dtypes(), Runner.scatter_reductions())
        found = run_plan(a.bin, plan, deadline)
        rounds += 1
        total_cases += sum(len(lines) for _, lines in plan)
        total_found += len(found)
        print(f"coverage (values drawn, seed {seed}):\n{coverage.table()}")
        missing = coverage.missing()
        if missing:
            print(f"not covered by seed {seed}: {', '.join(missing)}")
            uncovered += 1
        report(a.bin, found, a.shrink_seconds, a.shrink_max)
        if not deadline or time.monotonic() > deadline:
            break
        seed = int.from_bytes(os.urandom(4), "little")
    print(f"\n{total_cases} cases in {rounds} round(s), {time.monotonic() - started:.0f} s: "
          f"{total_found} disagreement(s)")
    return 1 if total_found or uncovered else 0


if __name__ == "__main__":
    sys.exit(main())
