"""hvd.torch's runner of collective cases: the same case lines as hvd_case_runner (tests/cases/case_spec.h), run
through hvd.torch's async ops, checked against the same reference: each rank asks `hvd_case_runner --expect` for
what it must pass and get (expectation_dump.h), so no reference is written twice.

  hvdrun -np N python3 torch_case_runner.py BIN_DIR CASE_FILE

Prints what hvd_case_runner prints (CASE <k> ok | CASE <k> FAIL <what>, then CASES <n> failed <m>), so that
fuzz_collectives.py reads either.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import torch

import hvd.torch as hvd

DTYPES = {"uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
          "int64": torch.int64, "float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
          "float64": torch.float64, "bool": torch.bool}
REDUCE = {"sum": hvd.Sum, "average": hvd.Average, "min": hvd.Min, "max": hvd.Max, "product": hvd.Product}


def parse(line):
    job, step, ops_text = line.split(" | ")
    step = dict(w.split("=", 1) for w in step.split())
    ops = []
    for text in ops_text.split(" ; "):
        words = text.split()
        ops.append((words[0], dict(w.split("=", 1) for w in words[1:])))
    return step, ops


class Case:
    """One case on this rank: its ops submitted (in this rank's order), then each waited for and checked."""

    def __init__(self, index, line, expect, blob, sets):
        self.index, self.expect, self.blob, self.sets = index, expect, blob, sets
        self.step, self.ops = parse(line)
        self.failures = []

    def tensor(self, meta, dtype):
        values = self.blob[meta["at"]:meta["at"] + meta["count"]]
        return torch.from_numpy(values.copy()).reshape(meta["shape"]).to(dtype)

    def fail(self, label, what):
        self.failures.append(f"{label}: {what}")

    def compare(self, label, got, meta):
        want = torch.from_numpy(self.blob[meta["at"]:meta["at"] + meta["count"]].copy())
        bound = torch.from_numpy(self.blob[meta["bounds_at"]:meta["bounds_at"] + meta["count"]].copy())
        if list(got.shape) != list(meta["shape"]):
            return self.fail(label, f"output shape {list(got.shape)}, want {meta['shape']}")
        g = got.reshape(-1).to(torch.float64)
        bad = ((g - want).abs() > bound).nonzero().reshape(-1)[:3]
        for i in bad.tolist():
            self.fail(label, f"element {i} is {g[i].item():g}, want {want[i].item():g}")

    def start(self, k, kind, f, e):
        """Submits op k; returns (handle or None, its input tensors)."""
        f = e["fields"]  # as this rank sees the op: a mismatch's odd rank passes its own root or reduction
        name = f"c{self.index}.{k}"
        ps = self.sets.get(f.get("set"), hvd.global_process_set)
        dtype = DTYPES[e["dtype"]]
        inputs = [self.tensor(t, dtype) for t in e["inputs"]]
        red = REDUCE.get(f.get("red"))
        pre, post = float(f.get("pre", 1)), float(f.get("post", 1))
        if kind == "allreduce":
            return hvd.allreduce_async(inputs[0], name=name, op=red, prescale_factor=pre, postscale_factor=post,
                                       process_set=ps), inputs
        if kind == "grouped_allreduce":
            return hvd.grouped_allreduce_async(inputs, name=name, op=red, prescale_factor=pre,
                                               postscale_factor=post, process_set=ps), inputs
        if kind == "reducescatter":
            return hvd.reducescatter_async(inputs[0], name=name, op=red, process_set=ps), inputs
        if kind == "allgather":
            return hvd.allgather_async(inputs[0], name=name, process_set=ps), inputs
        if kind == "broadcast":
            return hvd.broadcast_async_(inputs[0], int(f["root"]), name=name, process_set=ps), inputs
        if kind == "alltoall":
            return hvd.alltoall_async(inputs[0], splits=e["splits"] or None, name=name, process_set=ps), inputs
        raise ValueError(f"no op kind {kind}")

    def finish(self, label, kind, e, handle, inputs, error):
        result = None
        if error is None and handle is not None:
            try:
                result = hvd.synchronize(handle)
            except Exception as x:  # an expected error, or a failure to report
                error = x
        if e["error"]:
            if error is None:
                return self.fail(label, f"returned a result, want an error ({e['error']['phrase']})")
            if e["error"]["phrase"] not in str(error):
                return self.fail(label, f"error does not name '{e['error']['phrase']}': {error}")
            if not isinstance(error, hvd.HorovodInternalError):
                return self.fail(label, f"raised {type(error).__name__}, want a HorovodInternalError: {error}")
            return
        if error is not None:
            return self.fail(label, f"failed: {type(error).__name__}: {error}")
        if kind in ("allreduce", "reducescatter", "allgather"):
            return self.compare(label, result, e["outputs"][0])
        if kind == "grouped_allreduce":
            for t, (out, meta) in enumerate(zip(result, e["outputs"])):
                self.compare(f"{label} tensor {t}", out, meta)
            return
        if kind == "broadcast":
            return self.compare(label, inputs[0], e["outputs"][0])
        output, received = result
        self.compare(label, output, e["outputs"][0])
        if [int(s) for s in received.tolist()] != e["received_splits"]:
            self.fail(label, f"received splits {received.tolist()}, want {e['received_splits']}")

    def join(self, label, f, e, rank):
        late = int(f["late"])
        if rank == late:
            tensor = self.tensor(e["inputs"][0], DTYPES[e["dtype"]])
            name, after = f"c{self.index}.join", f.get("after", "allreduce")
            try:
                if after == "allreduce":  # the joined ranks add zeros: its own tensor back
                    self.compare(f"{label} allreduce after the others joined",
                                 hvd.allreduce(tensor, name=name, op=hvd.Sum), e["outputs"][0])
                else:
                    error = None
                    try:
                        if after == "allgather":
                            hvd.allgather(tensor, name=name)
                        elif after == "broadcast":
                            hvd.broadcast(tensor, late, name=name)
                        else:
                            splits = [0] * hvd.size()
                            splits[rank] = tensor.shape[0] if tensor.dim() else 1
                            hvd.alltoall(tensor, splits=splits, name=name)
                    except Exception as x:
                        error = x
                    if error is None or "joined" not in str(error):
                        self.fail(f"{label} {after} after the others joined", f"want an error naming 'joined': {error}")
            except Exception as x:
                self.fail(label, f"{type(x).__name__}: {x}")
        last = hvd.join()
        if last != late:
            self.fail(label, f"join returned {last}, want {late}")

    def run(self, rank, size):
        started, blocking = [], []
        for k, (kind, f) in enumerate(self.ops):
            label = f"op {k} {kind} 'c{self.index}.{k}' {f.get('dtype', '')}"
            e = self.expect[k]
            if kind == "join":
                self.join(label, f, e, rank)
                continue
            if not e["member"] and not f.get("outsider"):
                continue
            if kind == "barrier":
                blocking.append((label, f, e))
            else:
                started.append((k, label, kind, f, e))
        if self.step.get("order") == "shuffled":  # this rank's own order, as hvd_case_runner draws its own
            random.Random(int(self.step.get("seed", 0)) * 7919 + rank).shuffle(started)
        running = []
        for k, label, kind, f, e in started:
            try:
                handle, inputs = self.start(k, kind, f, e)
                running.append((label, kind, e, handle, inputs, None))
            except Exception as x:
                running.append((label, kind, e, None, None, x))
        for label, f, e in blocking:  # after the async ops, in the written order (execute.cc says why)
            error = None
            try:
                hvd.barrier(process_set=self.sets.get(f.get("set"), hvd.global_process_set))
            except Exception as x:
                error = x
            if e["member"] and error is not None:
                self.fail(label, f"failed: {error}")
            if not e["member"] and (error is None or "process set" not in str(error)):
                self.fail(label, f"want an error naming 'process set': {error}")
        for entry in running:
            self.finish(*entry)
        return self.failures


def main():
    bin_dir, path = sys.argv[1], sys.argv[2]
    lines = [l.rstrip("\n") for l in open(path) if l.strip() and not l.startswith("#")]
    set_texts = []
    for line in lines:
        for _, f in parse(line)[1]:
            if "set" in f and f["set"] not in set_texts:
                set_texts.append(f["set"])
    process_sets = [hvd.ProcessSet([int(r) for r in t.split(".")]) for t in set_texts]
    hvd.init(process_sets=process_sets)
    sets = dict(zip(set_texts, process_sets))
    rank, size = hvd.rank(), hvd.size()  # under mpirun (--mpi) no HOROVOD_RANK is set
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([os.path.join(bin_dir, "hvd_case_runner"), "--expect", path, str(rank), str(size), folder],
                       check=True)
        expect = json.load(open(os.path.join(folder, f"r{rank}.json")))
        blob = np.fromfile(os.path.join(folder, f"r{rank}.bin"), dtype=np.float64)
    failed = 0
    for k, line in enumerate(lines):
        failures = Case(k, line, expect[k], blob, sets).run(rank, size)
        if failures:
            failed += 1
            for f in failures:
                print(f"CASE {k} FAIL {f}", flush=True)
        else:
            print(f"CASE {k} ok", flush=True)
    print(f"CASES {len(lines)} failed {failed}", flush=True)
    hvd.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
