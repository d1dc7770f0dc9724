"""``main.py report -o OUT.pdf``: the customer PDF from the command line (headless; no Qt). It opens the workspace
read-only; only ``--save-template`` writes to it."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from app.cli.common import Command, add_workspace_arg, open_workspace, print_json
from app.safe_text import for_terminal
from reports.options import SECTIONS


def arguments(p: argparse.ArgumentParser) -> None:
    add_workspace_arg(p)
    p.add_argument("-o", "--output", required=True, metavar="OUT.pdf")
    p.add_argument("--runs", nargs="+", type=int, metavar="ID", help="runs to report on (default: all)")
    p.add_argument("--title")
    p.add_argument("--customer")
    p.add_argument("--consultant")
    p.add_argument("--company")
    p.add_argument("--date", help="date printed on the cover (default: today)")
    p.add_argument("--logo", metavar="PNG", help="logo image for the cover")
    p.add_argument("--template", metavar="NAME", help="start from a report template saved in the workspace")
    p.add_argument("--save-template", metavar="NAME", help="save these options as a template (workspace)")
    p.add_argument("--sections", nargs="+", choices=SECTIONS, metavar="SECTION",
                   help=f"sections to include (default all): {', '.join(SECTIONS)}")
    p.add_argument("--anonymise", "--anonymize", action="store_true", help="replace host and device names")
    p.add_argument("--page-size", choices=["A4", "Letter"])
    p.add_argument("--full-paths", action="store_true", help="list sources with their full paths (default: file "
                                                                 "names only)")
    p.add_argument("--confidential", metavar="TEXT", help="a confidentiality line printed on every page")
    p.add_argument("--device", help="devices for iostat series (default: whole disks)")
    p.add_argument("--iops-cap", type=float, help="check this IOPS cap on every iostat run (else tag cap_iops=N)")
    p.add_argument("--bw-cap-kbs", type=float, help="check this bandwidth cap (kB/s; else tag cap_bw_kbs=N)")
    p.add_argument("--tolerance-pct", type=float)
    p.add_argument("--latency-threshold-ms", type=float)
    p.add_argument("--latency-goal-pct", type=float)
    p.add_argument("--users", type=int, help="VDI sizing: number of users")
    p.add_argument("--iops-per-user", type=_iops_per_user, metavar="N|STEADY..STORM",
                   help="IOPS per user, or a range such as 8..25 (steady..storm: both cases are sized)")
    p.add_argument("--read-pct", type=float)
    p.add_argument("--raid")
    p.add_argument("--disk-iops", type=float)
    p.add_argument("--disk-type")
    p.add_argument("--storm-multiplier", type=float)
    p.add_argument("--gb-per-user", type=float)
    p.add_argument("--disk-gb", type=float)
    p.add_argument("--json", action="store_true", help="print the report's figures and verdicts as JSON")


def _iops_per_user(text: str) -> float | str:
    """A number (8) or a range (8..25), checked here so that a typo is an argument error."""
    from app.analysis.sizing import parse_iops_range
    from app.analysis.text import AnalysisError

    try:
        steady, storm = parse_iops_range(text)
    except AnalysisError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return steady if storm is None else f"{steady:g}..{storm:g}"


def run(args: argparse.Namespace) -> int:
    from reports import ReportOptions, build_report, load_template, save_template

    sizing = {k: getattr(args, k) for k in ("users", "iops_per_user", "read_pct", "raid", "disk_iops", "disk_type",
                                            "storm_multiplier", "gb_per_user", "disk_gb")
              if getattr(args, k) is not None}
    # read-only unless a template is to be saved: a received workspace is never changed (not even migrated), and
    # a read-only file (chmod 444, a read-only share) makes its report too
    with open_workspace(args, read_only=not args.save_template) as ws:
        try:
            base = load_template(ws.con, args.template) if args.template else ReportOptions()
        except KeyError as e:
            print(f"error: {e.args[0]}", file=sys.stderr)
            return 2
        opt = base.merged(
            title=args.title, customer=args.customer, consultant=args.consultant, company=args.company,
            date=args.date, logo=args.logo, runs=args.runs, sections=args.sections, page_size=args.page_size,
            device=args.device, iops_cap=args.iops_cap, bw_cap_kbs=args.bw_cap_kbs,
            tolerance_pct=args.tolerance_pct, latency_threshold_ms=args.latency_threshold_ms,
            latency_goal_pct=args.latency_goal_pct, sizing={**base.sizing, **sizing} or None,
            anonymise=True if args.anonymise else None, full_paths=True if args.full_paths else None,
            confidential=args.confidential)
        if not opt.date:
            opt = opt.merged(date=date.today().strftime("%d %B %Y"))
        if args.logo and not Path(args.logo).exists():
            print(f"error: logo {args.logo} not found", file=sys.stderr)
            return 2
        if args.save_template:
            save_template(ws.con, args.save_template, opt)
        content = build_report(ws, opt, args.output)
    if args.json:
        print_json({"output": args.output, "verdicts": content.verdicts, "values": content.values})
    else:
        print(f"wrote {args.output}")
        for v in content.verdicts:
            print(f"  • {for_terminal(v)}")
    return 0


REPORT = Command("report", "write the customer PDF report", arguments, run)
