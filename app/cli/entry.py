"""The command line's entry: every command in ``main.py --help`` order, the parser built from them, and the one
place that turns what a command raises into its message and exit code."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

import duckdb

from app import command_name
from app.analysis.text import AnalysisError, for_cli
from app.cli.common import CliParser, Command, CommandFailed, UsageError
from app.safe_text import TerminalGuard
from app.workspace import WorkspaceReadOnly, WorkspaceRefused, WorkspaceTooNew, storage_problem
from app.workspace_lock import WorkspaceLocked, cli_message

# every command in ``main.py --help`` order: its name, and the module and name of its Command. A command's module
# is loaded when it runs (or for the whole help): ``main.py import`` does not load the report, the questions or
# the analyses (issue 31: the import's fixed cost).
COMMAND_MODULES: tuple[tuple[str, str, str], ...] = (
    ("import", "app.cli.importing", "IMPORT"), ("runs", "app.cli.runs", "RUNS"), ("sql", "app.cli.sql", "SQL"),
    ("analyze", "app.cli.analyze", "ANALYZE"), ("compare", "app.cli.compare", "COMPARE"),
    ("size", "app.cli.size", "SIZE"), ("phase", "app.cli.phases", "PHASE"), ("marker", "app.cli.phases", "MARKER"),
    ("mapping", "app.cli.mapping", "MAPPING"), ("report", "app.cli.report", "REPORT"),
    ("export", "app.cli.export", "EXPORT"),
    ("run", "app.cli.runs", "RUN"), ("clock", "app.cli.clock", "CLOCK"),
    ("plan", "app.cli.plan", "PLAN"),
    ("question", "app.cli.question", "QUESTION"), ("replay", "app.cli.replay", "REPLAY"),
    ("library", "app.cli.library", "LIBRARY"),
    ("gui", "app.cli.gui", "GUI"))
COMMAND_NAMES = tuple(name for name, _, _ in COMMAND_MODULES)


def commands(only: str | None = None) -> tuple[Command, ...]:
    """Every command (their modules loaded), or only the one named ``only``."""
    return tuple(getattr(importlib.import_module(module), attr) for name, module, attr in COMMAND_MODULES
                 if only is None or name == only)


def __getattr__(name: str) -> tuple[Command, ...]:
    if name == "COMMANDS":  # every command, loaded on first use
        return commands()
    raise AttributeError(name)


class _Version(argparse.Action):
    """``--version``: the version read when asked for (reading it loads the report's options module)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="show program's version number and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        from reports.options import version

        parser._print_message(f"StormScope {version()}\n", sys.stdout)
        parser.exit()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every command, or (``only``, the command about to run) that one alone."""
    ap = CliParser(prog=command_name(), description="StormScope: storage-performance trace analysis.")
    ap.add_argument("--version", action=_Version)
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", parser_class=CliParser)
    for cmd in commands(only):
        p = sub.add_parser(cmd.name, help=cmd.help)
        cmd.arguments(p)  # a subcommand's own handler default wins over the command's
        p.set_defaults(handler=cmd.handler)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code: 0 done, 1 some input failed (the rest was still done), 2 a usage error
    or the workspace is open in another process (the window, or another command)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = build_parser(argv[0] if argv and argv[0] in COMMAND_NAMES else None)
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
