"""What ``ascendopt records`` prints: runs and evaluations, and one candidate's sources + diff."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from rich.console import Console
from rich.table import Table

from ascendopt.evaluate.store import RecordStore, StoreError
from ascendopt.operator import Operator


def _when(t: float) -> str:
    return dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def records_data(store: RecordStore, run_id: int | None = None) -> dict[str, Any]:
    """Runs (all, or one) with their evaluations and budget counts, as plain data."""
    runs = store.list_runs() if run_id is None else [r for r in [store.get_run(run_id)] if r]
    if run_id is not None and not runs:
        raise StoreError(f"no run {run_id}")
    out = []
    for r in runs:
        evs = store.list_evaluations(r.id)
        out.append({"id": r.id, "created": r.created, "op": r.op, "status": r.status, "config": r.config,
                    "charged": sum(e.charged for e in evs), "duplicates": sum(not e.charged for e in evs),
                    "evaluations": [{"id": e.id, "created": e.created, "charged": e.charged,
                                     "op": e.evaluation.op_name, "digest": e.evaluation.digest,
                                     "parent": e.evaluation.parent, "origin": e.evaluation.origin,
                                     "status": e.evaluation.status, "error_kind": e.evaluation.error_kind,
                                     "error": e.evaluation.error, "latency_us": e.evaluation.latency_us,
                                     "seed": e.evaluation.seed, "timings": e.evaluation.timings,
                                     "backend": e.evaluation.backend, "soc": e.evaluation.soc,
                                     "launch_key": e.evaluation.launch_key, "same_as": e.evaluation.same_as}
                                    for e in evs]})
    return {"runs": out}


def print_records(store: RecordStore, console: Console, run_id: int | None = None, as_json: bool = False) -> None:
    data = records_data(store, run_id)
    if as_json:
        print(json.dumps(data, indent=2, default=str))
        return
    runs = Table(title="runs")
    for col in ("id", "created", "op", "status", "charged", "duplicates"):
        runs.add_column(col, overflow="fold")
    for r in data["runs"]:
        runs.add_row(str(r["id"]), _when(r["created"]), r["op"], r["status"], str(r["charged"]), str(r["duplicates"]))
    console.print(runs)
    if run_id is None:
        return
    run = data["runs"][0]
    # 80 columns hold little: the op is in the title, and only free text wraps (digests stay whole)
    evs = Table(title=f"evaluations of run {run_id} ({run['op']})")
    for col in ("id", "digest", "parent", "origin", "status", "us", "s", "note"):
        evs.add_column(col, justify="right" if col in ("us", "s") else "left", overflow="fold",
                       no_wrap=col in ("id", "digest", "parent", "us", "s"))
    for e in run["evaluations"]:
        if not e["charged"]:
            note = f"same program as {e['same_as'][:12]}" if e["same_as"] else "duplicate"
        else:
            note = e["error_kind"] or e["error"].splitlines()[0][:40] if e["error"] else ""
        lat = "-" if e["latency_us"] is None else f"{e['latency_us']:.3f}"
        evs.add_row(str(e["id"]), e["digest"][:12], (e["parent"] or "-")[:12], e["origin"], e["status"],
                    lat, f"{e['timings'].get('total_s', 0):.2f}", note)
    console.print(evs)


def show_candidate(store: RecordStore, digest: str) -> str:
    """A candidate's sources and its unified diff against its parent, as text."""
    recs = store.find_by_digest(digest)
    full = {r.evaluation.digest for r in recs}
    if not full:
        files = store.get_sources(digest)
        if files is None:
            raise StoreError(f"no candidate with digest {digest}")
        full, recs = {digest}, []
    if len(full) > 1:
        raise StoreError(f"digest prefix {digest} is ambiguous: {', '.join(sorted(d[:16] for d in full))}")
    d = full.pop()
    files = store.get_sources(d)
    if files is None:
        raise StoreError(f"sources of {d} were not recorded")
    ev = recs[0].evaluation if recs else None
    parent = ev.parent if ev else None
    lines = [f"candidate {d}", f"parent    {parent or '-'}", f"origin    {ev.origin if ev else '-'}"]
    for r in recs:
        e = r.evaluation
        lines.append(f"  run {r.run_id} eval {r.id}: {e.status}"
                     + (f" latency {e.latency_us:.3f} us" if e.latency_us is not None else "")
                     + (f" ({e.error_kind})" if e.error_kind else "")
                     + ((f" [same program as {e.same_as[:12]}]" if e.same_as else " [duplicate]") if not r.charged
                        else ""))
    op = Operator.from_files("candidate", files)
    lines.append("")
    if parent:
        pfiles = store.get_sources(parent)
        if pfiles is None:
            lines.append(f"# parent {parent[:12]} sources not recorded: no diff")
        else:
            lines += [f"# diff against parent {parent[:12]}", op.diff(pfiles) or "(identical sources)"]
    for rel in sorted(files):
        lines += ["", f"==== {rel} ====", files[rel].rstrip("\n")]
    return "\n".join(lines) + "\n"
