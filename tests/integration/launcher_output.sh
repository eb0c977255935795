# Many ranks writing many lines at once: every line arrives whole, once, with its rank prefix; the
# unterminated last line, very long lines and '\r' progress updates come through.
source "$(dirname "$0")/lib.bash"

lines=20000
run_hvdrun 180 -np 4 "$WORKER" spam "$lines" 100
expect_rc 0 "spam"
payload=$(printf 'x%.0s' $(seq 100))
for r in 0 1 2 3; do
  n=$(grep -cE "^\[$r\]<stdout>:r$r i[0-9]+ $payload END$" <<<"$OUT" || true)
  [ "$n" -eq "$lines" ] || fail "rank $r: $n whole stdout lines, expected $lines"
  n=$(grep -cE "^\[$r\]<stderr>:e$r i[0-9]+ $payload END$" <<<"$ERR" || true)
  [ "$n" -eq "$lines" ] || fail "rank $r: $n whole stderr lines, expected $lines"
  grep -qxF "[$r]<stdout>:r$r unterminated END" <<<"$OUT" || fail "rank $r: unterminated last line lost"
  distinct=$(grep -E "^\[$r\]<stdout>:r$r i" <<<"$OUT" | sort -u | wc -l)
  [ "$distinct" -eq "$lines" ] || fail "rank $r: duplicated or missing lines ($distinct distinct)"
done
total=$(wc -l <<<"$OUT")
[ "$total" -eq $((4 * (lines + 1))) ] || fail "stdout has $total lines, expected $((4 * (lines + 1))): some line is torn"
pass "4 ranks x $lines lines on stdout and stderr: none torn, none lost"

# A 300 KB line is split into pieces, not dropped: the pieces add up to the whole.
run_hvdrun 60 -np 1 -- sh -c 'head -c 300000 /dev/zero | tr "\0" y; echo'
expect_rc 0 "long line"
got=$(sed 's/^\[0\]<stdout>://' <<<"$OUT" | tr -d '\n' | wc -c)
[ "$got" -eq 300000 ] || fail "long line: $got of 300000 bytes came through"
pass "a 300 KB line is split, not dropped"

run_hvdrun 60 -np 1 -- sh -c 'printf "10%%\r50%%\r100%%\n"'
expect_rc 0 "carriage returns"
grep -qF "50%" <<<"$OUT" || fail "\\r progress updates lost: $OUT"
grep -qF "100%" <<<"$OUT" || fail "\\r progress updates lost: $OUT"
pass "\\r progress updates come through"
