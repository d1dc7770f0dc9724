"""``main.py runs`` lists the runs; ``main.py run ID ...`` changes what a file could not say (interval, first
report, histogram counts, whole disks), renames, tags or deletes a run."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from app.cli.common import (
    Command,
    UsageError,
    add_workspace_arg,
    key_values,
    open_workspace,
    print_json,
    workspace_path,
)
from app.safe_text import for_terminal

if TYPE_CHECKING:
    from app.workspace import Workspace


def list_arguments(p: argparse.ArgumentParser) -> None:
    add_workspace_arg(p)
    p.add_argument("--json", action="store_true")


def list_runs(args: argparse.Namespace) -> int:
    path = workspace_path(args)
    if not path.exists():
        print("[]" if args.json else f"no workspace at {path} (import something first)")
        return 0
    from app.store.clock import fmt_offset, list_offsets

    with open_workspace(args) as ws:
        runs = ws.runs()
        offsets = list_offsets(ws)
    if args.json:
        print_json(runs)
        return 0
    if not runs:
        print("no runs")
        return 0
    for r in runs:
        period = ""
        if r.started_at:
            period = f"{r.started_at:%Y-%m-%d %H:%M:%S}"
            if r.ended_at:
                period += f" → {r.ended_at:%H:%M:%S}"
        interval = f"{r.interval_s:g} s" if r.interval_s else "interval ?"
        tags = for_terminal(" ".join(f"{k}={v}" for k, v in (r.tags or {}).items()))
        name, host = for_terminal(r.name)[:40], for_terminal(r.host or "-")  # names from files: one line each
        print(f"{r.run_id:>4}  {r.kind:<8} {name:<40} {host:<20} "
              f"{r.n_samples or 0:>5} reports  {r.n_devices or 0:>3} devices  {interval:<10} {period} {tags}"
              + (f" clock {fmt_offset(offsets[r.run_id].offset_s)}" if r.run_id in offsets else ""))
    return 0


def change_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_id", type=int, metavar="ID")
    add_workspace_arg(p)
    p.add_argument("--interval", type=float, metavar="S",
                   help="seconds between reports of an iostat run without timestamps (the 5 of 'iostat 5')")
    p.add_argument("--first-report", choices=["since-boot", "interval"],
                   help="what the run's first iostat report covers")
    p.add_argument("--histogram-counts", choices=["cumulative", "per-collection", "auto"],
                   help="vscsiStats: whether each collection holds the running total (never reset with -r) or "
                        "only its own I/Os; auto = what the import detected")
    p.add_argument("--date-order", choices=["day-first", "month-first", "year-first"], metavar="ORDER",
                   help="how the run's dates read when its file could not decide (05/03/26: day-first is 5 March, "
                        "month-first 3 May): day-first, month-first or year-first")
    p.add_argument("--whole-disks", metavar="DEVICES",
                   help="the devices every whole-disk figure of the run sums, comma-separated (sdb,sdc), instead "
                        "of StormScope's choice; 'rules' goes back to StormScope's choice. A choice that would count "
                        "some I/O twice (a disk with its partition, a volume with a disk, a device that is the sum "
                        "of others) is refused, saying why")
    p.add_argument("--counters-by-place", choices=["confirm", "reject"],
                   help="a perfmon run whose counter names StormScope does not know, read by their place in the log: "
                        "confirm that reading, or reject it (their values are left out)")
    p.add_argument("--rename", metavar="NAME")
    p.add_argument("--tag", action="append", default=[], metavar="K=V", help="add or change a tag (repeatable)")
    p.add_argument("--clock-offset", type=float, metavar="S",
                   help="seconds added to the run's clock to put it on the others' (+37: its clock is 37 s behind)")
    p.add_argument("--clear-clock-offset", action="store_true", help="back to the file's own clock")
    p.add_argument("--delete", action="store_true", help="delete the run (the source file is not touched)")


def _set_whole_disks(ws: Workspace, run_id: int, said: str) -> None:
    """``--whole-disks sdb,sdc`` (or ``rules``): stored, and the devices now summed printed with whose choice."""
    want = [] if said.strip() == "rules" else [d.strip() for d in said.split(",") if d.strip()]
    if said.strip() != "rules" and not want:
        raise UsageError("--whole-disks wants device names (sdb,sdc) or 'rules'")
    choice = ws.set_whole_disks(run_id, want)
    print(f"whole disks: {for_terminal(', '.join(choice.used))} ({for_terminal(choice.rule)})")


def _set_readings(ws: Workspace, args: argparse.Namespace) -> None:
    """How the run's file is read where it cannot say it itself (ValueError for a run it does not apply to)."""
    if args.interval is not None:
        ws.set_interval(args.run_id, args.interval)
    if args.first_report:
        ws.set_first_report(args.run_id, args.first_report == "since-boot")
    if args.histogram_counts:
        ws.set_histogram_counts(args.run_id, args.histogram_counts)
    if args.date_order:
        ws.set_date_order(args.run_id, {"day-first": "DMY", "month-first": "MDY",
                                        "year-first": "YMD"}[args.date_order])
    if args.counters_by_place:
        ws.set_counters_by_place(args.run_id, args.counters_by_place == "confirm")
    if args.whole_disks:
        _set_whole_disks(ws, args.run_id, args.whole_disks)


def change_run(args: argparse.Namespace) -> int:
    from app.store.clock import clear_offset, get_offset, set_offset

    if args.clock_offset is not None and args.clear_clock_offset:
        raise UsageError("--clock-offset or --clear-clock-offset, not both")
    with open_workspace(args, read_only=False) as ws:
        run = ws.run(args.run_id)
        if run is None:
            print(f"error: no run {args.run_id}", file=sys.stderr)
            return 1
        try:
            if args.delete:
                ws.delete_run(args.run_id)
                print(f"deleted run {args.run_id} ({for_terminal(run.name)})")
                return 0
            _set_readings(ws, args)
            if args.rename:
                ws.rename_run(args.run_id, args.rename)
            if args.clock_offset is not None:
                set_offset(ws, args.run_id, args.clock_offset)
            if args.clear_clock_offset:
                clear_offset(ws, args.run_id)
            if args.tag:
                ws.set_tags(args.run_id, {**(run.tags or {}), **key_values(args.tag, "--tag")})
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        after = ws.run(args.run_id)
        offset = get_offset(ws, args.run_id)
    run = after or run  # (deleted meanwhile: as it was)
    interval = f"{run.interval_s:g} s ({run.interval_source})" if run.interval_s else "interval unknown"
    print(f"run {args.run_id}: {for_terminal(run.name)} · {interval} · "
          f"tags {for_terminal(dict(run.tags))}"
          + (f" · clock offset {offset.words()}" if offset is not None else ""))
    return 0


RUNS = Command("runs", "list the runs in the workspace", list_arguments, list_runs)
RUN = Command("run", "set a run's interval, first-report kind, histogram counts, whole disks or clock offset; "
              "rename, tag or delete it",
              change_arguments, change_run)
