"""Hostile workspaces: what someone could send instead of a workspace StormScope wrote (issue 17).

Each is a real workspace (``sample_traces/storm_fast_iostat-xt.txt`` imported by StormScope) to which a plain
DuckDB connection -- another program, not StormScope -- added one thing StormScope never creates. Most reach for
``secret``, a file standing in for ``~/.ssh/id_rsa``; ``out`` is a path a hostile statement would write to.
:func:`build` makes one; :data:`HOSTILE` names them all. Used by tests/test_safe_open.py (and by the reliability
suite's stress run).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb

from app.importer import import_file
from app.workspace import Workspace
from parsers.base import ImportOptions
from tests.conftest import SAMPLES

SAMPLE = SAMPLES / "storm_fast_iostat-xt.txt"
SECRET_TEXT = "-----BEGIN OPENSSH PRIVATE KEY----- not-a-real-key-4f1c9e"


def _q(path: Path) -> str:
    return str(path).replace("'", "''")


# name -> SQL statements (given the secret file and a path to write to), run by plain DuckDB on the workspace
HOSTILE: dict[str, Callable[[Path, Path], list[str]]] = {
    # finding 1: the report's appendix lists runs.host -- here the content of the secret file
    "runs_is_a_view_reading_a_file": lambda secret, out: [
        "ALTER TABLE runs RENAME TO runs_data",
        f"CREATE VIEW runs AS SELECT * REPLACE ((SELECT content FROM read_text('{_q(secret)}')) AS host) "
        "FROM runs_data"],
    "an_extra_view_reading_a_file": lambda secret, out: [
        f"CREATE VIEW summary AS SELECT content FROM read_text('{_q(secret)}')"],
    "a_macro_shadowing_abs": lambda secret, out: ["CREATE MACRO abs(x) AS 77"],
    "a_table_macro_shadowing_a_system_function": lambda secret, out: [
        f"CREATE MACRO duckdb_views() AS TABLE SELECT content AS view_name FROM read_text('{_q(secret)}')"],
    "an_extra_schema": lambda secret, out: ["CREATE SCHEMA evil", "CREATE TABLE evil.runs AS SELECT * FROM main.runs"],
    "an_extra_sequence": lambda secret, out: ["CREATE SEQUENCE evil_seq START 77"],
    "a_user_type": lambda secret, out: ["CREATE TYPE mood AS ENUM ('happy', 'sad')"],
    "a_generated_column": lambda secret, out: ["CREATE TABLE notes (a INTEGER, b INTEGER AS (a * 77))"],
    "a_default_expression_on_runs": lambda secret, out: ["ALTER TABLE runs ALTER COLUMN host SET DEFAULT 'forged'"],
    # finding 2: a stored computed column that ends the query and writes a file
    "a_computed_column_writing_a_file": lambda secret, out: [
        "INSERT INTO computed_columns VALUES ('iostat_samples', 'x', "
        f"'r_s) AS x FROM iostat_samples; COPY (SELECT 1 AS pwned) TO ''{_q(out)}''; SELECT (1', now())"],
    # issue 36: the sender's expressions that DuckDB runs on every insert or rename, and a replaced sequence
    "a_check_constraint": lambda secret, out: ["CREATE TABLE notes (a INTEGER CHECK (a < 77))"],
    "an_expression_index_on_runs": lambda secret, out: ["CREATE INDEX by_name ON runs ((lower(name) || host))"],
    "a_foreign_key_to_runs": lambda secret, out: [
        "CREATE TABLE notes (run_id INTEGER REFERENCES runs (run_id))", "INSERT INTO notes VALUES (1)"],
    "run_id_seq_replaced_by_a_cycling_one": lambda secret, out: [
        "ALTER TABLE runs ALTER COLUMN run_id DROP DEFAULT", "DROP SEQUENCE run_id_seq",
        "CREATE SEQUENCE run_id_seq START 1 MAXVALUE 2 CYCLE",
        "ALTER TABLE runs ALTER COLUMN run_id SET DEFAULT nextval('run_id_seq')"],
    "run_id_seq_near_overflow": lambda secret, out: [
        "ALTER TABLE runs ALTER COLUMN run_id DROP DEFAULT", "DROP SEQUENCE run_id_seq",
        "CREATE SEQUENCE run_id_seq START 2147483640",
        "ALTER TABLE runs ALTER COLUMN run_id SET DEFAULT nextval('run_id_seq')"],
    "run_id_seq_behind_the_runs": lambda secret, out: [
        "ALTER TABLE runs ALTER COLUMN run_id DROP DEFAULT", "DROP SEQUENCE run_id_seq",
        "CREATE SEQUENCE run_id_seq START 1", "ALTER TABLE runs ALTER COLUMN run_id SET DEFAULT nextval('run_id_seq')"],
    "a_computed_column_advancing_a_sequence": lambda secret, out: [
        "INSERT INTO computed_columns VALUES ('iostat_samples', 'x', 'nextval(''run_id_seq'')', now())"],
    "a_computed_column_checkpointing": lambda secret, out: [
        "INSERT INTO computed_columns VALUES ('iostat_samples', 'x', '(SELECT count(*) FROM checkpoint())', now())"],
}


def base(folder: Path) -> Path:
    """A workspace StormScope wrote: the sample imported (run 1), in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "base.duckdb"
    if not path.exists():
        with Workspace(path) as ws:
            assert import_file(ws, str(SAMPLE), ImportOptions()).status == "imported"
    return path


def build(name: str, folder: Path) -> tuple[Path, Path, Path]:
    """The hostile workspace ``name`` in ``folder``: (workspace, secret file, path a hostile write would make)."""
    folder.mkdir(parents=True, exist_ok=True)
    secret = folder / "id_rsa"
    secret.write_text(SECRET_TEXT + "\n")
    out = folder / "pwned.csv"
    path = folder / f"{name}.duckdb"
    shutil.copy(base(folder / "base"), path)
    with duckdb.connect(str(path)) as con:
        for stmt in HOSTILE[name](secret, out):
            con.execute(stmt)
    return path, secret, out


def commands(tmp: Path) -> list[list[str]]:
    """Every command that opens a workspace (``main.py COMMAND ... -w WS``), with arguments that work on the
    :func:`base` workspace (run 1); a report goes to ``tmp``."""
    return [["import", str(SAMPLE)], ["runs"], ["sql", "SELECT host FROM runs"], ["analyze", "latency", "--run", "1"],
            ["analyze", "histo", "--run", "1"], ["analyze", "series", "--run", "1"],
            ["analyze", "storm", "--run", "1"], ["analyze", "cap", "--run", "1", "--iops-cap", "100"],
            ["compare", "--runs", "1", "1"], ["size", "--users", "100", "--iops-per-user", "10", "--rt-run", "1"],
            ["phase", "list", "--run", "1"], ["phase", "detect", "--run", "1"], ["marker", "list", "--run", "1"],
            ["phase", "add", "--run", "1", "--name", "boot", "--start", "0", "--end", "10"],
            ["marker", "add", "--run", "1", "--name", "login", "--t", "5"],
            ["mapping", "list"], ["mapping", "delete", "x"],
            ["mapping", "save", "m", "--kind", "iomark", "--column", "users=Users", "--column", "iops=IOPS"],
            ["question", "list"], ["question", "add", "storm", "--run", "1"],
            ["report", "-o", str(tmp / "report.pdf")], ["run", "1", "--rename", "x"]]
