"""``main.py compare --runs ID ID...``: runs side by side per metric and phase (delta, ratio)."""

from __future__ import annotations

import argparse

from app.cli.common import Command, UsageError, add_workspace_arg, open_workspace, print_json


def arguments(p: argparse.ArgumentParser) -> None:
    add_workspace_arg(p)
    p.add_argument("--runs", type=int, nargs="+", required=True, metavar="ID", help="two or more; the first is "
                   "the baseline")
    p.add_argument("--device", metavar="D[,D...]")
    p.add_argument("--every", type=float, metavar="S")
    p.add_argument("--threshold-iops", type=float, metavar="N", help="'time above' (default 50 %% of the "
                   "baseline's peak)")
    p.add_argument("--phases", choices=["auto", "stored", "detect", "none"], default="auto")
    p.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from app.analysis.compare import compare_runs
    from app.analysis.text import format_compare

    if len(args.runs) < 2:
        raise UsageError("--runs wants two or more run ids")
    with open_workspace(args) as ws:
        res = compare_runs(ws, args.runs, args.device, threshold_iops=args.threshold_iops, every_s=args.every,
                           phases=args.phases)
    if args.json:
        print_json(res.as_dict())
    else:
        print(format_compare(res))
    return 0


COMPARE = Command("compare", "runs side by side per metric and phase (delta, ratio)", arguments, run)
