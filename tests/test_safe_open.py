"""A workspace from someone else can do no harm (issue 17, findings 1, 2, 3, 7, 11): the safe-open policy.

Every connection reaches no file but the workspace (and its staging folder), installs and loads no extension and
has its configuration locked; a workspace holding objects StormScope never creates is refused -- by every command,
the report and the window -- before anything of it runs; SQL StormScope did not write runs as one SELECT or not at
all; read-type commands leave a received workspace as it came; a killed import's staging folder goes away.
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import hashlib  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import stat  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import duckdb  # noqa: E402
import pytest  # noqa: E402

import app.cli as cli  # noqa: E402
from app.workspace import Workspace  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.hostile import HOSTILE, SAMPLE, SECRET_TEXT, base, build, commands  # noqa: E402

PY = sys.executable


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


# ---- every connection ---------------------------------------------------------------------------------------------
def _settings(con) -> dict[str, str]:
    return dict(con.execute("SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', "
                            "'autoinstall_known_extensions', 'autoload_known_extensions', 'lock_configuration')")
                .fetchall())


LOCKED = {"enable_external_access": "false", "autoinstall_known_extensions": "false",
          "autoload_known_extensions": "false", "lock_configuration": "true"}


def test_every_connection_reaches_no_file_installs_nothing_and_is_locked(tmp_path):
    secret = tmp_path / "id_rsa"
    secret.write_text(SECRET_TEXT)
    path = base(tmp_path / "ws")
    for read_only in (False, True):
        with Workspace(path, read_only=read_only) as ws:
            for con in (ws.con, ws.cursor().con):
                assert _settings(con) == LOCKED
                with pytest.raises(duckdb.PermissionException):
                    con.execute(f"SELECT content FROM read_text('{secret}')").fetchall()
                with pytest.raises(duckdb.PermissionException):
                    con.execute(f"COPY runs TO '{tmp_path / 'out.csv'}'")
                with pytest.raises(duckdb.Error):
                    con.execute("SET enable_external_access = true")
                with pytest.raises(duckdb.Error):
                    con.execute("SET autoinstall_known_extensions = true")
    assert not (tmp_path / "out.csv").exists()


def test_only_the_policy_connects():
    """Every DuckDB connection of the app, the report and the parsers goes through app.safe_open.connect."""
    calls = [str(p.relative_to(ROOT)) for folder in ("app", "reports", "parsers") for p in (ROOT / folder).rglob("*.py")
             for line in p.read_text().splitlines() if re.search(r"duckdb\.connect\(", line)]
    assert set(calls) == {"app/safe_open.py"}, calls  # connect, and the read-only look before a writable open


def test_python_frames_registered_by_name_still_reach_duckdb(tmp_path):
    """External access off turns DuckDB's replacement scans of Python variables off; the importer registers its
    frames by name (con.register), which still works: an import stores every row."""
    from app.importer import import_file
    from parsers.base import ImportOptions

    with Workspace(tmp_path / "ws.duckdb") as ws:
        r = import_file(ws, str(SAMPLE), ImportOptions())
        assert r.status == "imported"
        assert ws.con.execute("SELECT (SELECT count(*) FROM iostat_samples) + (SELECT count(*) FROM cpu_samples)"
                              ).fetchall()[0][0] == r.rows


# ---- hostile workspaces -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_workspace_is_refused_untouched_by_every_command(name, tmp_path, capsys):
    from app.workspace import WorkspaceRefused

    path, secret, out = build(name, tmp_path)
    digest = _sha(path)
    for read_only in (False, True):
        with pytest.raises(WorkspaceRefused) as e:
            Workspace(path, read_only=read_only)
        assert str(e.value).startswith("This workspace was not opened: it contains things StormScope never puts "
                                       "in a workspace (")
    for argv in commands(tmp_path):
        assert cli.main([*argv, "-w", str(path)]) == 1, argv
        o, err = capsys.readouterr()
        assert o == "", argv
        assert err.startswith(f"main.py {argv[0]}: error: {path}: This workspace was not opened"), (argv, err)
        assert err.count("\n") == 1
        assert SECRET_TEXT not in err
    assert not (tmp_path / "report.pdf").exists()
    assert not out.exists()
    assert _sha(path) == digest
    with duckdb.connect(str(path)) as con:  # every refused open closed the file
        assert con.execute("SELECT count(*) FROM runs_data" if name.startswith("runs_is") else
                           "SELECT count(*) FROM iostat_samples").fetchall()[0][0] > 0


def test_the_refusal_names_what_was_found(tmp_path):
    from app.workspace import WorkspaceRefused

    path, _secret, _out = build("runs_is_a_view_reading_a_file", tmp_path)
    with pytest.raises(WorkspaceRefused) as e:
        Workspace(path)
    assert "a view named runs" in e.value.found
    path, _secret, _out = build("a_macro_shadowing_abs", tmp_path)
    with pytest.raises(WorkspaceRefused) as e:
        Workspace(path)
    assert e.value.found == ["a function (macro) named abs"]
    assert str(e.value) == (
        "This workspace was not opened: it contains things StormScope never puts in a workspace (a function (macro) "
        "named abs). They could make StormScope read other files on this computer or change the numbers it shows, so "
        "the file was left untouched. Ask whoever sent it for the original trace files and import those.")


def test_the_report_of_a_hostile_workspace_never_reads_the_file(tmp_path):
    """Finding 1: a view ``runs`` whose host is the content of ~/.ssh/id_rsa put the key into the PDF."""
    path, _secret, _out = build("runs_is_a_view_reading_a_file", tmp_path)
    pdf = tmp_path / "r.pdf"
    r = subprocess.run([PY, str(ROOT / "main.py"), "report", "-w", str(path), "-o", str(pdf)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert SECRET_TEXT not in r.stdout + r.stderr
    assert "This workspace was not opened" in r.stderr
    assert not pdf.exists() or b"not-a-real-key" not in pdf.read_bytes()


def test_if_the_check_were_bypassed_the_connection_still_reads_no_file(tmp_path):
    """Two walls: even a connection that skipped the object check cannot read the file through the view."""
    from app.safe_open import connect

    path, _secret, _out = build("runs_is_a_view_reading_a_file", tmp_path)
    con = connect(path, read_only=True, check=False)
    try:
        with pytest.raises(duckdb.PermissionException):
            con.execute("SELECT host FROM runs").fetchall()
    finally:
        con.close()


def test_the_window_does_not_open_a_hostile_workspace(tmp_path, qapp, monkeypatch, capsys):
    from PySide6.QtWidgets import QMessageBox

    import main as entry

    path, _secret, _out = build("a_macro_shadowing_abs", tmp_path)
    digest = _sha(path)
    boxes = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text, *a: boxes.append((title, text)))
    assert entry.main(["gui", "-w", str(path)]) == 1
    assert [t for t, _ in boxes] == ["StormScope — workspace not opened"]
    assert "This workspace was not opened" in boxes[0][1]
    assert "Traceback" not in capsys.readouterr().err
    assert _sha(path) == digest


def test_open_workspace_on_a_hostile_file_says_so_and_keeps_the_current_one(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    path, _secret, out = build("a_computed_column_writing_a_file", tmp_path / "h")
    before, digest = window.ws_path, _sha(path)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), ""))
    boxes = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a: boxes.append((title, text)))
    action = next(a for m in window.menuBar().actions() for a in m.menu().actions() if a.text() == "&Open workspace…")
    action.trigger()
    assert [t for t, _ in boxes] == ["Workspace not opened"]
    assert "a computed column x whose definition is not one expression" in boxes[0][1]
    assert window.ws_path == before
    assert window.ws.runs() == []
    assert _sha(path) == digest
    assert not out.exists()


# ---- SQL StormScope did not write ---------------------------------------------------------------------------------
def test_sql_runs_one_select_and_nothing_else(tmp_path, capsys):
    """Finding 3: COPY … TO, EXPORT DATABASE, ATTACH, INSTALL and reading any file worked through ``sql``."""
    path = base(tmp_path / "ws")
    secret = tmp_path / "id_rsa"
    secret.write_text(SECRET_TEXT)
    out = tmp_path / "out"
    digest = _sha(path)
    refused = {
        f"COPY runs TO '{out}.csv'": "read-only", f"COPY (SELECT 1) TO '{out}.csv'": "read-only",
        f"EXPORT DATABASE '{out}'": "read-only", f"ATTACH '{out}.duckdb' AS o": "read-only",
        "INSTALL httpfs": "read-only", "LOAD httpfs": "read-only", "SET enable_external_access = true": "read-only",
        "PRAGMA version": "read-only", "CALL pragma_version()": "read-only", "DELETE FROM runs": "read-only",
        "SELECT 1; SELECT 2": "one query at a time", f"SELECT 1; COPY runs TO '{out}.csv'": "read-only",
        f"SELECT content FROM read_text('{secret}')": "reads only the workspace",
        f"SELECT * FROM read_csv('{secret}')": "reads only the workspace",
        f"SELECT * FROM '{secret}'": "does not exist",  # a file's name as a table: not looked for
        "SELECT * FROM read_csv('https://example.com/x.csv')": "reads only the workspace",
    }
    for query, why in refused.items():
        assert cli.main(["sql", query, "-w", str(path)]) == 1, query
        o, err = capsys.readouterr()
        assert err.startswith("main.py sql: refused: " if why != "does not exist" else "SQL error: "), (query, err)
        assert why in err, (query, err)
        assert o == ""
        assert SECRET_TEXT not in err
    assert not list(tmp_path.glob("out*"))
    assert _sha(path) == digest
    assert cli.main(["sql", "SELECT count(*) AS n FROM runs", "-w", str(path), "--format", "csv"]) == 0
    assert capsys.readouterr().out == "n\n1\n"


def test_a_computed_column_is_one_expression_and_never_writes_a_file(tmp_path):
    """Finding 2: a computed column's expression was pasted into SQL text, so ``…; COPY … TO`` ran."""
    out = tmp_path / "pwned.csv"
    evil = f"r_s) AS x FROM iostat_samples; COPY (SELECT 1) TO '{out}'; SELECT (1"
    with Workspace(base(tmp_path / "ws")) as ws:
        for expression in (evil, "r_s -- a comment", "r_s)", "(r_s", "1; SELECT 2"):
            with pytest.raises(ValueError, match="expression|parentheses|comment"):
                ws.add_computed_column("iostat_samples", "x", expression)
        assert not out.exists()
        ws.add_computed_column("iostat_samples", "total", "r_s + w_s")
        ws.add_computed_column("iostat_samples", "label", "'a;b (c' || device")
        assert ws.computed_columns("iostat_samples") == [("total", "r_s + w_s"), ("label", "'a;b (c' || device")]
        # a definition stored behind StormScope's back (the open refuses such a file) is never placed in a query
        ws.con.execute("INSERT INTO computed_columns VALUES ('iostat_samples', 'y', ?, now())", [evil])
        assert [n for n, _ in ws.computed_columns("iostat_samples")] == ["total", "label"]
    assert not out.exists()


def test_the_grid_refuses_a_computed_column_that_writes_a_file(window, tmp_path):
    from app.importer import import_file
    from parsers.base import ImportOptions

    out = tmp_path / "pwned.csv"
    rid = import_file(window.ws, str(SAMPLE), ImportOptions()).run_ids[0]
    window.browser.reload()
    window.browser.open_grid.emit(rid)
    err = window.grid.add_computed_column("x", f"r_s) AS x FROM iostat_samples; COPY (SELECT 1) TO '{out}'; "
                                               "SELECT (1")
    assert err is not None
    assert "one expression" in err
    assert not out.exists()


def test_the_sql_tab_says_a_query_reads_only_the_workspace(window, qtbot, tmp_path):
    secret = tmp_path / "id_rsa"
    secret.write_text(SECRET_TEXT)
    window.grid.set_query(f"SELECT content FROM read_text('{secret}')")
    assert window.grid.error.text() == ("A query reads only this workspace: other files, databases and the network "
                                        "cannot be reached from StormScope's SQL.")
    for query in ("PRAGMA version", "CALL pragma_version()", f"COPY (SELECT 1) TO '{tmp_path / 'o.csv'}'"):
        window.grid.set_query(query)
        assert window.grid.error.text().startswith("The SQL tab is read-only"), query
    assert not (tmp_path / "o.csv").exists()


def test_the_grid_exports_where_the_user_chose(window, qtbot, tmp_path):
    """The connection reaches no file of the user's: the export is written in the staging folder and moved."""
    import polars as pl

    from app.importer import import_file
    from parsers.base import ImportOptions

    rid = import_file(window.ws, str(SAMPLE), ImportOptions()).run_ids[0]
    window.browser.reload()
    window.browser.open_grid.emit(rid)
    qtbot.waitUntil(lambda: window.grid.model is not None and window.grid.model.rowCount() == 120, timeout=30000)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    window.grid.export(str(elsewhere / "t.csv"))
    window.grid.export(str(elsewhere / "t.parquet"))
    assert len((elsewhere / "t.csv").read_text().splitlines()) == 121
    assert pl.read_parquet(elsewhere / "t.parquet").height == 120
    assert not window.ws.staging.root.exists()  # nothing left behind


# ---- finding 7: read-type commands leave a received workspace as it came --------------------------------------------
def test_report_works_on_a_read_only_file_and_changes_nothing(tmp_path, capsys):
    path = base(tmp_path / "ws")
    digest = _sha(path)
    path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)  # 444 (root ignores it; the hash check does not)
    try:
        assert cli.main(["report", "-w", str(path), "-o", str(tmp_path / "r.pdf")]) == 0
    finally:
        path.chmod(0o644)
    assert (tmp_path / "r.pdf").stat().st_size > 0
    assert _sha(path) == digest
    assert not Path(f"{path}.wal").exists()


def test_read_type_commands_do_not_migrate_an_older_workspace(tmp_path, capsys):
    """``report`` opened read-write, so it migrated (changed) an older workspace someone sent."""
    from tests.test_migrations import _old

    path = _old(tmp_path)
    digest = _sha(path)
    for argv in (["report", "-o", str(tmp_path / "r.pdf")], ["runs"], ["sql", "SELECT count(*) FROM runs"],
                 ["analyze", "series", "--run", "2"], ["compare", "--runs", "2", "3"], ["question", "list"],
                 ["phase", "list", "--run", "2"], ["mapping", "list"]):
        assert cli.main([*argv, "-w", str(path)]) == 0, (argv, capsys.readouterr().err)
        assert _sha(path) == digest, argv
    capsys.readouterr()


# ---- finding 11: staging folders of killed imports ----------------------------------------------------------------
_KILLED_IMPORT = """
import sys
import app.workspace as W
from app.importer import import_file
from parsers.base import ImportOptions

W.INSERT_BATCH_ROWS = 10  # stream this small sample into one INSERT, as a large file is
stream = W._Stager.stream
def paused(self, *a):
    print("streaming", self.ws.staging.root, flush=True)
    sys.stdin.readline()  # killed here, inside the import's transaction, the file's snapshot in place
    return stream(self, *a)
W._Stager.stream = paused
with W.Workspace(sys.argv[1]) as ws:
    import_file(ws, sys.argv[2], ImportOptions())
"""


def test_the_staging_folder_of_a_killed_import_is_removed_on_the_next_open(tmp_path):
    path = tmp_path / "ws" / "ws.duckdb"
    Workspace(path).close()
    proc = subprocess.Popen([PY, "-c", _KILLED_IMPORT, str(path), str(SAMPLE)], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        line = proc.stdout.readline().split()
        assert line[0] == "streaming", line
        root = Path(line[1])
        assert root.is_dir()
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()
        proc.stdin.close()
    # the file's copy (a large import streams its rows into DuckDB: no staged copy of them since i18b)
    leftovers = sorted(p.name.split("-")[0] for p in root.iterdir())
    assert leftovers == ["snapshot"]
    with Workspace(path, read_only=True) as ws:  # a read-only open writes nothing, not even this
        assert root.is_dir()
        assert ws.runs() == []
    with Workspace(path) as ws:
        assert not ws.staging.root.exists()
        assert ws.runs() == []  # the killed import left no run
    assert [p for p in path.parent.rglob("*") if p.is_dir()] == []


def test_a_staging_folder_a_live_process_owns_is_kept(tmp_path):
    from app.staging import StagingArea

    area = StagingArea(tmp_path / "ws.duckdb")
    mine = area.new_dir("import")
    other = subprocess.Popen([PY, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        theirs = area.root / "import-theirs"
        theirs.mkdir()
        started = Path(f"/proc/{other.pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
        (theirs / "owner").write_text(f"{other.pid} {started}\n")
        reused = area.root / "import-reused"  # the same process id, another start: a reused id
        reused.mkdir()
        (reused / "owner").write_text(f"{other.pid} 1\n")
        ownerless = area.root / "import-ownerless"  # killed before it wrote its owner
        ownerless.mkdir()
        assert area.remove_stale() == [ownerless, reused]
        assert mine.is_dir()
        assert theirs.is_dir()
    finally:
        other.stdin.close()
        other.wait(timeout=10)
    assert area.remove_stale() == [theirs]
    area.release(mine)
    assert not area.root.exists()
    shutil.rmtree(tmp_path / "ws.duckdb", ignore_errors=True)


def test_a_workspace_whose_last_block_was_freed_is_not_taken_for_one_cut_short(tmp_path):
    """A marker added and deleted again: DuckDB gives the freed last block back (the file shrinks) while its header
    still counts it among its blocks (free ones). The check for a file cut short counted every block, so such a
    workspace was refused as 'cut short' by the next open -- of every command and the window. It counts the blocks
    in use now (a file shorter than those is still cut short)."""
    from app.importer import import_file
    from app.store.phases import add_marker, delete_marker
    from parsers.base import ImportOptions
    from tests.conftest import CORPUS

    p = tmp_path / "ws.duckdb"
    with Workspace(p) as ws:
        rid = import_file(ws, str(CORPUS / "clock" / "vda_sar-d-p_bursts-A.txt"), ImportOptions()).run_ids[0]
    size = p.stat().st_size
    with Workspace(p) as ws:
        add_marker(ws, rid, "x", 5.0)
    assert p.stat().st_size > size
    with Workspace(p) as ws:
        assert delete_marker(ws, rid, "x")
    assert p.stat().st_size == size  # the block given back
    with Workspace(p, read_only=True) as ws:
        assert [r.run_id for r in ws.runs()] == [rid]
