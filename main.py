"""StormScope entry point.

    python main.py [-w WS]           open the window on the workspace
    python main.py gui [-w WS] PATH  open the window and import PATHs
    python main.py COMMAND ...       command line (import, runs, sql, analyze, compare, size, report, ...; see --help)
"""

from __future__ import annotations

import sys


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


def main(argv: list[str]) -> int:
    if not argv or argv[0] == "gui" or argv[0] in ("-w", "--workspace"):
        args = argv[1:] if argv and argv[0] == "gui" else argv
        try:
            preload_before_qt()
            from app.ui.single_instance import hand_off_early

            code = hand_off_early(args)  # a window has the workspace open: it takes the paths, no second window
            if code is not None:
                return code
            from app.ui.main_window import run_gui  # the window (Qt) is only imported here
        except ImportError as e:
            print(f"The window cannot start ({e}); the command line works: python main.py --help", file=sys.stderr)
            return 1
        return run_gui(args)
    from app.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
