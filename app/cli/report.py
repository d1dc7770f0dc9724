"""``main.py report [PATH...] -o OUT.pdf``: the customer PDF from the command line (headless; no Qt).

With PATHs (an engagement folder, files, archives) it is one command from the captures to the PDF: what is not yet
in the workspace is imported (files already there are recognised and kept as they are), what the files cannot say
is taken from ``--interval`` and ``--first-report`` given once for the whole folder (``FILE=`` narrows an answer to
the files whose name matches), and the report covers those runs. Without PATHs it opens the workspace read-only
(a received workspace is never changed); only ``--save-template`` writes to it."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path
from typing import Any

from app import command_name
from app.cli.common import Command, UsageError, add_workspace_arg, open_workspace, print_json
from app.safe_text import for_terminal
from reports.builders import answer_section_keys, section_keys


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="an engagement folder, files or archives: imported first (what is not yet in the workspace), "
                        "and the report covers their runs")
    add_workspace_arg(p)
    p.add_argument("-o", "--output", required=True, metavar="OUT.pdf")
    p.add_argument("--interval", action="append", default=[], metavar="[FILE=]S",
                   help="with PATHs: seconds between reports of the captures without timestamps (the 5 of "
                        "'iostat 5'); FILE= (a name or pattern, e.g. 'capped_*.txt=2') for some files only")
    p.add_argument("--first-report", action="append", default=[], metavar="[FILE=]since-boot|interval",
                   help="with PATHs: what iostat's first report covers where the file cannot prove it (interval: "
                        "iostat ran with -y); FILE= for some files only")
    p.add_argument("--runs", nargs="+", type=int, metavar="ID", help="runs to report on (default: all)")
    p.add_argument("--title")
    p.add_argument("--customer")
    p.add_argument("--consultant")
    p.add_argument("--company")
    p.add_argument("--date", help="date printed on the cover (default: today)")
    p.add_argument("--logo", metavar="PNG", help="logo image for the cover")
    p.add_argument("--template", metavar="NAME", help="start from a report template saved in the workspace")
    p.add_argument("--save-template", metavar="NAME", help="save these options as a template (workspace)")
    p.add_argument("--sections", nargs="+", choices=section_keys(), metavar="SECTION",
                   help=f"sections to include: {', '.join(section_keys())} (default: all; when the workspace holds "
                        f"questions, their answers and evidence, then {', '.join(answer_section_keys())}; "
                        "sections named here follow the answers)")
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
    p.add_argument("--iops-per-user", type=_iops_per_user, metavar="N|LIGHT..HEAVY",
                   help="IOPS per user, or a range such as 8..25 (light..heavy users: both are sized)")
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


def _answer_specs(values: list[str], flag: str, check: Any) -> list[tuple[str | None, Any]]:
    """``--interval 2`` / ``--interval 'capped_*=2'``: (pattern or None, checked value), patterns first."""
    out: list[tuple[str | None, Any]] = []
    for v in values:
        pattern, _, value = v.rpartition("=")
        try:
            out.append((pattern or None, check(value)))
        except ValueError:
            raise UsageError(f"{flag} {v}: {check.__doc__}") from None
    return sorted(out, key=lambda pv: pv[0] is None)


def _seconds(text: str) -> float:
    """give the seconds between reports, a positive number (optionally after FILE=)"""
    s = float(text)
    if not s > 0:
        raise ValueError(text)
    return s


def _first_report(text: str) -> str:
    """give since-boot or interval (optionally after FILE=)"""
    if text not in ("since-boot", "interval"):
        raise ValueError(text)
    return text


def _chosen(specs: list[tuple[str | None, Any]], file: str, source: str) -> Any:
    from fnmatch import fnmatch

    for pattern, value in specs:
        if pattern is None or fnmatch(file, pattern) or fnmatch(source, pattern):
            return value
    return None


def _import_folder(args: argparse.Namespace, ws: Any) -> tuple[list[int], list[tuple[str, str]]]:
    """PATHs imported (files already in the workspace are found again), the folder's answers given to the runs
    that need them; the runs and the files that failed (name, why). A run still without interval stops the
    command."""
    from app.importer import answer, iter_import, open_questions
    from parsers.base import ImportOptions

    intervals = _answer_specs(args.interval, "--interval", _seconds)
    firsts = _answer_specs(args.first_report, "--first-report", _first_report)
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(missing)}")
    run_ids: list[int] = []
    failed: list[tuple[str, str]] = []
    for step in iter_import(ws, args.paths, ImportOptions()):
        r = step.result
        if r.status == "failed":
            print(f"FAILED     {r.error}", file=sys.stderr)
            failed.append((Path(r.path).name, r.error or "not imported"))
        elif r.status == "imported":
            print(f"imported   {r.path}  run {', '.join(map(str, r.run_ids))}")
        run_ids += r.run_ids
    unanswered = []
    for q in open_questions(ws, run_ids):
        value = _chosen(intervals if q.what == "interval" else firsts, q.file, q.source)
        if value is None:
            unanswered.append(q)
            continue
        answer(ws, q, value)
        said = (f"interval {value:g} s" if q.what == "interval" else "first report covers "
                + ("the time since boot" if value == "since-boot" else "an interval"))
        print(f"run {q.run_id} {q.file}: {said}")
    _unanswered(unanswered)
    return sorted(set(run_ids)), failed


def _unanswered(questions: list[Any]) -> None:
    """First reports not answered: iostat's default stands, said once. Intervals not answered: the command stops
    (the report's times would be empty), naming every file and the flag at once."""
    firsts = [q for q in questions if q.what == "first_report"]
    if firsts:
        print("first report taken to cover the time since boot (iostat's default; the file cannot prove -y) for: "
              f"{', '.join(q.file for q in firsts)}; if iostat ran with -y: --first-report FILE=interval",
              file=sys.stderr)
    no_interval = [q for q in questions if q.what == "interval"]
    if no_interval:
        said = "; ".join(f"{q.file}" + (f" (its cumulative kB columns suggest about {q.suggested:g} s)"
                                         if q.suggested else "") for q in no_interval)
        raise UsageError(f"no timestamps, so no times without the interval: {said}; give it with --interval "
                         "SECONDS (all of them) or --interval FILE=SECONDS")


def _logo_problem(logo: str | None) -> str | None:
    """Why the logo given on the command line cannot be used (it stops the command; one from a template is a note
    in the report's output instead), or None."""
    if not logo:
        return None
    from reports.logo import LogoUnusable, read_logo

    if not Path(logo).exists():
        return f"logo {logo} not found"
    try:
        read_logo(logo)
    except LogoUnusable as e:
        return str(e)
    return None


def run(args: argparse.Namespace) -> int:
    from reports import ReportOptions, build_report, load_template, save_template
    from reports.options import TemplateInvalid

    if (args.interval or args.first_report) and not args.paths:
        raise UsageError("--interval and --first-report answer for the files of PATHs: name the folder or files "
                         f"(a run already imported takes them with '{command_name()} run ID --interval S')")

    sizing = {k: getattr(args, k) for k in ("users", "iops_per_user", "read_pct", "raid", "disk_iops", "disk_type",
                                            "storm_multiplier", "gb_per_user", "disk_gb")
              if getattr(args, k) is not None}
    failed: list[tuple[str, str]] = []
    # read-only unless captures are imported or a template saved: a received workspace is never changed (not even
    # migrated), and a read-only file (chmod 444, a read-only share) makes its report too
    writes = bool(args.paths) or bool(args.save_template)
    with open_workspace(args, read_only=not writes, create=bool(args.paths)) as ws:
        if args.paths:
            folder_runs, failed = _import_folder(args, ws)
            if not args.runs:
                if not folder_runs:
                    if failed:  # traces were there, and each one failed (said above, file by file)
                        what = (failed[0][0] if len(failed) == 1 else
                                f"every file of {', '.join(Path(p).name for p in args.paths)}")
                        raise UsageError(f"nothing to report on: {what} failed to import")
                    raise UsageError(f"no traces in {', '.join(args.paths)}: nothing to report on")
                args.runs = folder_runs
        try:
            base = load_template(ws.con, args.template) if args.template else ReportOptions()
        except KeyError as e:
            print(f"error: {e.args[0]}", file=sys.stderr)
            return 2
        except TemplateInvalid as e:
            print(f"error: {e}", file=sys.stderr)
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
        problem = _logo_problem(args.logo)
        if problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
        if args.save_template:
            save_template(ws.con, args.save_template, opt)
        content = build_report(ws, opt, args.output, not_imported=failed)
    for note in content.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.json:
        print_json({"output": args.output, "verdicts": content.verdicts, "values": content.values})
    else:
        print(f"wrote {args.output}")
        for v in content.verdicts:
            print(f"  • {for_terminal(v)}")
    return 1 if failed else 0


REPORT = Command("report", "write the customer PDF report", arguments, run)
