# Helpers for the elastic end-to-end tests (sourced after lib.bash or multihost_lib.bash; not a test itself):
# they read hvd_elastic_worker's lines (the elastic contract) from hvdrun's output, run with --prefix-timestamp.
ELASTIC_WORKER="$HVD_BIN/hvd_elastic_worker"
[ -x "$ELASTIC_WORKER" ] || fail "build hvd_elastic_worker first"
export TZ=UTC  # --prefix-timestamp's clock, read back by line_time

# reference_checksum STEPS: sets REFERENCE to the checksum of an undisturbed run of STEPS steps (one process, no
# hvdrun). The worker's parameters depend on the step count only (its gradient averages exactly), whatever the
# sizes and resets, so every rank of a disturbed run must end with it too.
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

# expect_final_checksums COUNT STEPS SIZE: COUNT ranks of size SIZE finished at STEPS, all with $REFERENCE.
expect_final_checksums() {
  local sums
  sums=$(sed -n "s/.*elastic_worker done step=$2 rank=[0-9]* size=$3 checksum=//p" <<<"$OUT")
  [ "$(grep -c . <<<"$sums")" -eq "$1" ] || { grep done <<<"$OUT"; fail "not $1 ranks of size $3 finished at $2"; }
  [ "$(sort -u <<<"$sums")" = "$REFERENCE" ] || fail "checksums $(echo $sums) differ from the undisturbed $REFERENCE"
}
