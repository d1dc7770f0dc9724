"""``main.py plan``: the capture plan the workspace's questions need (app.analysis.capture_plan) -- as text to paste,
as a PDF for the customer (``--pdf``), stored in the workspace (``--save``); ``--check`` compares the imported runs
with the stored plan, ``--show`` prints the stored plan, ``--clear`` removes it."""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import TYPE_CHECKING

from app.cli.common import Command, UsageError, add_workspace_arg, open_workspace, print_json, workspace_path
from app.safe_text import for_terminal

if TYPE_CHECKING:
    from app.analysis.capture_plan import CapturePlan
    from app.workspace import Workspace


def arguments(p: argparse.ArgumentParser) -> None:
    add_workspace_arg(p)
    p.add_argument("--linux", nargs="+", default=[], metavar="HOST", help="Linux guests to capture (iostat and sar)")
    p.add_argument("--esxi", nargs="+", default=[], metavar="HOST", help="ESXi hosts to capture (esxtop, vscsiStats)")
    p.add_argument("--windows", nargs="+", default=[], metavar="HOST",
                   help="Windows desktops to capture (perfmon counters with typeperf)")
    p.add_argument("--storm-min", type=float, metavar="MIN",
                   help="the storm's expected length in minutes (default: the longest run the questions name, else 30)")
    p.add_argument("--interval", type=int, metavar="S", help="seconds between reports (default: from the questions, 5)")
    p.add_argument("--lead-min", type=float, default=10.0, metavar="MIN", help="minutes captured before the storm")
    p.add_argument("--tail-min", type=float, default=10.0, metavar="MIN", help="minutes captured after the storm")
    p.add_argument("--storm-start", metavar="TIME",
                   help="when the storm is expected, on the systems' clocks: 'YYYY-MM-DD HH:MM[:SS]'")
    p.add_argument("--save", action="store_true",
                   help="store the plan in the workspace (imports are checked against it)")
    p.add_argument("--pdf", metavar="FILE", help="write the plan as a PDF for the customer")
    p.add_argument("--customer", help="the customer's name on the PDF")
    p.add_argument("--consultant", help="who prepared it, on the PDF")
    p.add_argument("--show", action="store_true", help="the stored plan (with --pdf: as a PDF)")
    p.add_argument("--check", nargs="*", type=int, metavar="RUN",
                   help="check the imported runs (default: all) against the stored plan")
    p.add_argument("--clear", action="store_true", help="remove the stored plan")
    p.add_argument("--json", action="store_true")


def _start(s: str | None) -> datetime | None:
    if s is None:
        return None
    try:
        return datetime.fromisoformat(s.strip())
    except ValueError:
        raise UsageError(f"--storm-start: a time such as '2026-11-30 08:00', not {s!r}") from None


def _check(args: argparse.Namespace) -> int:
    from app.analysis.capture_plan import check_runs, missing_files, stored

    with open_workspace(args) as ws:
        plan = stored(ws)
        if plan is None:
            raise UsageError("this workspace has no capture plan: make one with 'main.py plan --linux HOST ... --save'")
        for rid in args.check or []:
            if ws.run(rid) is None:
                raise UsageError(f"no run {rid}")
        checks = check_runs(ws, plan, args.check or None)
    missing = missing_files(plan, checks) if not args.check else []
    if args.json:
        print_json({"checks": [c.as_dict() for c in checks], "missing": [f.name for f in missing]})
        return 0
    for c in checks:
        print(f"run {c.run_id} ({for_terminal(c.file)}): {for_terminal(c.words())}")
    for f in missing:
        print(f"missing: {for_terminal(f.name)} ({for_terminal(f.host)}, {f.tool})")
    if not checks:
        print("no run imported yet")
    return 0


def run(args: argparse.Namespace) -> int:
    from app.analysis.capture_plan import PlannedSystem, derive_plan, plan_text, save, stored
    from app.errors import AnalysisError

    if args.check is not None:
        return _check(args)
    systems = [PlannedSystem(k, h) for k, hs in (("linux", args.linux), ("esxi", args.esxi),
                                                  ("windows", args.windows)) for h in hs]
    if args.clear:
        from app.store.plan import clear_spec

        with open_workspace(args, read_only=False) as ws:
            print("capture plan removed" if clear_spec(ws) else "there was no capture plan")
        return 0
    if args.show:
        with open_workspace(args) as ws:
            plan = stored(ws)
        if plan is None:
            raise UsageError("this workspace has no capture plan")
    else:
        if not systems:
            raise UsageError("name the systems to capture: --linux HOST, --esxi HOST and/or --windows HOST")
        def make(ws: Workspace | None) -> CapturePlan:
            try:
                return derive_plan(ws, systems, args.storm_min, args.interval, args.lead_min, args.tail_min,
                                   _start(args.storm_start))
            except AnalysisError as e:
                raise UsageError(str(e)) from None

        if not args.save and not workspace_path(args).exists():  # a plan before anything is imported
            plan = make(None)
        else:
            with open_workspace(args, read_only=not args.save, create=args.save) as ws:
                plan = make(ws)
                if args.save:
                    save(ws, plan)
    if args.pdf:
        from reports.pdf import render_plan

        render_plan(plan, args.pdf, args.customer, args.consultant)
    if args.json:
        print_json(plan.as_dict())
    else:
        print(plan_text(plan), end="")
        if args.save:
            print("stored: imports into this workspace are checked against this plan")
        if args.pdf:
            print(f"written: {for_terminal(args.pdf)}")
    return 0


PLAN = Command("plan", "the capture plan the questions need (commands per system, what to send back; --pdf for the "
               "customer, --save to check imports against it, --check to do so)", arguments, run)
