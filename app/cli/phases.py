"""``main.py phase add|list|delete|detect`` and ``main.py marker add|list|delete``: the named stretches (phases)
and instants (markers) of a run that the analyses report on."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from app.cli.common import (
    CliParser,
    Command,
    CommandFailed,
    UsageError,
    add_workspace_arg,
    open_workspace,
    print_json,
)


def _arguments(what: str) -> Callable[[argparse.ArgumentParser], None]:
    def arguments(p: argparse.ArgumentParser) -> None:
        psub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=CliParser)
        actions = ["add", "list", "delete"] + (["detect"] if what == "phase" else [])
        for act in actions:
            a = psub.add_parser(act)
            add_workspace_arg(a)
            a.add_argument("--run", type=int, required=True, metavar="ID")
            if act in ("add", "delete"):
                a.add_argument("--name", required=True)
            if act == "add" and what == "phase":
                a.add_argument("--start", type=float, required=True, metavar="S")
                a.add_argument("--end", type=float, required=True, metavar="S")
            if act == "add" and what == "marker":
                a.add_argument("--t", type=float, required=True, metavar="S")
            if act == "detect":
                a.add_argument("--device", metavar="D[,D...]")
                a.add_argument("--every", type=float, metavar="S")
                a.add_argument("--max-phases", type=int, default=5, metavar="N")
                a.add_argument("--save", action="store_true", help="store them (source 'auto')")
            a.add_argument("--json", action="store_true")
            a.set_defaults(handler=ACTIONS[act])

    return arguments


def no_action(args: argparse.Namespace) -> int:
    raise UsageError(f"choose an action: add, list, delete{', detect' if args.command == 'phase' else ''}")


def add(args: argparse.Namespace) -> int:
    from app.analysis import phases as ph

    with open_workspace(args, read_only=False) as ws:
        if args.command == "phase":
            out: Any = ph.add_phase(ws, args.run, args.name, args.start, args.end).as_dict()
        else:
            ph.add_marker(ws, args.run, args.name, args.t)
            out = {"run_id": args.run, "name": args.name, "t_s": args.t}
    if args.json:
        print_json(out)
    elif args.command == "phase":
        print(f"stored phase {args.name!r} of run {args.run}: {args.start:g}-{args.end:g} s (manual)")
    else:
        print(f"stored marker {args.name!r} of run {args.run} at {args.t:g} s")
    return 0


def delete(args: argparse.Namespace) -> int:
    from app.analysis import phases as ph

    with open_workspace(args, read_only=False) as ws:
        fn = ph.delete_phase if args.command == "phase" else ph.delete_marker
        if not fn(ws, args.run, args.name):
            raise CommandFailed(f"run {args.run} has no {args.command} {args.name!r}")
    if args.json:
        print_json({"deleted": args.name})
    else:
        print(f"deleted {args.command} {args.name!r} of run {args.run}")
    return 0


def detect(args: argparse.Namespace) -> int:
    from app.analysis import phases as ph
    from app.analysis.series import load_series, resample
    from app.analysis.text import format_phases

    with open_workspace(args, read_only=not args.save) as ws:
        s = load_series(ws, args.run, args.device)
        if args.every:
            s = resample(s, args.every)
        found = ph.detect_phases(s, max_phases=args.max_phases)
        if args.save:
            found = ph.save_detected(ws, args.run, found)
    if args.json:
        print_json({"run_id": args.run, "phases": [p.as_dict() for p in found], "saved": args.save,
                    "method": ph.detection_method(args.max_phases), "series": s.method()})
    else:
        print(format_phases(args.run, found, {}) + (
            "\n(detected automatically: change points of the IOPS level; "
            + ("saved" if args.save else "not saved: add --save to store them") + ")"))
    return 0


def list_(args: argparse.Namespace) -> int:
    from app.analysis import phases as ph
    from app.analysis.text import format_phases

    with open_workspace(args) as ws:
        phases, markers = ph.list_phases(ws, args.run), ph.list_markers(ws, args.run)
        if ws.run(args.run) is None:
            raise CommandFailed(f"no run {args.run} in this workspace")
    if args.json:
        print_json({"run_id": args.run, "phases": [p.as_dict() for p in phases], "markers": markers})
    else:
        print(format_phases(args.run, phases, markers))
    return 0


ACTIONS = {"add": add, "list": list_, "delete": delete, "detect": detect}

PHASE = Command("phase", "add, list or delete the phases of a run (or detect phases)", _arguments("phase"), no_action)
MARKER = Command("marker", "add, list or delete the markers of a run", _arguments("marker"), no_action)
