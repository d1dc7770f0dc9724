"""``main.py gui [PATH...]``: listed here so that ``--help`` shows it; main.py opens the window itself (the command
line never imports Qt)."""

from __future__ import annotations

import argparse

from app import command_name
from app.cli.common import Command, UsageError, add_workspace_arg


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATH")
    add_workspace_arg(p)


def run(args: argparse.Namespace) -> int:
    typed = "stormscope" if command_name() == "stormscope" else "python main.py"
    raise UsageError(f"the window opens from {command_name()}: {typed} gui [-w WS] [PATH...]")


GUI = Command("gui", "open the window (and import PATHs)", arguments, run)
