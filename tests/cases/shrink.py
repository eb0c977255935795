"""Shrinks a failing collective case to a smallest one that still fails: fewer ops, fewer ranks, smaller shapes,
then the simpler setting of each job and step option. Greedy: the first smaller candidate that still fails is kept,
and candidates are tried again from it, until none fails or the time is up.
"""

import time
from collections import OrderedDict

from case_generator import case_line, parse_case_line, dots


def _members(fields, np_):
    return [int(r) for r in fields["set"].split(".")] if "set" in fields else list(range(np_))


def _without_rank(job, step, ops, gone):
    """The case on np-1 ranks: rank `gone` (the last) leaves every set and every per-member list."""
    np_ = job["np"] - 1
    if np_ < 2:
        return None
    out = []
    for kind, fields in ops:
        f = OrderedDict(fields)
        members = _members(fields, job["np"])
        if kind == "join":
            if int(f["late"]) == gone:
                f["late"] = 0
            out.append((kind, f))
            continue
        if gone in members:
            at = members.index(gone)
            members = members[:at] + members[at + 1:]
            if not members:
                continue
            if "rows" in f and kind == "allgather":
                rows = f["rows"].split(".")
                f["rows"] = ".".join(rows[:at] + rows[at + 1:])
            if kind == "alltoall" and f.get("splits") == "equal":
                f["rows"] = int(f["rows"]) // (len(members) + 1) * len(members)
            elif kind == "alltoall":
                matrix = [row.split(".") for row in f["splits"].split("/")]
                matrix = [r[:at] + r[at + 1:] for r in matrix[:at] + matrix[at + 1:]]
                f["splits"] = "/".join(".".join(r) for r in matrix)
            if "root" in f and int(f["root"]) == gone:
                f["root"] = members[0]
            if "odd" in f and int(f["odd"]) == gone:
                f["odd"] = members[-1]
        if "set" in f:
            if len(members) == np_:
                del f["set"]
                f.pop("outsider", None)
            else:
                f["set"] = dots(members)
        if "odd" in f and len(members) < 2:
            continue
        out.append((kind, f))
    if not out:
        return None
    return OrderedDict(job, np=np_), step, out


def _smaller_shapes(text):
    """Smaller versions of a shape field's value: 'AxB' -> fewer elements."""
    if text in ("scalar", "-"):
        return []
    dims = [int(d) for d in text.split("x")]
    found = []
    if len(dims) > 1:
        found.append("x".join(str(d) for d in dims[:1]))
    for i, d in enumerate(dims):
        for smaller in sorted({d // 2, 1, 0}):
            if smaller < d:
                found.append("x".join(str(smaller if j == i else x) for j, x in enumerate(dims)))
    return found


def _candidates(line):
    job, step, ops = parse_case_line(line)
    if len(ops) > 1:
        for i in range(len(ops)):
            yield case_line(job, step, ops[:i] + ops[i + 1:])
    smaller = _without_rank(job, step, ops, job["np"] - 1)
    if smaller:
        yield case_line(*smaller)
    for i, (kind, fields) in enumerate(ops):
        for key in ("shape", "tail"):
            for value in _smaller_shapes(fields.get(key, "-")):
                f = OrderedDict(fields, **{key: value})
                yield case_line(job, step, ops[:i] + [(kind, f)] + ops[i + 1:])
        if kind in ("reducescatter",) and int(fields["rows"]) > 0:
            for rows in sorted({int(fields["rows"]) // 2, 1, 0}):
                yield case_line(job, step, ops[:i] + [(kind, OrderedDict(fields, rows=rows))] + ops[i + 1:])
        if kind == "allgather":
            rows = [int(r) for r in fields["rows"].split(".")]
            if any(r > 1 for r in rows):
                half = OrderedDict(fields, rows=dots([min(r, max(r // 2, 1)) for r in rows]))
                yield case_line(job, step, ops[:i] + [(kind, half)] + ops[i + 1:])
        for key in ("pre", "post"):
            if key in fields:
                f = OrderedDict((k, v) for k, v in fields.items() if k != key)
                yield case_line(job, step, ops[:i] + [(kind, f)] + ops[i + 1:])
    for key, plain in (("order", "same"),):
        if step.get(key) != plain:
            yield case_line(job, OrderedDict(step, **{key: plain}), ops)
    for key, plain in (("backend", "builtin"), ("fusion", "on"), ("hier", "0")):
        if job[key] != plain:
            yield case_line(OrderedDict(job, **{key: plain}), step, ops)


def shrink(line, fails, seconds):
    """(smallest failing line, its failure, runs tried, seconds spent); `fails(line)` runs it alone."""
    started, tries = time.monotonic(), 0
    failure = fails(line)
    tries += 1
    if failure is None:  # failed only beside other cases of its job: keep it whole
        return line, ["(passes alone: it failed only after the cases before it in its job)"], tries, \
            time.monotonic() - started
    improved = True
    while improved and time.monotonic() - started < seconds:
        improved = False
        for candidate in _candidates(line):
            if candidate == line:
                continue
            if time.monotonic() - started > seconds:
                break
            tries += 1
            f = fails(candidate)
            if f is not None:
                line, failure, improved = candidate, f, True
                break
    return line, failure, tries, time.monotonic() - started
