"""``main.py mapping save|list|show|delete``: saved column mappings for CSV/TSV results (app.mappings), used by
``import --mapping NAME``."""

from __future__ import annotations

import argparse
import json
import sys

from app.cli.common import (
    CliParser,
    Command,
    CommandFailed,
    UsageError,
    add_workspace_arg,
    format_table,
    jsonable,
    open_workspace,
    workspace_path,
)
from parsers.kinds import IOMARK


def arguments(p: argparse.ArgumentParser) -> None:
    msub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=CliParser)
    a = msub.add_parser("save", help="save a mapping: which column of the file holds which value")
    a.add_argument("name")
    add_workspace_arg(a)
    a.add_argument("--kind", default=IOMARK, choices=[IOMARK], help="target table (default iomark)")
    a.add_argument("--column", action="append", default=[], metavar="TARGET=SOURCE",
                   help="TARGET column (users, iops, resp_avg_ms, ...) is the file's column SOURCE (repeatable)")
    a.add_argument("--scale", action="append", default=[], metavar="TARGET=FACTOR",
                   help="multiply TARGET by FACTOR (e.g. resp_avg_ms=0.001 for microseconds)")
    a.add_argument("--set", action="append", default=[], metavar="TARGET=VALUE",
                   help="fixed value for a column the file lacks (e.g. workload=IOmark-VM)")
    a.add_argument("--delimiter", choices=[",", ";", "tab", "|", "auto"], default="auto")
    a.add_argument("--decimal", choices=[".", ","], default=".")
    a.add_argument("--skip-rows", type=int, default=0, metavar="N", help="lines before the header row")
    a.add_argument("--description")
    a.add_argument("--replace", action="store_true", help="overwrite a mapping of the same name")
    for act in ("list", "show", "delete"):
        a = msub.add_parser(act, help=f"{act} saved mappings" if act == "list" else f"{act} a mapping")
        if act != "list":
            a.add_argument("name")
        add_workspace_arg(a)
        if act != "delete":
            a.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    from app.mappings import MappingError, delete_mapping, get_mapping, list_mappings, parse_pairs, save_mapping

    if args.action is None:
        raise UsageError("choose an action: save, list, show or delete (see 'mapping --help')")
    path = workspace_path(args)
    if args.action == "save":
        try:
            given = {"kind": args.kind, "columns": parse_pairs(args.column, "--column"),
                     "scale": parse_pairs(args.scale, "--scale"), "constants": parse_pairs(args.set, "--set"),
                     "delimiter": args.delimiter, "decimal": args.decimal, "skip_rows": args.skip_rows,
                     "description": args.description}
            with open_workspace(args, create=True) as ws:
                clean = save_mapping(ws, args.name, given, replace=args.replace)
        except MappingError as e:
            raise UsageError(str(e)) from None
        cols = ", ".join(f"{k}={v!r}" for k, v in clean["columns"].items())
        print(f"saved mapping {args.name!r} ({clean['kind']}): {cols}")
        return 0
    if not path.exists():
        print("[]" if getattr(args, "json", False) else f"no workspace at {path}")
        return 0 if args.action == "list" else 1
    with open_workspace(args, read_only=args.action != "delete") as ws:
        if args.action == "delete":
            if not delete_mapping(ws, args.name):
                print(f"error: no mapping named {args.name!r}", file=sys.stderr)
                return 1
            print(f"deleted mapping {args.name!r}")
            return 0
        if args.action == "show":
            try:
                spec = get_mapping(ws, args.name)
            except MappingError as e:
                raise CommandFailed(str(e)) from None
            if spec is None:
                print(f"error: no mapping named {args.name!r}", file=sys.stderr)
                return 1
            print(json.dumps(spec, indent=2, ensure_ascii=False))
            return 0
        maps = list_mappings(ws)
    if args.json:
        print(json.dumps(jsonable(maps), indent=2, ensure_ascii=False))
    elif not maps:
        print("no mappings (save one with 'mapping save NAME --column TARGET=SOURCE ...')")
    else:
        rows = [(m["name"], m["kind"], ", ".join(f"{k}={v}" for k, v in m["spec"]["columns"].items()),
                 m["spec"].get("description") or "") if m["spec"] is not None else
                (m["name"], m["kind"], "(damaged)", m["error"]) for m in maps]
        print(format_table(["name", "kind", "columns", "description"], rows, 80))
    return 0


MAPPING = Command("mapping", "save, list, show or delete column mappings for CSV/TSV results", arguments, run)
