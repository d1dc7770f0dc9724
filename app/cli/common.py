"""What every command shares: the parser class, the workspace flag, opening the workspace, errors that end a
command, JSON and text tables. Nothing here knows any command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, NoReturn

import duckdb

from app.analysis.text import for_cli_json
from app.safe_text import for_terminal
from app.workspace import Workspace, default_workspace_path, has_table

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """A bad argument: ``main.py COMMAND: error: MESSAGE``, exit code 2."""


class CommandFailed(Exception):
    """The input does not allow the command (no such workspace, run, mapping ...): ``error: MESSAGE``, exit 1."""


class CliParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse exits 2 on usage errors, as we want
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


@dataclass(frozen=True)
class Command:
    """A top-level command as ``main.py --help`` lists it: ``arguments`` adds its arguments to its parser (and any
    subcommands, each of which sets its own ``handler`` default); ``handler`` runs it and returns the exit code."""

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    handler: Handler


def add_workspace_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("-w", "--workspace", metavar="WS",
                   help="workspace file (.duckdb); default $STORMSCOPE_WORKSPACE or the user data folder")


def workspace_path(args: argparse.Namespace) -> Path:
    return Path(args.workspace) if args.workspace else default_workspace_path()


def open_workspace(args: argparse.Namespace, *, read_only: bool = True, create: bool = False,
                   for_import: bool = False, settings: dict[str, str | bool | int] | None = None) -> Workspace:
    """The workspace of ``-w`` (or the default one): the one place the command line opens it.

    ``create``: a missing workspace is made (writable); otherwise a missing one ends the command with
    "error: no workspace at PATH" (exit 1). Another process holding the file raises
    :class:`~app.workspace_lock.WorkspaceLocked`, which :func:`app.cli.entry.main` explains (exit 2); a workspace
    with objects StormScope never creates raises :class:`~app.safe_open.WorkspaceRefused` (exit 1); a newer
    StormScope's workspace raises :class:`~app.migrations.WorkspaceTooNew` (exit 2) when this one cannot read it,
    :class:`~app.migrations.WorkspaceReadOnly` (exit 1) when it can but the command would write, and a read
    command prints one note line on stderr. ``for_import``:
    the command only imports (DuckDB's memory bounded for the whole open); ``settings``: DuckDB settings for the
    whole open (``sql``'s memory limit).
    """
    path = workspace_path(args)
    if not create and not path.exists():
        raise CommandFailed(f"no workspace at {path}")
    try:
        ws = Workspace(path, read_only=read_only and not create, for_import=for_import, settings=settings)
    except duckdb.IOException as e:  # a file the user may not read or write: said, not a traceback
        if "Read-only file system" in str(e):
            raise CommandFailed(f"cannot change the workspace {path}: it is on a read-only disk or share (Read-only "
                                "file system); commands that only read it work; copy it to a folder you can write "
                                "to, to change it") from None
        if "Permission denied" not in str(e):
            raise
        how = "read" if read_only and not create else "write"
        raise CommandFailed(f"cannot open the workspace {path}: Permission denied (you may not {how} this file or "
                            "its folder; copy it somewhere you may, or ask its owner)") from None
    try:  # the stored questions read back as the commands will read them (a received file may hold others)
        if has_table(ws, "questions") and ws.con.execute("SELECT 1 FROM questions LIMIT 1").fetchone():
            from app.analysis.question_kinds import check_stored  # loaded only for a workspace with questions

            check_stored(ws)
    except BaseException:
        ws.close()
        raise
    if ws.read_only_note:  # a newer StormScope's workspace this one reads correctly: read commands work, and say so
        print(f"note: {ws.read_only_note}", file=sys.stderr)
    return ws


def jsonable(v: Any) -> Any:
    """Values as JSON can hold them: dates as ISO text, NaN as null, objects by their as_dict()."""
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if hasattr(v, "as_dict"):
        return jsonable(v.as_dict())
    v = for_cli_json(v)  # a note that names a fix: the command line's words
    if isinstance(v, float) and v != v:
        return None
    return v


def print_json(obj: Any, **kw: Any) -> None:
    print(json.dumps(jsonable(obj), indent=2, **kw))


def format_table(columns: list[str], rows: list[tuple], max_width: int = 40) -> str:
    def cell(v: Any) -> str:
        if v is None:
            return "NULL"
        if isinstance(v, float):
            return f"{v:.6g}"
        s = for_terminal(v)  # one line per row, whatever a stored name holds
        return s if len(s) <= max_width else s[: max_width - 1] + "…"

    cells = [[cell(v) for v in r] for r in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)),
             "  ".join("-" * w for w in widths)]
    for r in cells:
        lines.append("  ".join(v.rjust(w) if _numeric(v) else v.ljust(w) for v, w in zip(r, widths)))
    return "\n".join(lines)


def _numeric(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def key_values(pairs: list[str], flag: str) -> dict[str, str]:
    """``["K=V", ...]`` of a repeatable flag as a dict (keys stripped); UsageError names the flag."""
    out: dict[str, str] = {}
    for t in pairs:
        if "=" not in t:
            raise UsageError(f"{flag} wants KEY=VALUE, got {t!r}")
        k, v = t.split("=", 1)
        out[k.strip()] = v
    return out
