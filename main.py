"""StormScope entry point.

    python main.py                 open the window on the workspace
    python main.py gui PATH...     open the window and import PATHs
    python main.py COMMAND ...     command line (import, runs, sql, ...; see --help)
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if not argv or argv[0] == "gui":
        try:
            from app.ui.main_window import run_gui  # the window (Qt) is only imported here
        except ImportError:
            run_gui = None
        if run_gui is not None:
            return run_gui(argv[1:] if argv else [])
        # no window yet: show what the workspace holds
        from app.cli import main as cli_main

        paths = [a for a in argv[1:] if not a.startswith("-")] if argv else []
        ws = argv[argv.index("-w") + 1:argv.index("-w") + 2] if "-w" in argv else []
        if paths:
            cli_main(["import", *paths, *(["-w", *ws] if ws else [])])
        return cli_main(["runs", *(["-w", *ws] if ws else [])])
    from app.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
