"""sar's bulk path (issue 31, parsers.bulk): every corpus sar and sadf file stores exactly what the line path
stores -- every row of every table, compared both ways (EXCEPT ALL) -- and the runs of device rows the bulk path
cannot read plainly fall back to the line path, which names the bad line."""

from pathlib import Path

import duckdb
import pytest

import parsers.bulk as engine
import parsers.sar as sar
from app.importer import import_file
from app.workspace import Workspace
from parsers.base import ImportOptions
from tests.conftest import CORPUS

FILES = sorted(p for folder in ("sar", "locales", "clock", "plan") for p in (CORPUS / folder).iterdir()
               if p.is_file() and ("sar" in p.name or "sadf" in p.name) and p.suffix not in (".py", ".sh"))
# when the import ran, not what it stored
VOLATILE = {"runs": ["imported_at"], "workspace_info": None, "import_log": None}


def _import(monkeypatch, path: Path, db: Path, bulk: bool) -> str:
    monkeypatch.setattr(sar, "BULK", bulk)
    ws = Workspace(db)
    try:
        r = import_file(ws, str(path), ImportOptions())
    finally:
        ws.close()
    return r.status if r.status == "imported" else f"{r.status}: {r.error}"


def test_the_corpus_has_sar_and_sadf_files():
    names = [p.name for p in FILES]
    assert len([n for n in names if "sadf-d" in n]) >= 3
    assert len(names) >= 60


@pytest.mark.parametrize("chunk", [None, 997], ids=["chunks", "small-chunks"])
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_bulk_and_line_paths_store_the_same_rows(monkeypatch, tmp_path, path, chunk):
    """Chunks of 997 bytes cut samples, and lines, in two: a sample read in bulk goes on in the next chunk."""
    if chunk:
        monkeypatch.setattr(engine, "CHUNK_BYTES", chunk)
    _same(monkeypatch, tmp_path, path)


def _same(monkeypatch, tmp_path: Path, path: Path) -> str:
    """Imports ``path`` by both paths; the same outcome, and the same rows in every table."""
    line, bulk = tmp_path / "line.duckdb", tmp_path / "bulk.duckdb"
    outcome = _import(monkeypatch, path, line, False)
    assert outcome == _import(monkeypatch, path, bulk, True)
    con = duckdb.connect()
    con.execute(f"ATTACH '{line}' AS a (READ_ONLY); ATTACH '{bulk}' AS b (READ_ONLY)")
    tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'a'").fetchall()]
    assert "iostat_samples" in tables
    compared = 0
    for t in tables:
        if t in VOLATILE and VOLATILE[t] is None:
            continue
        have = {c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() WHERE database_name = 'a' "
                                          "AND table_name = ?", [t]).fetchall()}
        drop = [c for c in VOLATILE.get(t) or [] if c in have]
        cols = f"* EXCLUDE ({', '.join(drop)})" if drop else "*"
        for x, y in (("a", "b"), ("b", "a")):
            extra = con.execute(f"SELECT count(*) FROM (SELECT {cols} FROM {x}.{t} EXCEPT ALL "
                                f"SELECT {cols} FROM {y}.{t})").fetchone()
            assert extra == (0,), f"{t}: {extra[0] if extra else '?'} rows in {x} only"
        compared += con.execute(f"SELECT count(*) FROM a.{t}").fetchone()[0]
    con.close()
    assert compared > 0 or not outcome.startswith("imported")
    return outcome


SADF = CORPUS / "sar" / "vm_sysstat-12.6.1_sadf-d_b-d-p.txt"  # line 19: a device row of the first disk report
ROW = "vm;2;2026-11-23 22:50:11 UTC;vda;888.00;3732.00;3200.00;0.00;7.81;0.38;0.43;3.00"
# what a device row can hold that the bulk path leaves to the line path: (row 19 becomes, "imported" or the start
# of the error, which names line 19)
ODD = {
    "not-a-number": (ROW.replace("3732.00", "abc"), "rkB/s 'abc' is not a number"),
    "negative": (ROW.replace("3732.00", "-1.00"), "rkB/s '-1.00' is not a value sar prints"),
    "decimal-comma": (ROW.replace("3732.00", "3732,00"), "imported"),
    "not-available": (ROW.replace("3732.00", "N/A"), "imported"),
    "human-unit": (ROW.replace("3732.00", "3.6M"), "imported"),
    "empty-field": (ROW.replace("3732.00", ""), "rkB/s '' is not a number"),
    "device-twice": (ROW.replace(";vda;", ";loop3;"), "device 'loop3' twice"),
    "time-back": (ROW.replace("22:50:11", "22:50:07"), "the time goes back"),
    "bad-stamp": (ROW.replace("2026-11-23 22:50:11 UTC", "23.11.2026"), "time stamp"),
    "short": (ROW.rsplit(";", 1)[0], "expected 9 fields"),
    "long": (ROW + ";1.00", "expected 9 fields"),
    "restart": ("vm;-1;2026-11-23 22:50:11 UTC;LINUX-RESTART\t(2 CPU)\n" + ROW, "imported"),
    "comment": ("vm;-1;2026-11-23 22:50:11 UTC;COM hello\n" + ROW, "imported"),
    "other-host": (ROW.replace("vm;", "vm2;", 1), "imported"),
    "blank-line": ("\n" + ROW, "imported"),
    "blanks-around": ("  " + ROW + " ", "imported"),
    "windows-1252": (ROW.replace(";vda;", ";vd\xe9;"), "imported"),
    "interval-zero": (ROW.replace("vm;2;", "vm;0;"), "imported"),
}


@pytest.mark.parametrize("case", sorted(ODD))
def test_rows_the_bulk_path_cannot_read_go_the_line_path_way(monkeypatch, tmp_path, case):
    row, outcome = ODD[case]
    lines = SADF.read_bytes().split(b"\n")
    assert lines[18].decode() == ROW
    lines[18] = row.encode("cp1252")
    path = tmp_path / "sadf.txt"
    path.write_bytes(b"\n".join(lines))
    got = _same(monkeypatch, tmp_path, path)
    assert got == "imported" if outcome == "imported" else f"sadf.txt:19: {outcome}" in got, got


def test_line_endings_of_windows_give_the_same_rows(monkeypatch, tmp_path):
    path = tmp_path / "sadf.txt"
    path.write_bytes(SADF.read_bytes().replace(b"\n", b"\r\n"))
    assert _same(monkeypatch, tmp_path, path) == "imported"


TEXT = CORPUS / "locales" / "C_sar-d-p_day.txt"  # line 6: a device row of the first block, after its header
TEXT_ROW = "10:15:01       691.00   1444.00   9736.00     40.00     16.24      0.15      0.18      8.00 vda"
TEXT_ODD = {
    "not-a-number": (TEXT_ROW.replace("1444.00", "abc"), "rkB/s 'abc' is not a number"),
    "decimal-comma": (TEXT_ROW.replace("1444.00", "1444,00"), "imported"),
    "human-unit": (TEXT_ROW.replace("1444.00", "1.4M"), "imported"),
    "device-twice": (TEXT_ROW.replace(" vda", " loop1"), "device 'loop1' twice"),
    "time-back": (TEXT_ROW.replace("10:15:01", "10:14:59"), "the time goes back"),
    "short": (TEXT_ROW.rsplit(" ", 1)[0], "expected 9 fields"),
    "twelve-hour": (TEXT_ROW.replace("10:15:01", "10:15:01 AM"), "expected 9 fields"),
    "no-time": ("          " + TEXT_ROW[8:], "imported"),
    "restart": ("10:15:01       LINUX RESTART\t(2 CPU)\n" + TEXT_ROW, "imported"),
    "tabs": (TEXT_ROW.replace("   1444.00", "\t1444.00"), "imported"),
}


@pytest.mark.parametrize("case", sorted(TEXT_ODD))
def test_text_rows_the_bulk_path_cannot_read_go_the_line_path_way(monkeypatch, tmp_path, case):
    row, outcome = TEXT_ODD[case]
    lines = TEXT.read_bytes().split(b"\n")
    assert lines[5].decode() == TEXT_ROW
    lines[5] = row.encode()
    path = tmp_path / "sar.txt"
    path.write_bytes(b"\n".join(lines))
    got = _same(monkeypatch, tmp_path, path)
    assert got == "imported" if outcome == "imported" else f"sar.txt:6: {outcome}" in got, got
