"""The collective case generator: seeded, reproducible cases of libhvd's collectives, each one job step written as
one line that tests/cases/case_runner_main.cc runs and checks (format: tests/cases/case_spec.h).

Every dimension has a deck of its values, shuffled from the seed; a draw takes the next card and a deck is
reshuffled when empty, so values come evenly and every value appears once a dimension has drawn as many cases as
it has values. Nothing steers cases toward known defects. What a run covered is counted in Coverage.
"""

import random
from collections import Counter, OrderedDict

DTYPES = ["uint8", "int8", "uint16", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "bool"]
FLOATS = {"float16", "bfloat16", "float32", "float64"}
REDUCTIONS = ["sum", "average", "min", "max", "product"]
OPS = ["allreduce", "grouped_allreduce", "allgather", "broadcast", "alltoall", "reducescatter", "barrier", "join"]
SHAPES = ["empty", "scalar", "fewer_rows_than_set", "rows_equal_set", "rows_not_divisible", "large"]
SCALES = ["none", "prescale", "postscale", "both", "predivide"]
SETS = ["global", "subset", "overlapping", "outsider"]
MISMATCHES = ["none", "dtype", "shape", "red", "root"]
IN_FLIGHT = [1, 2, 3, 4]
# hosts: 1, or 2 netns hosts when the run has them (fuzz_collectives.py --netns)
JOB_DIMENSIONS = OrderedDict(np=[2, 3, 4, 5], hosts=[1], backend=["builtin", "mpi"], fusion=["on", "off"],
                             hier=["0", "1"])
OP_DIMENSIONS = OrderedDict(op=OPS, dtype=DTYPES, red=REDUCTIONS, shape=SHAPES, scale=SCALES, set=SETS,
                            mismatch=MISMATCHES)
# alike: the step's ops share the first one's kind, dtype, reduction and set (what fusion packs together), or not
STEP_DIMENSIONS = OrderedDict(order=["same", "shuffled"], in_flight=IN_FLIGHT, alike=["no", "yes"])
LARGE_ELEMENTS = (1 << 18, 3 << 18)  # 1 to 3 MiB of float32
TAILS = ["-", "3", "2x2", "5"]


class Deck:
    """A dimension's values dealt evenly: each value once per round, rounds shuffled."""

    def __init__(self, values, rng):
        self.values, self.rng, self.cards = list(values), rng, []

    def draw(self, allowed=None):
        for _ in range(2 * len(self.values) + 1):
            if not self.cards:
                self.cards = list(self.values)
                self.rng.shuffle(self.cards)
            for i in range(len(self.cards) - 1, -1, -1):
                if allowed is None or allowed(self.cards[i]):
                    return self.cards.pop(i)
            self.cards = []
        raise ValueError(f"no value of {self.values} is allowed here")


class Coverage:
    """How often each value of each dimension was drawn into a case."""

    def __init__(self, dimensions):
        self.dimensions = dimensions
        self.counts = OrderedDict((d, Counter()) for d in dimensions)

    def add(self, dimension, value):
        self.counts[dimension][str(value)] += 1

    def missing(self):
        return [f"{d}={v}" for d, values in self.dimensions.items() for v in values if not self.counts[d][str(v)]]

    def table(self):
        return "\n".join(f"  {d:10} " + "  ".join(f"{v}:{self.counts[d][str(v)]}" for v in values)
                         for d, values in self.dimensions.items())


def job_line(job):
    return " ".join(f"{k}={job[k]}" for k in JOB_DIMENSIONS)


def case_line(job, step, ops):
    """One case as the runner reads it: job | step | op ; op ..."""
    return " | ".join([job_line(job), " ".join(f"{k}={v}" for k, v in step.items()),
                       " ; ".join(" ".join([kind] + [f"{k}={v}" for k, v in fields.items()]) for kind, fields in ops)])


def parse_case_line(line):
    job_text, step_text, ops_text = line.split(" | ")
    job = OrderedDict(w.split("=", 1) for w in job_text.split())
    job["np"], job["hosts"] = int(job["np"]), int(job.get("hosts", 1))
    step = OrderedDict(w.split("=", 1) for w in step_text.split())
    ops = []
    for text in ops_text.split(" ; "):
        words = text.split()
        ops.append((words[0], OrderedDict(w.split("=", 1) for w in words[1:])))
    return job, step, ops


def dots(values):
    return ".".join(str(v) for v in values)


class Generator:
    def __init__(self, seed, hosts=(1,), dtypes=DTYPES, scatter_reductions=REDUCTIONS):
        self.rng = random.Random(seed)
        self.scatter_reductions = scatter_reductions
        self.job_dimensions = OrderedDict(JOB_DIMENSIONS, hosts=list(hosts))
        dimensions = OrderedDict(**self.job_dimensions, **STEP_DIMENSIONS, **OP_DIMENSIONS)
        dimensions["dtype"] = list(dtypes)
        self.decks = {d: Deck(v, self.rng) for d, v in dimensions.items()}
        # "none" comes twelve times as often as each kind of mismatch: a mismatched op is a step of its own
        self.decks["mismatch"] = Deck(["none"] * 12 + MISMATCHES[1:], self.rng)
        self.coverage = Coverage(dimensions)
        self.drawn = []  # the draws of the op or step being made, counted once it is kept

    def draw(self, dimension, allowed=None):
        value = self.decks[dimension].draw(allowed)
        self.drawn.append((dimension, value))
        return value

    def keep(self, drawn):
        """Counts what a case that is written holds (a drawn op left out of its step is not counted)."""
        for dimension, value in drawn:
            self.coverage.add(dimension, value)

    def jobs(self, count):
        self.drawn = []
        jobs = [OrderedDict((d, self.draw(d)) for d in self.job_dimensions) for _ in range(count)]
        self.keep(self.drawn)
        return jobs

    def case(self, job):
        np_ = job["np"]
        self.drawn = []
        in_flight = self.draw("in_flight")
        step = OrderedDict(order=self.draw("order"), seed=self.rng.randrange(1 << 31))
        kept = list(self.drawn)
        ops, used_sets = [], []
        alike = self.draw("alike") if in_flight > 1 else "no"
        kept += self.drawn[len(kept):]
        for _ in range(in_flight):
            self.drawn = []
            if alike == "yes" and ops and ops[0][0] not in ("barrier", "join"):
                ops.append(self.like(ops[0], np_))
                continue
            kind = self.draw("op")
            op = self.op(kind, np_, used_sets)
            alone = op[1].get("mismatch") or kind == "join"  # it fails, or every other rank waits in join
            if alone and ops:
                break  # left for a step of its own
            ops.append(op)
            kept += self.drawn
            if alone:
                break
        kept = [(d, v) for d, v in kept if d not in ("in_flight", "alike")] + [("in_flight", len(ops))]
        if len(ops) > 1:
            kept.append(("alike", alike))
        self.keep(kept)
        return step, ops

    def members(self, np_, used_sets, allow_outsider=True):
        kind = self.draw("set", lambda s: allow_outsider or s != "outsider")
        if kind == "global":
            return kind, list(range(np_))
        if kind == "overlapping" and used_sets:
            base = self.rng.choice(used_sets)
            others = [r for r in range(np_) if r not in base]
            if others:  # one rank of `base` and one more: overlaps, and differs
                chosen = sorted({self.rng.choice(base), self.rng.choice(others)})
                used_sets.append(chosen)
                return kind, chosen
        size = self.rng.randint(1, np_ - 1)
        chosen = sorted(self.rng.sample(range(np_), size))
        used_sets.append(chosen)
        return kind, chosen

    def rows(self, shape, n):
        return {"empty": 0, "scalar": 1, "fewer_rows_than_set": max(n - 1, 0), "rows_equal_set": n,
                "rows_not_divisible": n * self.rng.randint(1, 3) + (self.rng.randint(1, n - 1) if n > 1 else 1),
                "large": self.rng.randint(*LARGE_ELEMENTS) // 4}[shape]

    def op(self, kind, np_, used_sets):
        fields = OrderedDict()
        seed = self.rng.randrange(1 << 31)
        if kind == "join":
            fields.update(dtype=self.draw("dtype", lambda d: d != "bool"), shape="3x2", late=self.rng.randrange(np_),
                          after=self.rng.choice(["allreduce", "allgather", "broadcast", "alltoall"]), seed=seed)
            return kind, fields
        set_kind, members = self.members(np_, used_sets)
        n = len(members)
        if set_kind != "global":
            fields["set"] = dots(members)
        if set_kind == "outsider":
            fields["outsider"] = 1
        if kind == "barrier":
            return kind, fields
        mismatch = self.draw("mismatch", lambda m: m == "none" or (n >= 2 and set_kind != "outsider" and (
            m in ("dtype", "shape") or (m == "red" and kind in ("allreduce", "reducescatter", "grouped_allreduce"))
            or (m == "root" and kind == "broadcast"))))
        reduces = kind in ("allreduce", "grouped_allreduce", "reducescatter")
        red = None
        if reduces:
            red = self.draw("red", lambda r: kind != "reducescatter" or r in self.scatter_reductions)
        dtype = self.draw("dtype", lambda d: d != "bool" or red != "average")
        fields["dtype"] = dtype
        shape = self.draw("shape")
        tail = self.rng.choice(TAILS) if shape != "large" else "-"
        if kind in ("allreduce", "broadcast"):
            if shape == "scalar":
                fields["shape"] = "scalar"
            else:
                fields["shape"] = "x".join([str(self.rows(shape, n))] + ([] if tail == "-" else [tail]))
        elif kind == "grouped_allreduce":
            count = self.rng.randint(2, 4)
            fields["shapes"] = ",".join(
                "scalar" if shape == "scalar" else "x".join([str(max(self.rows(shape, n) // count, 0) + t)] +
                                                            ([] if tail == "-" else [tail]))
                for t in range(count))
        elif kind == "allgather":
            top = self.rows(shape, n)
            fields["rows"] = dots([self.rng.randint(0, top) if shape != "large" else top for _ in members])
            fields["tail"] = tail
        elif kind == "reducescatter":
            fields["rows"] = self.rows(shape, n)
            fields["tail"] = tail
        elif kind == "alltoall":
            fields["tail"] = tail
            if shape == "rows_equal_set":
                fields["splits"], fields["rows"] = "equal", n * self.rng.randint(1, 3)
            else:
                total = self.rows(shape, n)
                fields["splits"] = "/".join(dots(self.split(total, n)) for _ in members)
        if kind == "broadcast":
            fields["root"] = self.rng.choice(members)
        if reduces:
            fields["red"] = red
        if kind in ("allreduce", "grouped_allreduce"):  # libhvd's reducescatter has no scale factors
            self.scale(fields, dtype, red, n)
        if mismatch != "none":
            fields["mismatch"], fields["odd"] = mismatch, self.rng.choice(members)
        fields["seed"] = seed
        return kind, fields

    def like(self, op, np_):
        """Another op of the same kind, dtype, reduction, scales and set as `op`, with shapes of its own."""
        kind, first = op
        members = [int(r) for r in first["set"].split(".")] if "set" in first else list(range(np_))
        fields = OrderedDict(first)
        fields.pop("mismatch", None), fields.pop("odd", None)
        fields["seed"] = self.rng.randrange(1 << 31)
        n = len(members)
        shape = self.rng.choice(SHAPES[:-1])
        if "shape" in fields and fields["shape"] != "scalar":
            fields["shape"] = "x".join([str(self.rows(shape, n))] + fields["shape"].split("x")[1:])
        if kind == "reducescatter":
            fields["rows"] = self.rows(shape, n)
        if kind == "allgather":
            fields["rows"] = dots([self.rng.randint(0, self.rows(shape, n)) for _ in members])
        if kind == "alltoall" and fields["splits"] != "equal":
            fields["splits"] = "/".join(dots(self.split(self.rows(shape, n), n)) for _ in members)
        return kind, fields

    def split(self, total, n):
        cuts = sorted(self.rng.randint(0, total) for _ in range(n - 1))
        return [b - a for a, b in zip([0] + cuts, cuts + [total])]

    def scale(self, fields, dtype, red, n):
        allowed = lambda s: s == "none" or (dtype != "bool" and red != "product" and (s != "predivide" or (
            dtype in FLOATS and red in ("sum", "average"))))
        kind = self.draw("scale", allowed)
        factors = [0.5, 0.25, 2, 1.5, 3] if dtype in FLOATS else [2]
        if kind in ("prescale", "both"):
            fields["pre"] = self.rng.choice(factors)
        if kind in ("postscale", "both"):
            fields["post"] = self.rng.choice(factors)
        if kind == "predivide":  # as DistributedOptimizer's gradient_predivide_factor: 1/f before, f/n after a sum
            f = self.rng.choice([2, 4])
            fields["red"], fields["pre"], fields["post"] = "sum", 1 / f, f / n if red == "average" else f


def generate(seed, count, jobs, hosts=(1,), dtypes=DTYPES, scatter_reductions=REDUCTIONS):
    """`count` cases over `jobs` job configurations: [(job, [case line, ...]), ...] and the coverage. A framework
    runner narrows `dtypes` and `scatter_reductions` to what its module offers."""
    gen = Generator(seed, hosts, dtypes, scatter_reductions)
    configs = gen.jobs(jobs)
    plan = []
    for j, job in enumerate(configs):
        share = count // jobs + (1 if j < count % jobs else 0)
        plan.append((job, [case_line(job, *gen.case(job)) for _ in range(share)]))
    return plan, gen.coverage
