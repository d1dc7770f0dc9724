"""``main.py clock REF [RUN ...]``: how far each run's clock is off the reference run's, from their activity
(app.analysis.clock); ``--accept`` stores the offsets of the runs that match. ``main.py clock --list`` shows the
stored offsets; ``main.py run ID --clock-offset S`` sets one by hand, ``--clear-clock-offset`` removes it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from app.cli.common import Command, UsageError, add_workspace_arg, open_workspace, print_json
from app.safe_text import for_terminal

if TYPE_CHECKING:
    from app.analysis.clock import ClockMatch
    from app.workspace import Workspace


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("reference", type=int, nargs="?", metavar="REF",
                   help="the run whose clock the others are put on")
    p.add_argument("runs", type=int, nargs="*", metavar="RUN",
                   help="the runs to match against it (default: every other run with disk rates; one without time "
                        "stamps is placed on the reference's clock)")
    add_workspace_arg(p)
    p.add_argument("--figure", choices=["auto", "iops", "throughput"], default="auto",
                   help="the activity compared (auto: IOPS, or throughput when a run has no request counts)")
    p.add_argument("--max-offset", type=float, metavar="S", help="look for offsets up to S seconds only")
    p.add_argument("--accept", action="store_true", help="store the offsets of the runs that match")
    p.add_argument("--list", action="store_true", help="show the stored offsets")
    p.add_argument("--json", action="store_true")


def _candidates(ws: Workspace, reference: int) -> list[int]:
    from app.analysis.series import load_series
    from app.errors import AnalysisError
    from parsers.kinds import DEVICE_RATES, has

    out = []
    for r in ws.runs():
        if r.run_id == reference or not has(r.kind, DEVICE_RATES):
            continue
        try:
            load_series(ws, r.run_id)
        except AnalysisError:
            continue  # no interval report, or no interval known: nothing to match (the runs list says why)
        out.append(r.run_id)
    return out


def _list(args: argparse.Namespace) -> int:
    from app.store.clock import list_offsets

    with open_workspace(args) as ws:
        offsets = list_offsets(ws)
        names = {r.run_id: r.name for r in ws.runs()}
    if args.json:
        print_json([o.as_dict() for o in offsets.values()])
        return 0
    if not offsets:
        print("no run has a clock offset: every run is on its file's clock")
    for o in offsets.values():
        print(f"run {o.run_id} ({for_terminal(names.get(o.run_id, '?'))}): clock offset {o.words()}")
    return 0


def _print(m: ClockMatch) -> None:
    from app.store.clock import fmt_offset

    head = f"run {m.run_id} ({for_terminal(m.run_name)})"
    if m.matching and m.offset_s is not None:
        ahead = "ahead of" if m.offset_s < 0 else "behind"
        ref = m.reference_run_id
        what = (f"no time stamps: it starts {fmt_offset(m.offset_s)} from run {ref}'s start" if m.placed else
                f"its clock is {fmt_offset(abs(m.offset_s)).lstrip('+')} {ahead} run {ref}'s")
        print(f"{head}: {what} -> offset {fmt_offset(m.offset_s)} (estimated: match {m.match:.2f}"
              + (f", next best {m.next_best:.2f}" if m.next_best is not None else "")
              + f"; good to about {m.step_s:g} s; {m.figure})")
    else:
        print(f"{head}: {m.reason}")
    if m.stored_offset_s is not None:
        print(f"    stored now: {fmt_offset(m.stored_offset_s)}")


def run(args: argparse.Namespace) -> int:
    from app.analysis.clock import accept, estimate_offsets

    if args.list:
        return _list(args)
    if args.reference is None:
        raise UsageError("give the reference run (REF), or --list")
    with open_workspace(args, read_only=not args.accept) as ws:
        for rid in (args.reference, *args.runs):
            if ws.run(rid) is None:
                raise UsageError(f"no run {rid}")
        run_ids = args.runs or _candidates(ws, args.reference)
        matches = estimate_offsets(ws, args.reference, run_ids, args.figure, args.max_offset)
        stored = [accept(ws, m) for m in matches if m.matching] if args.accept else []
    if args.json:
        print_json({"reference_run_id": args.reference, "matches": [m.as_dict() for m in matches],
                    "stored": [o.as_dict() for o in stored]})
        return 0
    if not matches:
        print(f"no other run with disk rates to match against run {args.reference}")
    for m in matches:
        _print(m)
    for o in stored:
        print(f"stored: run {o.run_id} clock offset {o.words()}")
    if args.accept and not stored:
        print("nothing stored: no run matches")
    return 0


CLOCK = Command("clock", "put runs on one clock: each run's clock offset against a reference run, found from their "
                "activity (--accept stores it)", arguments, run)
