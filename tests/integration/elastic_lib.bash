# Helpers for the elastic end-to-end tests (sourced after lib.bash or multihost_lib.bash; not a test itself):
# they read hvd_elastic_worker's lines (the elastic contract) from hvdrun's output, run with --prefix-timestamp.
ELASTIC_WORKER="$HVD_BIN/hvd_elastic_worker"
[ -x "$ELASTIC_WORKER" ] || fail "build hvd_elastic_worker first"
export TZ=UTC  # --prefix-timestamp's clock, read back by line_time

# reference_checksum STEPS: sets REFERENCE to the checksum of an undisturbed run of STEPS steps (one process, no
# hvdrun). The worker's gradient averages exactly at every size, and a step cut short by a reset has decayed its
# parameters: every rank of a disturbed run ends with it exactly when each reset went back to the last commit.
reference_checksum() {
  REFERENCE=$("$ELASTIC_WORKER" --steps "$1" --commit-every 1000000 | sed -n 's/.*elastic_worker done .*checksum=//p')
  [ -n "$REFERENCE" ] || fail "the undisturbed reference run printed no checksum"
}

# line_time PATTERN...: seconds since the epoch at which hvdrun printed the first line of $OUT matching the last
# PATTERN that comes after the first line matching the one before it, and so on (extended regexes).
line_time() {
  local line IFS=$'\034'  # joins the patterns for awk
  line=$(awk -v patterns="$*" 'BEGIN { n = split(patterns, p, "\034"); i = 1 }
                               $0 ~ p[i] { if (i == n) { print; exit } ++i }' <<<"$OUT")
  [ -n "$line" ] || fail "no line like '${*: -1}' (after: ${*:1:$#-1})"
  date -d "${line%% \[*}" +%s.%N
}
# now: seconds since the epoch, as line_time gives them.
now() { date +%s.%N; }

# figure WHAT FROM TO: prints the benchmark figure TO - FROM seconds.
figure() { awk -v what="$1" -v a="$2" -v b="$3" 'BEGIN { printf "figure: %s: %.2f s\n", what, b - a }'; }

# expect_commits_forward STEPS: rank 0's commit lines in $OUT strictly increase and end at STEPS (the job's
# rank 0 must be one process throughout, so that its lines are in order).
expect_commits_forward() {
  local prev=0 step
  while read -r step; do
    [ "$step" -gt "$prev" ] || fail "the committed step went from $prev to $step"
    prev=$step
  done < <(sed -n 's/.*elastic_worker commit step=\([0-9]*\) .*/\1/p' <<<"$OUT")
  [ "$prev" -eq "$1" ] || fail "the last commit was step $prev, not $1"
}

# expect_restarts_at_commits: every generation after the first starts training (each of its start lines in $OUT)
# at the step of rank 0's last commit before it: a reset goes back to that commit, neither further nor not at all.
# The commit is read at the generation's first start line (rank 0's commits of that generation come after it).
expect_restarts_at_commits() {
  local restarts
  restarts=$(awk '/elastic_worker commit step=/ { split($0, a, "commit step="); last = a[2] + 0; seen = 1 }
                  /elastic_worker start generation=/ {
                    split($0, g, "generation="); gen = g[2] + 0; split($0, s, " step="); step = s[2] + 0
                    if (gen == 0) next
                    if (!(gen in at)) { if (!seen) { print "generation " gen " started before any commit"; bad = 1 }
                                        at[gen] = last; ++n }
                    if (step != at[gen]) { print "generation " gen " started at step " step ", not at the last commit " at[gen]; bad = 1 }
                  }
                  END { if (!bad) print n + 0; exit bad }' <<<"$OUT") ||
    { grep -E "elastic_worker (commit|start)" <<<"$OUT" | tail -n 40; fail "a restart was not at the last commit: $restarts"; }
  RESTARTS=$restarts
}

# expect_rollback COMMIT COUNT: the first reset went back to step COMMIT: rank 0's last commit before generation 1
# was COMMIT, and exactly COUNT ranks started generation 1, all at step COMMIT (the survivors had trained past it).
expect_rollback() {
  local last starts
  last=$(sed -nE '/elastic_worker start generation=1 /q; s/.*elastic_worker commit step=([0-9]+) .*/\1/p' <<<"$OUT" | tail -n 1)
  [ "$last" = "$1" ] || fail "rank 0's last commit before generation 1 was step '$last', expected $1"
  starts=$(sed -nE 's/.*elastic_worker start generation=1 rank=[0-9]+ size=[0-9]+ step=([0-9]+)$/\1/p' <<<"$OUT")
  [ "$(grep -c . <<<"$starts")" -eq "$2" ] && [ "$(sort -u <<<"$starts")" = "$1" ] ||
    { grep "elastic_worker start" <<<"$OUT"; fail "expected $2 ranks to start generation 1 at step $1, got steps: $(echo $starts)"; }
}

# expect_one_reset COMMIT COUNT [CONTEXT]: the job reset once, back to rank 0's commit of step COMMIT, with COUNT
# ranks starting generation 1 there (expect_rollback), every restart at a commit (expect_restarts_at_commits), and no
# second one. CONTEXT, when given, starts the failure's message.
expect_one_reset() {
  expect_rollback "$1" "$2"
  expect_restarts_at_commits
  [ "$RESTARTS" -eq 1 ] || fail "${3:+$3: }expected 1 restart, got $RESTARTS"
}

# expect_final_checksums COUNT STEPS SIZE: COUNT ranks of size SIZE finished at STEPS, all with $REFERENCE.
expect_final_checksums() {
  local sums
  sums=$(sed -n "s/.*elastic_worker done step=$2 rank=[0-9]* size=$3 checksum=//p" <<<"$OUT")
  [ "$(grep -c . <<<"$sums")" -eq "$1" ] || { grep done <<<"$OUT"; fail "not $1 ranks of size $3 finished at $2"; }
  [ "$(sort -u <<<"$sums")" = "$REFERENCE" ] || fail "checksums $(echo $sums) differ from the undisturbed $REFERENCE"
}
