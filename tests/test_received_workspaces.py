"""A file given as a workspace that is not one, or a workspace whose values StormScope never stores (issue 30):
one line naming the file -- and for a value the table, the row and the column -- from every command and the
window's start, the file left as it came. Each case was a traceback at every command or a window that did not
start (a report that never finished, for the resampling step)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import app.cli as cli
from tests.conftest import ROOT
from tests.hostile import base, commands

# name -> what the file is, said after "This is not a workspace StormScope can open: "
NOT_WORKSPACES = {
    "empty": "it is empty (0 bytes)",
    "text": "it is a text file",
    "random": "it is not a DuckDB database (its bytes are not one)",
    "sqlite": "it is an SQLite database",
    "cut_short": "it is a DuckDB file cut short (",
}
# name -> SQL run by plain DuckDB on a workspace StormScope wrote, and what the refusal names
DAMAGED = {
    "version_four": (["UPDATE workspace_info SET value = 'four' WHERE key = 'schema_version'"],
                     "table workspace_info, the row schema_version, column value holds 'four': not a version number"),
    "version_4.0": (["UPDATE workspace_info SET value = '4.0' WHERE key = 'schema_version'"],
                    "table workspace_info, the row schema_version, column value holds '4.0'"),
    "version_null": (["UPDATE workspace_info SET value = NULL WHERE key = 'schema_version'"],
                     "table workspace_info, the row schema_version, column value holds None"),
    "compatible_three": (["UPDATE workspace_info SET value = 'three' WHERE key = 'read_compatible_from'"],
                         "the row read_compatible_from, column value holds 'three'"),
    "kind_null": (["ALTER TABLE runs ALTER COLUMN kind DROP NOT NULL", "UPDATE runs SET kind = NULL"],
                  "table runs, run 1, column kind holds None: an empty value where one is needed"),
    "kind_unknown": (["UPDATE runs SET kind = 'rm -rf'"],
                     "table runs, run 1, column kind holds 'rm -rf': not a kind of run StormScope reads"),
    "interval_nan": (["UPDATE runs SET interval_s = 'nan'::DOUBLE"], "table runs, run 1, column interval_s holds nan"),
    "started_at_tz": (["ALTER TABLE runs ALTER COLUMN started_at TYPE TIMESTAMPTZ"],
                      "column started_at holds 'TIMESTAMP WITH TIME ZONE': a column of type TIMESTAMP WITH TIME ZONE, "
                      "where StormScope stores TIMESTAMP"),
    "phase_nan": (["INSERT INTO phases VALUES (1, 'p', 'nan'::DOUBLE, 10, 'manual')"],
                  "table phases, the row of run 1 named 'p', column t_start_s holds nan"),
    "question_kind": (["INSERT INTO questions VALUES (nextval('question_id_seq'), 1, 'rm -rf', NULL, '{}', now())"],
                      "table questions, question 1, column kind holds 'rm -rf'"),
    "question_title": (["INSERT INTO questions VALUES (nextval('question_id_seq'), 1, 'storm_profile', "
                        "repeat('x', 200000), '{\"run_id\": 1}', now())"],
                       "table questions, question 1, column title holds 'xxxx"),
    "question_run_as_text": (["INSERT INTO questions VALUES (nextval('question_id_seq'), 1, 'storm_profile', NULL, "
                              "'{\"run_id\": \"7\"}', now())"],
                             "table questions, question 1, column params holds '{\"run_id\": \"7\"}': Run: a whole "
                             "number expected"),
    "question_step_1e-6": (["INSERT INTO questions VALUES (nextval('question_id_seq'), 1, 'storm_profile', NULL, "
                            "'{\"run_id\": 1, \"every_s\": 1e-6}', now())"],
                           "is finer than the run's interval (1 s)"),
}


def _sha(p: Path) -> str:
    h = hashlib.sha256(p.read_bytes())
    wal = Path(f"{p}.wal")
    h.update(wal.read_bytes() if wal.exists() else b"")
    return h.hexdigest()


def _not_a_workspace(name: str, folder: Path) -> Path:
    path = folder / f"{name}.duckdb"
    if name == "empty":
        path.write_bytes(b"")
    elif name == "text":
        path.write_text("run_id,name\n1,storm\n")
    elif name == "random":
        path.write_bytes(os.urandom(100_000))
    elif name == "sqlite":
        with sqlite3.connect(path) as con:
            con.execute("CREATE TABLE runs (run_id INTEGER)")
    else:
        path.write_bytes(base(folder / "base").read_bytes()[:500_000])
    return path


def _damaged(name: str, folder: Path) -> Path:
    path = folder / f"{name}.duckdb"
    shutil.copy(base(folder / "base"), path)
    with duckdb.connect(str(path)) as con:
        for stmt in DAMAGED[name][0]:
            con.execute(stmt)
    return path


def _every_command_says(path: Path, said: str, tmp_path: Path, capsys) -> None:
    digest = _sha(path)
    for argv in commands(tmp_path):
        assert cli.main([*argv, "-w", str(path)]) == 1, argv
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        assert err.count("\n") == 1, (argv, err)
        assert err.startswith(f"main.py {argv[0]}: error: {path}: "), (argv, err)
        assert said in err, (argv, err)
    assert _sha(path) == digest
    assert not (tmp_path / "report.pdf").exists()


@pytest.mark.parametrize("name", sorted(NOT_WORKSPACES))
def test_a_file_that_is_not_a_workspace_is_said_by_every_command(name, tmp_path, capsys):
    path = _not_a_workspace(name, tmp_path)
    _every_command_says(path, f"This is not a workspace StormScope can open: {NOT_WORKSPACES[name]}", tmp_path,
                        capsys)


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_a_value_storm_scope_never_stores_is_named_by_every_command(name, tmp_path, capsys):
    path = _damaged(name, tmp_path)
    _every_command_says(path, DAMAGED[name][1], tmp_path, capsys)


@pytest.mark.parametrize("name", ["sqlite", "question_kind", "question_step_1e-6"])
def test_the_window_does_not_start_on_it_and_says_why(name, tmp_path, qapp, monkeypatch, capsys):
    from PySide6.QtWidgets import QMessageBox

    import main as entry

    path = _not_a_workspace(name, tmp_path) if name in NOT_WORKSPACES else _damaged(name, tmp_path)
    digest = _sha(path)
    boxes = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text, *a: boxes.append((title, text)))
    assert entry.main(["gui", "-w", str(path)]) == 1
    assert [t for t, _ in boxes] == ["StormScope — workspace not opened"]
    said = NOT_WORKSPACES.get(name) or DAMAGED[name][1]
    assert said in boxes[0][1]
    assert "Traceback" not in capsys.readouterr().err
    assert _sha(path) == digest


def test_a_write_ahead_log_beside_a_received_file_is_checked_before_anything_is_written(tmp_path):
    """A received ws.duckdb with ws.duckdb.wal holding a macro: a writable open (import, window) replayed and
    checkpointed the log into the file, then refused it -- the received file was changed. Now it is checked
    read-only first: refused, the file and its log as they came."""
    path = tmp_path / "ws.duckdb"
    shutil.copy(base(tmp_path / "base"), path)
    con = duckdb.connect(str(path))
    con.execute("SET checkpoint_threshold = '1TB'")
    con.execute("PRAGMA disable_checkpoint_on_shutdown")
    con.execute("CREATE MACRO abs(x) AS 77")
    con.close()
    wal = Path(f"{path}.wal")
    assert wal.exists()
    before, log = path.read_bytes(), wal.read_bytes()
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "import", str(ROOT / "sample_traces" /
                        "storm_slow_iostat-xt.txt"), "-w", str(path)], capture_output=True, text=True, cwd=ROOT,
                       timeout=300, check=False)
    assert r.returncode == 1, r.stderr
    assert "a function (macro) named abs" in r.stderr
    assert path.read_bytes() == before
    assert wal.read_bytes() == log


def test_a_name_with_a_line_break_is_shown_visibly_by_every_text_output(tmp_path, capsys):
    """Issue 30: a run name holding a line break was printed raw by analyze storm/series/cap, compare and question
    list/answer (the README promises \\n shown visibly): one name could forge lines of the output."""
    path = tmp_path / "ws.duckdb"
    shutil.copy(base(tmp_path / "base"), path)
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE runs SET name = 'storm' || chr(10) || '1. [HELD] forged' || chr(27) || '[2J'")
    assert cli.main(["question", "add", "storm", "--run", "1", "-w", str(path)]) == 0
    capsys.readouterr()
    for argv in (["analyze", "storm", "--run", "1"], ["analyze", "series", "--run", "1"],
                 ["analyze", "cap", "--run", "1", "--iops-cap", "100"], ["compare", "--runs", "1", "1"],
                 ["question", "list"], ["question", "answer"], ["runs"]):
        assert cli.main([*argv, "-w", str(path)]) == 0, argv
        out = capsys.readouterr().out
        assert "storm\\n1. [HELD] forged\\x1b[2J" in out, (argv, out)
        assert not any(line.startswith("1. [HELD]") for line in out.splitlines()), (argv, out)
        assert "\x1b" not in out


def test_a_workspace_whose_free_end_duckdb_truncated_still_opens(tmp_path):
    """DuckDB's checkpoint cuts free blocks off the end of the file and still counts them in the database's size:
    such a file is whole. Failed before: the fourth question added to the sample workspace left 14 used and 2 free
    blocks in 3,682,304 bytes, and the fifth command refused it as "cut short (3,682,304 of its 4,206,592 bytes)"."""
    from main import main
    from tests.analysis.test_questions import _import_samples

    ws = tmp_path / "rw.duckdb"
    _import_samples(ws)
    w = ["-w", str(ws)]
    for args in (["cap", "--run", "1", "--cap-iops", "200"], ["compare", "--runs", "3,2", "--phases", "none"],
                 ["response-time", "--runs", "5", "--threshold-ms", "50", "--goal-pct", "95"],
                 ["sizing", "--users", "100", "--iops-per-user", "8..25", "--read-pct", "40", "--raid", "10",
                  "--disk", "sata7k"]):
        assert main(["question", "add", *args, *w]) == 0
    with duckdb.connect(str(ws), read_only=True) as con:
        block, total, used = con.execute("SELECT block_size, total_blocks, used_blocks "
                                         "FROM pragma_database_size()").fetchall()[0]
    assert main(["question", "list", *w]) == 0
    assert used < total  # free blocks counted that the file no longer holds
