"""A workspace holding many runs, for the tests and the benchmark of a selection of thousands of runs.

One real iostat trace from the corpus is imported as a user does, then its run is copied N - 1 times in SQL (every
table with a ``run_id`` column, names and checksums made unique, the run id sequence advanced past the copies so
that the workspace opens as any other): what a consultant's workspace after months of captures holds, built in
seconds instead of N imports.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRACE = ROOT / "tests" / "corpus" / "iostat" / "sysstat-tests_iostat-ALL.txt"


def many_runs_workspace(path: Path, n: int, trace: Path = TRACE, interval_s: float | None = 1.0) -> Path:
    """A new workspace at ``path`` with ``n`` runs, each a copy of ``trace``'s one run (reports ``interval_s``
    apart: the trace has no time stamps); returns ``path``."""
    from app.importer import import_file
    from app.workspace import Workspace
    from parsers.base import ImportOptions

    ws = Workspace(path)
    try:
        result = import_file(ws, str(trace), ImportOptions(first_report="interval", interval_s=interval_s))
        assert result.run_ids == [1], (result.status, result.run_ids)
        con = ws.con
        tables = [t for (t,) in con.execute(
            "SELECT table_name FROM information_schema.columns WHERE column_name = 'run_id' "
            "AND table_schema = 'main' GROUP BY 1 ORDER BY 1").fetchall()]
        con.execute("BEGIN")
        con.execute("CREATE TEMP TABLE copies AS SELECT range AS k FROM range(1, ?)", [n])
        for t in tables:
            cols = [c for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND table_schema = 'main' "
                "ORDER BY ordinal_position", [t]).fetchall()]
            made = {"run_id": "run_id + k", "name": "name || ' ' || (k + 1)::VARCHAR",
                    "source_sha256": "source_sha256 || k::VARCHAR"} if t == "runs" else {"run_id": "run_id + k"}
            sel = ", ".join(made.get(c, c) for c in cols)
            con.execute(f"INSERT INTO {t} SELECT {sel} FROM {t}, copies WHERE run_id = 1")
        if n > 1:
            con.execute("SELECT max(nextval('run_id_seq')) FROM range(?)", [n - 1])
        con.execute("DROP TABLE copies")
        con.execute("COMMIT")
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (n,)
    finally:
        ws.close()
    return path


def many_questions_workspace(path: Path, n: int, trace: Path = TRACE, interval_s: float | None = 1.0) -> Path:
    """A new workspace at ``path`` with one run (``trace``) and ``n`` questions on it, each a storm profile of that
    run: one asked as a user does, copied ``n - 1`` times in SQL (positions 2 to ``n``, the question id sequence
    advanced past the copies); returns ``path``."""
    from app.analysis.question_kinds import StormQuestion, add_question
    from app.importer import import_file
    from app.workspace import Workspace
    from parsers.base import ImportOptions

    ws = Workspace(path)
    try:
        result = import_file(ws, str(trace), ImportOptions(first_report="interval", interval_s=interval_s))
        assert result.run_ids == [1], (result.status, result.run_ids)
        add_question(ws, StormQuestion(run_id=1))
        con = ws.con
        con.execute("BEGIN")
        con.execute("INSERT INTO questions (question_id, position, kind, title, params, created_at) "
                    "SELECT 1 + k, 1 + k, kind, title, params, created_at FROM questions, range(1, ?) AS r(k) "
                    "WHERE question_id = 1", [n])
        if n > 1:
            con.execute("SELECT max(nextval('question_id_seq')) FROM range(?)", [n - 1])
        con.execute("COMMIT")
        assert con.execute("SELECT count(*), max(position) FROM questions").fetchone() == (n, n)
    finally:
        ws.close()
    return path
