# Where each rank may run (docs/performance.md, "CPU placement"), read from /proc/PID/task/*/status in the ranks
# after init: hvdrun is pinned to two CPUs A,B of this machine, so the rule's inputs are fixed. With torch (one
# intra-op thread, the engine's thread: 2 busy threads) a share of 1 CPU is too few, so HVD_CPU_BIND=auto leaves
# every rank on A,B at np=2 and np=4; HVD_CPU_BIND=cores binds rank r of np=2 to the r-th CPU; none never binds;
# a program with no framework (1 busy thread, as hvd-bench) is bound under auto. OMP_NUM_THREADS=1 is given when
# ranks share a host and the user set none (one line from hvdrun), and left alone otherwise. The engine overlaps
# the framework's computation (HVD_ENGINE_OVERLAP=auto) only where every busy thread has a CPU: each rank's
# decision is read from its init debug line.
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"
unset OMP_NUM_THREADS HVD_CPU_BIND HVD_ENGINE_OVERLAP  # python_lib sets the first: hvdrun's default is under test
export HOROVOD_LOG_LEVEL=debug  # each rank's 'engine overlap:' decision

read -r A B < <("$PY" -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[1]) if len(c) > 1 else print()')
[ -n "${B:-}" ] || fail "this test needs two CPUs in its affinity mask ($(taskset -pc $$))"
BOTH=$([ "$B" -eq $((A + 1)) ] && echo "$A-$B" || echo "$A,$B")
OMP_LINE="hvdrun: OMP_NUM_THREADS=1 for every worker, as torchrun does"

# placed NP WHAT COMMAND...: runs COMMAND under hvdrun -np NP pinned to A,B; expects exit 0 and NP placement lines.
placed() {
  local np=$1 what=$2; shift 2
  run_bounded 120 "$what" taskset -c "$A,$B" "$HVDRUN" -np "$np" "$@"
  expect_rc 0 "$what"
  expect_lines "placement rank=[0-9]+ local_size=$np " "$np" "$what"
}
# rank_is R WANT WHAT: rank R's placement line (without its 'placement rank=R local_size=N' head) is WANT.
rank_is() {
  local got
  got=$(sed -n "s/^\[$1\]<stdout>:placement rank=$1 local_size=[0-9]* //p" <<<"$OUT")
  [ "$got" = "$2" ] || { echo "$OUT"; fail "$3: rank $1 got '$got', expected '$2'"; }
}
# overlap_is R WANT WHAT: rank R's engine decided WANT ('on (why)' or 'off (why)').
overlap_is() {
  local got
  got=$(sed -n "s/^\[$1\]<stderr>:.* debug: engine overlap: //p" <<<"$ERR")
  [ "$got" = "$2" ] || { echo "$ERR" | grep overlap; fail "$3: rank $1's engine overlap is '$got', expected '$2'"; }
}
omp_line_count() { grep -cF -- "$OMP_LINE" <<<"$ERR" || true; }

placed 1 "torch np=1" "$PY" "$TESTS_PY/placement_probe.py"
rank_is 0 "main=$BOTH threads=$BOTH omp=unset torch_threads=$(taskset -c "$A,$B" "$PY" -c 'import torch; print(torch.get_num_threads())')" \
  "torch np=1"
[ "$(omp_line_count)" -eq 0 ] || fail "np=1: hvdrun set OMP_NUM_THREADS for a rank alone on its host: $ERR"
NP1_TORCH_THREADS=$(taskset -c "$A,$B" "$PY" -c 'import torch; print(torch.get_num_threads())')
if [ "$NP1_TORCH_THREADS" -eq 1 ]; then
  overlap_is 0 "on (HVD_ENGINE_OVERLAP=auto: a CPU for every busy thread, 1 rank x 2 busy threads on 2 CPUs)" "np=1"
else
  overlap_is 0 "off (HVD_ENGINE_OVERLAP=auto: no spare CPU, 1 rank x $((NP1_TORCH_THREADS + 1)) busy threads on 2 CPUs)" \
    "np=1"
fi
pass "np=1: the rank keeps every CPU, OMP_NUM_THREADS unset"

for np in 2 4; do
  placed "$np" "torch np=$np" "$PY" "$TESTS_PY/placement_probe.py"
  for ((r = 0; r < np; r++)); do
    rank_is "$r" "main=$BOTH threads=$BOTH omp=1 torch_threads=1" "torch np=$np"
    overlap_is "$r" "off (HVD_ENGINE_OVERLAP=auto: no spare CPU, $np ranks x 2 busy threads on 2 CPUs)" "torch np=$np"
  done
  [ "$(omp_line_count)" -eq 1 ] || { echo "$ERR"; fail "np=$np: expected hvdrun's OMP_NUM_THREADS line once"; }
done
pass "auto, np=2 and np=4 with torch: no rank squeezed onto one CPU, no engine overlap; OMP_NUM_THREADS=1, said once"

HVD_ENGINE_OVERLAP=on placed 2 "HVD_ENGINE_OVERLAP=on np=2" "$PY" "$TESTS_PY/placement_probe.py"
for r in 0 1; do overlap_is "$r" "on (HVD_ENGINE_OVERLAP=on)" "HVD_ENGINE_OVERLAP=on"; done
pass "HVD_ENGINE_OVERLAP=on: the engine overlaps without a spare CPU"

export HVD_CPU_BIND=cores
placed 2 "HVD_CPU_BIND=cores np=2" "$PY" "$TESTS_PY/placement_probe.py"
rank_is 0 "main=$A threads=$A omp=1 torch_threads=1" "HVD_CPU_BIND=cores"
rank_is 1 "main=$B threads=$B omp=1 torch_threads=1" "HVD_CPU_BIND=cores"
placed 4 "HVD_CPU_BIND=cores np=4" "$HVD_BIN/hvd_placement_probe"
for r in 0 1 2 3; do rank_is "$r" "main=$BOTH threads=$BOTH" "HVD_CPU_BIND=cores np=4"; done
export HVD_CPU_BIND=none
placed 2 "HVD_CPU_BIND=none np=2" "$HVD_BIN/hvd_placement_probe"
for r in 0 1; do rank_is "$r" "main=$BOTH threads=$BOTH" "HVD_CPU_BIND=none"; done
pass "HVD_CPU_BIND=cores binds each rank of np=2 to its CPU (not 4 ranks on 2 CPUs); none never binds"

unset HVD_CPU_BIND
placed 2 "no framework np=2" "$HVD_BIN/hvd_placement_probe"
rank_is 0 "main=$A threads=$A" "no framework, auto"
rank_is 1 "main=$B threads=$B" "no framework, auto"
for r in 0 1; do
  overlap_is "$r" "on (HVD_ENGINE_OVERLAP=auto: a CPU for every busy thread, 1 rank x 1 busy thread on 1 CPU)" \
    "no framework, auto"
done
pass "auto, np=2 with no framework (one busy thread, as hvd-bench): each rank bound to its own CPU"

OMP_NUM_THREADS=2 placed 2 "OMP_NUM_THREADS=2 np=2" "$PY" "$TESTS_PY/placement_probe.py"
for r in 0 1; do rank_is "$r" "main=$BOTH threads=$BOTH omp=2 torch_threads=2" "user's OMP_NUM_THREADS=2"; done
[ "$(omp_line_count)" -eq 0 ] || fail "OMP_NUM_THREADS=2: hvdrun replaced the user's value: $ERR"
placed 2 "-x OMP_NUM_THREADS=1 np=2" -x OMP_NUM_THREADS=1 "$PY" "$TESTS_PY/placement_probe.py"
[ "$(omp_line_count)" -eq 0 ] || fail "-x OMP_NUM_THREADS=1: hvdrun said it set it: $ERR"
pass "the user's OMP_NUM_THREADS (environment or -x) is kept, and nothing is said"
