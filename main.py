"""StormScope entry point (``python main.py`` in a checkout; the ``stormscope`` command when installed).

    python main.py [-w WS]           open the window on the workspace
    python main.py gui [-w WS] PATH  open the window and import PATHs
    python main.py COMMAND ...       command line (import, runs, sql, analyze, compare, size, report, ...; see --help)
    python main.py --version
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

if __package__:  # installed (pip, pipx): this is stormscope/main.py, beside its app/, parsers/ and reports/ (pyproject)
    _HERE = os.path.dirname(os.path.abspath(__file__))
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)  # they import each other as in a checkout; another project's `app` is not seen


def preload_before_qt() -> None:
    """Import the large libraries the window needs before PySide6. PySide6 replaces ``__import__`` with a hook
    that reads the source of every Python module imported after it (to look for ``__feature__`` use); numpy,
    polars and DuckDB imported first skip that scan: 0.15-0.3 s of a 1.5 s cold start here
    (benchmarks/bench_startup.py). Checked again for issue 18 (CPU time of the start, six alternating rounds on a
    busy machine): still 0.15 s less with it (median 1.52 s vs 1.66 s). Importing StormScope's own Qt-free modules
    here too (workspace, analyses) measured no gain, so it stays with the three libraries."""
    import duckdb  # noqa: F401
    import numpy  # noqa: F401
    import polars  # noqa: F401


def opens_the_window(argv: list[str]) -> bool:
    """No command, ``gui``, ``-w WS`` alone, or paths first ("Open with" on Windows and Linux starts
    ``StormScope PATH...``): the window. A command's name wins over a file of that name."""
    if not argv or argv[0] in ("gui", "-w", "--workspace"):
        return True
    if argv[0].startswith("-") or not os.path.exists(argv[0]):
        return False
    from app.cli.entry import COMMAND_NAMES

    return argv[0] not in COMMAND_NAMES


def no_display(env: Mapping[str, str], platform: str) -> str | None:
    """Linux and the other X11/Wayland systems: what to say when the window has no display to open on (else None).
    Qt itself stops with "could not connect to display" among lines that name libxcb-cursor0, a library that is
    installed: the user looks for the wrong cause. Windows and macOS always have one; a platform that needs no
    display (QT_QPA_PLATFORM=offscreen, vnc, eglfs...) is left to Qt."""
    if platform in ("win32", "cygwin", "darwin"):
        return None
    wanted = [p.split(":")[0].strip() for p in env.get("QT_QPA_PLATFORM", "").split(";") if p.strip()]
    if any(p not in ("xcb", "wayland", "wayland-egl") for p in wanted):
        return None
    if env.get("DISPLAY") and (not wanted or "xcb" in wanted):
        return None
    if env.get("WAYLAND_DISPLAY") and (not wanted or any(p.startswith("wayland") for p in wanted)):
        return None
    from app import command_name

    return ("The StormScope window needs a display, and this session has none (DISPLAY is not set, nor "
            "WAYLAND_DISPLAY). Start it from a desktop session, or over SSH with X forwarding (ssh -X). Every job "
            f"of the window is also a command, which needs no display: {command_name()} --help")


def workspace_argument(args: list[str]) -> list[str]:
    """A workspace opened from the file manager (the installers associate .duckdb with StormScope, which starts
    ``StormScope PATH.duckdb``) is the workspace to open (``-w PATH``), not a trace to import."""
    if len(args) == 1 and args[0].lower().endswith(".duckdb") and not args[0].startswith("-"):
        return ["-w", args[0]]
    return args


def main(argv: list[str]) -> int:
    from app.crashlog import ensure_std_streams

    ensure_std_streams()  # a windowed build starts without stdout / stderr
    if opens_the_window(argv):
        args = workspace_argument(argv[1:] if argv[0:1] == ["gui"] else argv)
        try:
            from app.crashlog import start
            from reports.options import version

            start(version())  # the log and crash log in the user log folder (Help > Open log folder)
            preload_before_qt()
            from app.ui.single_instance import hand_off_early

            code = hand_off_early(args)  # a window has the workspace open: it takes the paths, no second window
            if code is not None:
                return code
            said = no_display(os.environ, sys.platform)
            if said is not None:
                print(said, file=sys.stderr)
                return 1
            from app.ui.main_window import run_gui  # the window (Qt) is only imported here
        except ImportError as e:
            print(f"The window cannot start ({e}); the command line works: python main.py --help", file=sys.stderr)
            return 1
        return run_gui(args)
    from app.cli import main as cli_main

    return cli_main(argv)


def run() -> None:
    """The ``stormscope`` and ``stormscope-gui`` commands (pyproject.toml's entry points)."""
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
