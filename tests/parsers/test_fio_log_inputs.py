"""fio logs that are damaged, renamed or alone: an error naming the file and the line (and nothing of the file
stored), or what the importer could not know said in a warning. Every input is a real corpus log, changed here."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from parsers.registry import detect
from tests.conftest import CORPUS

FIO = CORPUS / "fio"
PER_IO = FIO / "vm_fio-3.33_randread-per-io_lat.1.log"
WINDOWED = FIO / "vm_fio-3.33_randrw-avg500_bw.1.log"
HIST = FIO / "vm_fio-3.33_randrw-avg500_clat_hist.1.log"


def _changed(src: Path, dst: Path, line: int, new: str | None) -> Path:
    """``src`` with its ``line`` (1-based) replaced by ``new`` (None: cut to its first half)."""
    lines = src.read_text().splitlines(keepends=True)
    old = lines[line - 1]
    lines[line - 1] = (old[: len(old) // 2] + "\n") if new is None else new + "\n"
    dst.write_text("".join(lines))
    return dst


def _failed(ws, path: Path) -> str:
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "failed", r.error
    for table in ("runs", "iostat_samples", "histograms", "histogram_stats"):
        assert ws.con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] == 0, table
    return r.error


@pytest.mark.parametrize(("src", "line", "new", "says"), [
    (PER_IO, 300, None, f"{PER_IO.name}:300: 4 fields where the lines before have 6"),
    (PER_IO, 5, "20, 270000, 0, 4096, 12288, 0x00zz", f"{PER_IO.name}:5: field 6 '0x00zz' is not a whole number"),
    (PER_IO, 7, "30, 270000, 7, 4096, 12288, 0x0000", f"{PER_IO.name}:7: direction 7 is not 0 (read), 1 (write)"),
    (PER_IO, 9, "40, 270000, 0, 0, 0, 0x0000", f"{PER_IO.name}:9: block size 0, but the lines before are one I/O"),
    (WINDOWED, 4, "1000, -5, 1, 0, 0", f"{WINDOWED.name}:4: value -5 is negative"),
    (HIST, 6, None, f"{HIST.name}:6: "),
])
def test_a_damaged_log_names_its_line_and_nothing_lands(ws, tmp_path, src, line, new, says):
    path = _changed(src, tmp_path / src.name, line, new)
    assert says in _failed(ws, path)


def test_a_histogram_log_with_a_broken_bin_names_the_line_and_the_bin(ws, tmp_path):
    first = HIST.read_text().splitlines()[2].split(", ")
    first[3 + 500] = "1x"
    path = _changed(HIST, tmp_path / HIST.name, 3, ", ".join(first))
    assert f"{HIST.name}:3: bin 500 '1x' is not a whole number" in _failed(ws, path)


def test_a_cut_histogram_log_line_is_a_bin_count_no_fio_writes(ws, tmp_path):
    path = _changed(HIST, tmp_path / HIST.name, 1, None)
    err = _failed(ws, path)
    assert f"{HIST.name}:1: " in err
    assert "bins per line: fio's histogram logs have 1856 (fio 2.99+) or 1216 (fio 2.x)" in err


def test_a_renamed_log_says_the_name_tells_which_log_it_is(ws, tmp_path):
    path = tmp_path / "latency.txt"
    shutil.copy(PER_IO, path)
    assert detect(str(path)).id == "fio-log"  # recognised by its lines
    err = _failed(ws, path)
    assert "the file name does not say which fio log this is" in err
    assert "keep fio's name" in err


def test_a_renamed_histogram_log_is_read_by_its_lines(ws, tmp_path):
    path = tmp_path / "histo.log"
    shutil.copy(HIST, path)
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    assert ws.con.execute("SELECT DISTINCT device FROM histograms").fetchall() == [("histo",)]


def test_trim_rows_of_a_histogram_log_are_left_out_with_a_warning(ws, tmp_path):
    lines = HIST.read_text().splitlines()
    row = lines[1].split(", ")
    row[1] = "2"  # the write row of the first window, made a trim row
    trimmed = sum(int(c) for c in row[3:])
    path = _changed(HIST, tmp_path / HIST.name, 2, ", ".join(row))
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    run = ws.run(r.run_ids[0])
    assert any(f"{trimmed:,} trim I/Os are not stored" in w for w in run.warnings)
    assert ws.con.execute("SELECT count(*) FROM histogram_stats WHERE sample_idx = 0").fetchall() == [(1,)]


@pytest.mark.parametrize(("json_name", "job", "unit", "ms"), [
    ("fio-plot_fio-3.1_randread-1-1.json", "random-read", "ns", 8.58586),
    ("pkb_fio-2.17-hist-run.json", "rand_16k_read_100%-io-depth-1-num-jobs-2", "µs", 8585.86),
])
def test_the_json_report_of_the_same_job_settles_the_latency_unit(ws, tmp_path, json_name, job, unit, ms):
    """A fio JSON report next to the log whose job has the log's name says which fio wrote it: fio 3.x logs
    nanoseconds, fio 2.x microseconds (here a real report of each era next to the fio-plot latency log, renamed)."""
    shutil.copy(FIO / json_name, tmp_path / json_name)
    path = tmp_path / f"{job}_lat.1.log"
    shutil.copy(FIO / "fio-plot_random-read-depth-1_lat.1.log", path)
    r = import_file(ws, str(path), ImportOptions())
    assert r.status == "imported", r.error
    run = ws.run(r.run_ids[0])
    assert not run.warnings  # not a guess
    meta = run.meta.as_dict()
    assert meta["latency_unit_in_file"] == unit
    assert json_name in meta["latency_unit_from"]
    first = ws.con.execute("SELECT w_await_ms FROM iostat_samples WHERE sample_idx = 0").fetchall()[0][0]
    assert first == pytest.approx(ms)
