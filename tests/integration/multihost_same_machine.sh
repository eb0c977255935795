# One machine under two names on the netns cluster: h1 by name and by its address 198.51.100.11 reach the same
# host, so hvdrun refuses the job with exit 2 naming both names before any worker starts, and leaves nothing
# running there. h1 and h2 share this kernel (same boot id and machine id) but not a network: they stay two hosts.
source "$(dirname "$0")/multihost_lib.bash"

# The cluster's config names h1; let its block (key, known_hosts) apply to h1's address too.
sed 's/^Host h1$/Host h1 198.51.100.11/' "$SSH_CONFIG" >"$TEST_TMP/ssh_config_ip"
USE_CONFIG="$TEST_TMP/ssh_config_ip"
h0_hvdrun 60 -np 2 -H h1:1,198.51.100.11:1 -- sh -c 'echo "HVD_MH_TAG started"; sleep 30'
expect_rc 2 "-H h1:1,198.51.100.11:1"
expect_err "'h1' and '198.51.100.11' reach the same machine" "h1 by name and by address"
expect_err "list it once with all its slots (h1:2)" "the fix"
grep -q "HVD_MH_TAG started" <<<"$OUT" && fail "a worker started before the refusal: $OUT"
expect_no_job_on 10 h1
pass "h1 by name and by address: refused with exit 2 naming both, no worker started, nothing left on h1"

h0_hvdrun 60 -np 2 -H h1:1,h2:1 "$WORKER" env
expect_rc 0 "-H h1:1,h2:1"
[ "$(grep -c "local_rank=0 local_size=1" <<<"$OUT")" -eq 2 ] || { echo "$OUT"; fail "h1 and h2 are not two hosts"; }
pass "h1 and h2 (one kernel, two networks) stay two hosts"
