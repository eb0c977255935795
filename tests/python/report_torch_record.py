"""A script that uses torch's own @record (torch.distributed.elastic), without hvd: rank 1 raises ValueError, the
others sleep until stopped. Under hvdrun, TORCHELASTIC_ERROR_FILE is set per rank, so @record writes the error file
hvdrun's report reads (report_python_record.sh)."""

import os
import time

from torch.distributed.elastic.multiprocessing.errors import record


@record
def main():
    print(f"pid={os.getpid()}", flush=True)
    if os.environ.get("HOROVOD_RANK") == "1":
        raise ValueError("shard 7 of the training set is corrupt")
    time.sleep(60)


if __name__ == "__main__":
    main()
