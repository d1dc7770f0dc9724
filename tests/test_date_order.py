"""Dates that read both ways on the command line and in the import loop (issue 28): an option says how to read the
files that cannot decide themselves, `run ID --date-order` answers afterwards, what stays open is printed with both
readings, and a file of the same host and tool in the same drop decides for its neighbour."""

from __future__ import annotations

import json

import pytest

from app.importer import import_paths, open_questions
from app.workspace import Workspace
from parsers.base import ImportOptions
from tests.conftest import CORPUS
from tests.test_cli import run

LOCALES = CORPUS / "locales"
DAY = str(LOCALES / "en_GB_iostat-x-t_day.txt")  # 05/03/26 10:15:00 .. 10:15:03, nothing else: reads both ways
MIDNIGHT = str(LOCALES / "en_GB_iostat-x-t_midnight.txt")  # the same layout across midnight: decides day first


def _runs(ws_path) -> dict[str, tuple]:
    with Workspace(ws_path, read_only=True) as ws:
        rows = ws.con.execute("SELECT name, started_at, meta FROM runs").fetchall()
    return {name: (start, json.loads(meta)) for name, start, meta in rows}


def test_the_command_line_prints_both_readings_and_takes_the_answer(tmp_path):
    ws = tmp_path / "w.duckdb"
    p = run("import", DAY, "-w", str(ws))
    assert p.returncode == 0, p.stderr
    assert ("dates?     run 1 (en_GB_iostat-x-t_day.txt) reads both ways -- month/day/year: 2026-05-03 10:15:00 → "
            "2026-05-03 10:15:03; day/month/year: 2026-03-05 10:15:00 → 2026-03-05 10:15:03; stored month/day/year: "
            "say which with 'main.py run 1' --date-order month-first or --date-order day-first") in p.stdout
    assert "warning: the dates read both ways ('05/03/26': month/day/year or day/month/year)" in p.stdout
    start, meta = _runs(ws)["en_GB_iostat-x-t_day"]
    assert start.isoformat() == "2026-05-03T10:15:00"
    assert "date_reading" in meta
    p = run("run", "1", "--date-order", "day-first", "-w", str(ws))
    assert p.returncode == 0, p.stderr
    start, meta = _runs(ws)["en_GB_iostat-x-t_day"]
    assert start.isoformat() == "2026-03-05T10:15:00"
    assert meta["date_order"] == "day/month/year (set by the user: the file reads both ways)"
    p = run("run", "1", "--date-order", "month-first", "-w", str(ws))  # decided now: said, nothing changed
    assert p.returncode == 1
    assert "run 1's dates are not in question: they are read day/month/year (set by the user" in p.stderr


def test_the_import_option_reads_what_the_file_cannot_decide_and_nothing_else(tmp_path):
    ws = tmp_path / "w.duckdb"
    de = str(LOCALES / "de_DE_iostat-x-t_day.txt")  # 05.03.2026: dots are day first in every locale
    p = run("import", "--date-order", "month-first", DAY, de, "-w", str(ws))
    assert p.returncode == 0, p.stderr
    assert "dates?" not in p.stdout
    runs = _runs(ws)
    assert runs["en_GB_iostat-x-t_day"][0].isoformat() == "2026-05-03T10:15:00"
    assert runs["en_GB_iostat-x-t_day"][1]["date_order"] == "month/day/year (as the user said: the file reads both " \
                                                           "ways; 2-digit years read 2000-2068 and 1969-1999 (POSIX))"
    assert runs["de_DE_iostat-x-t_day"][0].isoformat() == "2026-03-05T10:15:00"  # its own dates decide


def test_a_neighbour_of_the_same_host_and_tool_in_the_drop_decides(tmp_path):
    notes: list[str] = []
    with Workspace(tmp_path / "w.duckdb") as ws:
        from app.importer import iter_import

        results = [s.result for s in iter_import(ws, [DAY, MIDNIGHT], ImportOptions(), notes=notes)]
        assert [r.status for r in results] == ["imported", "imported"]
        day = results[0].run_ids[0]
        assert notes == ["en_GB_iostat-x-t_day.txt: dates read day/month/year, like en_GB_iostat-x-t_midnight.txt, "
                         "of the same host and tool in the same drop, whose own dates decide it"]
        assert open_questions(ws, [day]) == [q for q in open_questions(ws, [day]) if q.what != "date_order"]
        assert ws.run(day).started_at.isoformat() == "2026-03-05T10:15:00"
        assert not any("{fix:date_order}" in w for w in ws.run(day).warnings)  # asked no more


def test_another_tool_or_a_disagreeing_neighbour_decides_nothing(tmp_path):
    with Workspace(tmp_path / "w.duckdb") as ws:
        sar = str(LOCALES / "en_US_sar-d-p_day.txt")  # the same host, but sar: another tool
        results = import_paths(ws, [DAY, sar], ImportOptions())
        asked = [q for q in open_questions(ws, results[0].run_ids) if q.what == "date_order"]
        assert [(q.file, [o for o, _f, _l in q.readings]) for q in asked] == [
            ("en_GB_iostat-x-t_day.txt", ["MDY", "DMY"])]


def test_the_workspace_refuses_an_order_a_run_cannot_take(tmp_path):
    with Workspace(tmp_path / "w.duckdb") as ws:
        [day] = import_paths(ws, [DAY], ImportOptions())[0].run_ids
        [de] = import_paths(ws, [str(LOCALES / "de_DE_iostat-x-t_day.txt")], ImportOptions())[0].run_ids
        with pytest.raises(ValueError, match="do not read year/month/day"):
            ws.set_date_order(day, "YMD")
        with pytest.raises(ValueError, match="not in question: they are read day/month/year \\(the file's words"):
            ws.set_date_order(de, "MDY")
        ws.set_date_order(de, "DMY")  # what the file decided: nothing to do
        with pytest.raises(ValueError, match="one of DMY, MDY, YMD, YDM"):
            ws.set_date_order(day, "day-first")
        ws.set_date_order(day, "MDY")  # the stored reading confirmed: times stay, the question is gone
        assert ws.run(day).started_at.isoformat() == "2026-05-03T10:15:00"
        assert "date_reading" not in ws.run(day).meta.as_dict()
        sums = ws.con.execute("SELECT min(ts)::VARCHAR FROM series_sums WHERE run_id = ?", [day]).fetchall()
        assert sums == [("2026-05-03 10:15:00",)]


def test_the_report_sources_say_how_each_run_s_dates_were_read(tmp_path):
    """The appendix's sources: an undecided run says its order is assumed; once the consultant says, who said."""
    import subprocess

    from reports import ReportOptions, build_report

    out = tmp_path / "r.pdf"

    def sources() -> str:
        text = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True, check=True).stdout
        return " ".join(text.split())

    with Workspace(tmp_path / "w.duckdb") as ws:
        [day] = import_paths(ws, [DAY], ImportOptions())[0].run_ids
        import_paths(ws, [str(LOCALES / "de_DE_iostat-x-t_day.txt")], ImportOptions())
        build_report(ws, ReportOptions(date="x", sections=["appendix"]), str(out))
        text = sources()
        assert "dates read month/day/year, ASSUMED: the file's dates read both ways and nobody said which" in text
        assert "dates read day/month/year (the file's words: dates like '05.03.2026 10:15:00'" in text
        ws.set_date_order(day, "DMY")
        build_report(ws, ReportOptions(date="x", sections=["appendix"]), str(out))
        text = sources()
        assert "ASSUMED" not in text
        assert "dates read day/month/year (set by the user: the file reads both ways)" in text
