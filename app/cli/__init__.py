"""StormScope command line: every job the window does, scriptable (no Qt here).

    python main.py import PATH... [-w WS] [--interval S] [--first-report MODE] [--name N] [--tag K=V]... [--json]
    python main.py runs [-w WS] [--json]
    python main.py sql "QUERY" [-w WS] [--format table|csv|json]
    python main.py analyze latency -w WS --run ID [--device D] [--op all|read|write] [--threshold-ms 50] [--json]
    python main.py analyze histo -w WS --run ID [--device D] [--json]
    python main.py report -w WS [--runs ID...] [--title T] [--customer C] [--logo PNG] [--template NAME]
                          [--anonymise] -o OUT.pdf
    python main.py analyze series|storm|cap -w WS --run ID [--device D] ...  (see README, "Analyses")
    python main.py compare -w WS --runs ID ID... [--json]
    python main.py size --users N --iops-per-user X [--read-pct P] [--raid L] [--disk-iops N | --disk-type T] ...
    python main.py phase add|list|delete|detect -w WS --run ID ...;  python main.py marker add|list|delete ...
    python main.py import PATH... [--ram-gb GB] [--mapping NAME];  python main.py mapping save|list|show|delete ...
    python main.py question add|list|answer|edit|move|delete ...  (questions a report answers)
    python main.py run ID [--interval S] [--first-report K] [--histogram-counts C] [--rename N] [--tag K=V] [--delete]

Exit codes: 0 success, 1 some input failed (the rest was still done), 2 usage error or the workspace is open
in another process (the window, or another command).

Layout: one module per command group (importing, runs, sql, analyze, compare, size, phases, mapping, report,
question, gui), each declaring its :class:`~app.cli.common.Command` objects; :mod:`app.cli.entry` lists them,
builds the parser and maps errors to exit codes; :mod:`app.cli.common` holds what they share, including
:func:`~app.cli.common.open_workspace`, the one place a command opens the workspace. The command groups never
import each other (import-linter contracts in pyproject.toml).
"""

from app.cli.entry import build_parser, main

__all__ = ["build_parser", "main"]
