"""Who holds a workspace file, in words a customer understands (no Qt here).

DuckDB lets one process write a database file, and no other process read it meanwhile. When the window has a
workspace open, a command on it fails, and the other way round. DuckDB's message names the holder's program and
process id ("Conflicting lock is held in /usr/bin/python3 (PID 1234)"); on Linux the holder's command line
(/proc/PID/cmdline) tells a StormScope window from a StormScope command and from another program. Elsewhere the
message degrades to the program's name, or to "another program" when DuckDB names none.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

from app import command_name

_HELD_IN = re.compile(r"Conflicting lock is held in (?P<exe>.*?) \(PID (?P<pid>\d+)\)")

# what a StormScope command holding the workspace is doing, for the window's words
# the command line's commands (app.cli.entry.COMMANDS; this module sits below the command line): a process whose
# first argument is none of them is a window opened on paths
COMMANDS = {"import", "runs", "sql", "analyze", "compare", "size", "phase", "marker", "mapping", "report", "export",
            "run", "clock", "plan", "question", "replay", "library"}
_DOING = {
    "import": "an import started from the command line",
    "report": "a report being written from the command line",
    "export": "an export to Parquet started from the command line",
    "mapping": "a column-mapping change made from the command line",
    "run": "a run change made from the command line",
    "clock": "a clock correction made from the command line",
    "plan": "a capture plan saved from the command line",
}


class WorkspaceLocked(Exception):
    """Another process has the workspace file open.

    ``holder`` names it ("the StormScope window (process 1234)"), ``kind`` is "window", "command" or "program",
    ``command`` the StormScope command holding it ("import"; None unless kind is "command"), ``pid`` its process
    id and ``program`` its program's name (each None when unknown), and ``advice`` says what to do -- in the
    window's words, so without command-line syntax. ``str(e)`` joins them into one sentence; :func:`cli_message`
    is the command line's version.
    """

    def __init__(self, path: str | os.PathLike, holder: str, kind: str, advice: str, pid: int | None = None,
                 command: str | None = None, program: str | None = None):
        self.path = Path(path)
        self.holder = holder
        self.kind = kind
        self.advice = advice
        self.pid = pid
        self.command = command
        self.program = program
        super().__init__(f"The workspace {self.path} is in use by {holder}. {advice}")


def is_lock_error(message: str) -> bool:
    """True for DuckDB's "Could not set lock on file" error (another process holds the file)."""
    return "Could not set lock on file" in message


def _cmdline(pid: int) -> list[str] | None:
    """The process's arguments on Linux; None where /proc does not exist or the process has gone."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    args = [a.decode(errors="replace") for a in raw.split(b"\0")]
    while args and not args[-1]:
        args.pop()
    return args or None


def _cwd(pid: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return None


# StormScope's programs when installed: pip/pipx entry points (python .../bin/stormscope ...) and the desktop
# build's (.../StormScope/StormScope, stormscope-cli; .exe on Windows)
PROGRAMS = {"stormscope", "stormscope-gui", "StormScope", "stormscope-cli"}


def _stormscope_args(cmdline: list[str], cwd: Path | None) -> list[str] | None:
    """The arguments after main.py (or an installed StormScope program) when the command line runs StormScope;
    else None."""
    for i, arg in enumerate(cmdline[:3]):  # python [-X opt] main.py ...; stormscope ...; python .../stormscope ...
        name = Path(arg).name
        if name.removesuffix(".exe") in PROGRAMS:
            return cmdline[i + 1:]
        if name != "main.py":
            continue
        script = Path(arg) if cwd is None or Path(arg).is_absolute() else cwd / arg
        if cwd is None or (script.parent / "app" / "workspace.py").is_file():
            return cmdline[i + 1:]
    return None


def _program_name(cmdline: list[str] | None, exe: str | None) -> str | None:
    if cmdline:
        name = Path(cmdline[0]).name
        if name.startswith("python") and len(cmdline) > 1 and not cmdline[1].startswith("-"):
            name = f"{name} {Path(cmdline[1]).name}"
        return name
    return Path(exe).name if exe else None


def describe_holder(pid: int | None, cmdline: list[str] | None, exe: str | None = None,
                    cwd: Path | None = None) -> tuple[str, str, str, str | None]:
    """(holder, kind, advice, command) for the process ``pid`` running ``cmdline`` (None: unknown)."""
    if pid is None:
        return ("another program", "program",
                "Close the program that has it open (a StormScope window, a StormScope command or a database "
                "tool), then try again.", None)
    args = _stormscope_args(cmdline, cwd) if cmdline else None
    if args is not None:
        first = args[0] if args else None
        # no command, gui, -w WS, or paths first ("Open with"): the window
        if first is None or first == "gui" or first.startswith("-") or first not in COMMANDS:
            return (f"the StormScope window (process {pid})", "window",
                    "Close the StormScope window that has it open, or open another workspace.", None)
        doing = _DOING.get(first, "a StormScope command run from the command line")
        what = "the import" if first == "import" else "it"
        return (f"{doing} (process {pid})", "command", f"Wait for {what} to finish, then try again.", first)
    name = _program_name(cmdline, exe)
    holder = f"another program, {name} (process {pid})" if name else f"another program (process {pid})"
    return holder, "program", "Close that program, or open another workspace.", None


def workspace_locked(path: str | os.PathLike, message: str) -> WorkspaceLocked:
    """The :class:`WorkspaceLocked` for DuckDB's lock error ``message`` on the workspace ``path``."""
    m = _HELD_IN.search(message)
    if m is None:
        holder, kind, advice, command = describe_holder(None, None)
        return WorkspaceLocked(path, holder, kind, advice)
    pid = int(m["pid"])
    cmdline = _cmdline(pid)
    holder, kind, advice, command = describe_holder(pid, cmdline, m["exe"], _cwd(pid))
    return WorkspaceLocked(path, holder, kind, advice, pid=pid, command=command,
                           program=_program_name(cmdline, m["exe"]))


def cli_message(e: WorkspaceLocked, command: str, paths: list[str] | None = None) -> str:
    """One line for ``main.py COMMAND`` (the command line may name commands; the window never does)."""
    ws = shlex.quote(str(e.path))
    other = "run this command on another workspace (-w WS)"
    if e.kind == "window":
        said = f"the workspace {e.path} is open in the StormScope window (process {e.pid})"
        if command == "import" and paths:
            shown = " ".join(shlex.quote(p) for p in paths[:3]) + (" ..." if len(paths) > 3 else "")
            return f"{said}; to import into it, hand the files to that window: {command_name()} gui -w {ws} {shown}"
        return f"{said}; close that window, or {other}"
    if e.kind == "command":
        what = "the import" if e.command == "import" else "it"
        return (f"the workspace {e.path} is in use by another StormScope command, {command_name()} {e.command} "
                f"(process {e.pid}); wait for {what} to finish, then run this again")
    if e.pid is None:
        return (f"the workspace {e.path} is in use by another program (a StormScope window or command, or a "
                f"database tool); close it, or {other}")
    name = f", {e.program}" if e.program else ""
    return f"the workspace {e.path} is in use by another program{name} (process {e.pid}); close it, or {other}"
