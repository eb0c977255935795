# Elastic workers start with Horovod's environment (issue 20, item 11): under hvdrun --min-np 3 -H localhost:3
# each worker reads HOROVOD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE, _CROSS_RANK and _CROSS_SIZE before
# hvd.init(), and they are exactly the place the first generation gives it (hvd.rank() and family after init).
source "$(dirname "$0")/lib.bash"
source "$(dirname "$0")/python_lib.bash"

script='import os
import hvd.torch as hvd
names = ("RANK", "SIZE", "LOCAL_RANK", "LOCAL_SIZE", "CROSS_RANK", "CROSS_SIZE")
before = [os.environ.get("HOROVOD_" + n, "unset") for n in names]
hvd.init()
after = [hvd.rank(), hvd.size(), hvd.local_rank(), hvd.local_size(), hvd.cross_rank(), hvd.cross_size()]
print("env", *before, "hvd", *after, flush=True)
hvd.shutdown()'
run_hvdrun 120 --min-np 3 -H localhost:3 "$PY" -c "$script"
expect_rc 0 "an elastic job of 3 printing its environment"
for r in 0 1 2; do
  expect_lines "^\[$r\]<stdout>:env $r 3 $r 3 0 1 hvd $r 3 $r 3 0 1$" 1 "rank $r's HOROVOD_* before init = its place after"
done
pass "each elastic worker's HOROVOD_RANK family before init() is the place hvd.init() gives it"
