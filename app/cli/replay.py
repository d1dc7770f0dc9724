"""``main.py replay``: a measured storm as a fio job file, and how faithfully a replay reproduced it (no Qt).

    replay RUN [--range A..B | --phase NAME] [--device D] [--tolerance P] [--scale F] [--chain startdelay|stonewall]
               [--rate-process linear|poisson] [--random-pct P] [--shape-run ID] [--filename PATH] [--size SIZE]
               [--buffered] -o JOB.fio [--json]
    replay RUN --check REPLAY [--job JOB.fio | --range A..B | --phase NAME] [--scale F] [--device D]
               [--replay-device D] [--every S] [--json]

The first writes the job file (whole or not at all) and prints its phases; ``--check`` compares the capture of a
replay (iostat or another tool of device rates run during it, or fio's JSON report of it) with the run, per
dimension (IOPS over time, read share, request size, response time), with a verdict. ``--job`` reads the run, range
and scale from the header of the job file the first wrote.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.common import Command, CommandFailed, UsageError, add_workspace_arg, open_workspace, print_json


def _range(text: str) -> tuple[float | None, float | None]:
    from app.analysis.replay import parse_range

    try:
        return parse_range(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def arguments(p: argparse.ArgumentParser) -> None:
    from app.analysis.replay import CHAINS, DEFAULT_CHAIN, DEFAULT_RATE_PROCESS, DEFAULT_TOLERANCE_PCT, RATE_PROCESSES

    p.add_argument("run_id", type=int, metavar="RUN", help="the measured run (see 'runs')")
    add_workspace_arg(p)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--range", type=_range, metavar="A..B", help="seconds of the run (its axis, as 'analyze series' "
                                                                "prints it); default the whole run")
    g.add_argument("--phase", metavar="NAME", help="a phase stored with the run ('phase list')")
    g.add_argument("--job", metavar="JOB.fio", help="with --check: the job file written for the replay (its run, "
                                                    "range and scale)")
    p.add_argument("--device", metavar="D[,D...]", help="exact device name(s); default: the whole disks")
    p.add_argument("-o", "--output", metavar="JOB.fio", help="the fio job file to write")
    p.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE_PCT, metavar="P",
                   help=f"merge intervals while the rate stays within P %% (default {DEFAULT_TOLERANCE_PCT:g}; "
                        "0 = one job per interval)")
    p.add_argument("--scale", type=float, metavar="F", help="IOPS x F (default 1; with --check and --job: the job "
                                                            "file's)")
    p.add_argument("--chain", choices=CHAINS, default=DEFAULT_CHAIN,
                   help=f"how the jobs follow each other (default {DEFAULT_CHAIN})")
    p.add_argument("--rate-process", choices=RATE_PROCESSES, default=DEFAULT_RATE_PROCESS,
                   help=f"fio's rate_process (default {DEFAULT_RATE_PROCESS})")
    p.add_argument("--random-pct", type=float, metavar="P", help="random share of the I/O in %% (default: from "
                   "--shape-run's seek distances, else 100, stated as an assumption)")
    p.add_argument("--shape-run", type=int, metavar="ID", help="a vscsiStats run of the same storm: request sizes "
                   "(bssplit) and seek distances from its histograms")
    p.add_argument("--filename", default="/tmp/stormscope_replay.dat", metavar="PATH",
                   help="the file or device fio drives (default /tmp/stormscope_replay.dat)")
    p.add_argument("--size", default="1g", metavar="SIZE", help="fio's size= (default 1g)")
    p.add_argument("--buffered", action="store_true", help="direct=0 (the default is direct=1)")
    p.add_argument("--check", type=int, metavar="REPLAY", help="compare this run -- iostat (or another tool's device "
                   "rates) captured during the replay, or fio's JSON report of it -- with RUN instead of writing a "
                   "job file")
    p.add_argument("--replay-device", metavar="D[,D...]", help="with --check: the replay capture's device(s); "
                   "default: whole disks")
    p.add_argument("--every", type=float, metavar="S", help="with --check: compare on S-second bins (default the "
                   "run's interval)")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from app.analysis.replay import plan_replay, render_job
    from reports import write_atomically
    from reports.options import version

    if args.check is not None:
        if args.output:
            raise UsageError("--check compares a replay; -o writes a job file: one or the other")
        return check(args)
    for flag, v in (("--job", args.job), ("--replay-device", args.replay_device), ("--every", args.every)):
        if v is not None:
            raise UsageError(f"{flag} goes with --check")
    if not args.output:
        raise UsageError("give the job file to write (-o JOB.fio), or --check REPLAY to compare a replay")
    a, b = args.range if args.range else (None, None)
    with open_workspace(args) as ws:
        plan = plan_replay(ws, args.run_id, device=args.device, t_start_s=a, t_end_s=b, phase=args.phase,
                           tolerance_pct=args.tolerance, scale=1.0 if args.scale is None else args.scale,
                           chain=args.chain,
                           rate_process=args.rate_process, random_pct=args.random_pct, shape_run=args.shape_run)
        text = render_job(plan, filename=args.filename, size=args.size, direct=not args.buffered,
                          generated=version())
    try:
        write_atomically(args.output, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except OSError as e:
        raise CommandFailed(f"cannot write {args.output}: {e.strerror or e}") from None
    if args.json:
        print_json({"job_file": args.output, "plan": plan})
        return 0
    print(f"wrote {args.output}: {len(plan.jobs)} fio jobs over {plan.duration_s:g} s "
          f"(run {plan.run_id}, {plan.range_label}, IOPS x {plan.scale:g})")
    print(f"{'phase':>5}  {'seconds':>13}  {'read IOPS':>9}  {'write IOPS':>10}  {'rate_iops':>11}  "
          f"{'read kB':>7}  {'write kB':>8}  {'queue':>5}")
    for p in plan.phases:
        r, w = plan.rate_iops(p)
        print(f"{p.index:>5}  {p.t_start_s:>6g}–{p.t_end_s:<6g}  {p.read_iops:>9.1f}  {p.write_iops:>10.1f}  "
              f"{f'{r},{w}':>11}  {_kb(p.read_kb):>7}  {_kb(p.write_kb):>8}  {_kb(p.peak_queue):>5}")
    for words in plan.shape.words:
        print(f"assumes: {words}" if "ASSUMED" in words else f"from the data: {words}")
    for n in plan.notes:
        print(f"note: {n}")
    return 0


def _kb(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def check(args: argparse.Namespace) -> int:
    from app.analysis.replay import read_job_header, replay_check

    a, b = args.range if args.range else (None, None)
    scale = args.scale
    if args.job:
        try:
            text = Path(args.job).read_text(encoding="utf-8", errors="replace")
        except OSError as e:
            raise CommandFailed(f"cannot read {args.job}: {e.strerror or e}") from None
        head = read_job_header(text)
        if head["run_id"] != args.run_id:
            raise UsageError(f"--job: the job file replays run {head['run_id']}, not run {args.run_id}")
        a, b = head.get("t_start_s"), head.get("t_end_s")
        scale = head["scale"] if scale is None else scale
    with open_workspace(args) as ws:
        res = replay_check(ws, args.run_id, args.check, t_start_s=a, t_end_s=b, phase=args.phase,
                           scale=1.0 if scale is None else scale, device=args.device,
                           replay_device=args.replay_device, every_s=args.every)
    if args.json:
        print_json(res)
        return 0
    print(f"replay check: {res.verdict.upper()} -- run {res.replay_run} ({res.replay_name}) against run "
          f"{res.original_run} ({res.original_name}), {res.range_label}, scale {res.scale:g}")
    print(f"  measured from: {res.basis}")
    print(f"  the replay placed {res.lag_s:+g} s from its capture's start; {res.every_s:g} s bins")
    for d in res.dimensions:
        print(f"  {d.label:<15} {d.verdict:<13} {d.text}")
    for n in res.notes:
        print(f"  note: {n}")
    return 0


REPLAY = Command("replay", "write a fio job file that replays a measured storm (or a range or phase of it); "
                 "--check: how faithfully a replay reproduced it", arguments, run)
