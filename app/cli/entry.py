"""The command line's entry: every command in ``main.py --help`` order, the parser built from them, and the one
place that turns what a command raises into its message and exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import duckdb

from app import command_name
from app.analysis.text import AnalysisError, for_cli
from app.cli.analyze import ANALYZE
from app.cli.clock import CLOCK
from app.cli.common import CliParser, Command, CommandFailed, UsageError
from app.cli.compare import COMPARE
from app.cli.export import EXPORT
from app.cli.gui import GUI
from app.cli.importing import IMPORT
from app.cli.mapping import MAPPING
from app.cli.phases import MARKER, PHASE
from app.cli.question import QUESTION
from app.cli.report import REPORT
from app.cli.runs import RUN, RUNS
from app.cli.size import SIZE
from app.cli.sql import SQL
from app.safe_text import TerminalGuard
from app.workspace import WorkspaceReadOnly, WorkspaceRefused, WorkspaceTooNew, storage_problem
from app.workspace_lock import WorkspaceLocked, cli_message
from reports.options import version

COMMANDS: tuple[Command, ...] = (IMPORT, RUNS, SQL, ANALYZE, COMPARE, SIZE, PHASE, MARKER, MAPPING, REPORT, EXPORT,
                                 RUN, CLOCK, QUESTION, GUI)


def build_parser() -> argparse.ArgumentParser:
    ap = CliParser(prog=command_name(), description="StormScope: storage-performance trace analysis.")
    ap.add_argument("--version", action="version", version=f"StormScope {version()}")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=CliParser)
    for cmd in COMMANDS:
        p = sub.add_parser(cmd.name, help=cmd.help)
        cmd.arguments(p)  # a subcommand's own handler default wins over the command's
        p.set_defaults(handler=cmd.handler)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code: 0 done, 1 some input failed (the rest was still done), 2 a usage error
    or the workspace is open in another process (the window, or another command)."""
    ap = build_parser()
    args = ap.parse_args(argv)
    if args.command is None:
        ap.print_help()
        return 2
    prog = f"{command_name()} {args.command}"
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalGuard(out), TerminalGuard(err)  # no escape sequence from a file gets through
    try:
        return args.handler(args)
    except UsageError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except (CommandFailed, AnalysisError) as e:  # no such workspace, run, mapping ...; the data cannot answer
        print(f"error: {for_cli(e)}", file=sys.stderr)
        return 1
    except WorkspaceLocked as e:  # another window or command has the workspace open: who, and what to do
        print(f"{prog}: error: {cli_message(e, args.command, getattr(args, 'paths', None))}", file=sys.stderr)
        return 2
    except WorkspaceReadOnly as e:  # a newer StormScope's, readable here: a command that writes is refused
        print(f"{prog}: error: {e.path}: {e}", file=sys.stderr)
        return 1
    except WorkspaceTooNew as e:  # made by a newer StormScope: say so instead of a traceback
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except WorkspaceRefused as e:  # views, macros ... StormScope never creates: refused untouched
        print(f"{prog}: error: {e.path}: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    except (OSError, duckdb.Error) as e:  # a full disk, a read-only disk or file: said, not a traceback
        problem = storage_problem(e)
        if problem is None:
            raise  # anything else is a bug: it surfaces (and the crash log has it)
        print(f"{prog}: error: {problem}", file=sys.stderr)
        return 1
    finally:
        sys.stdout, sys.stderr = out, err
