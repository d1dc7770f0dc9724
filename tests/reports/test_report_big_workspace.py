"""A report of a workspace too large to tour whole -- thousands of runs, a thousand questions -- covers a bounded
part of it and says so: the busiest runs (by peak IOPS, one query over the stored sums), the first questions in
their order, the others counted in the "Not included" box and on page 1, never cut silently.

(The time it takes, up to 100,000 runs and 10,000 questions, is measured in benchmarks/bench_many_runs.py.)"""

from __future__ import annotations

import json

from app.cli.entry import main
from reports.content import MAX_QUESTIONS, MAX_RUNS
from tests.many_runs_util import many_questions_workspace, many_runs_workspace
from tests.reports.test_report import flat, pdf_text

BUSY = [1500, 1733, 1999]  # runs made busier than the others: the report must pick them


def busier(path, run_ids: list[int]) -> None:
    """Double every rate of ``run_ids``' reports (their stored sums recomputed as an import makes them)."""
    from app.series_sums import store_sums
    from app.workspace import Workspace

    ws = Workspace(path)
    try:
        ws.con.execute("BEGIN")
        ws.con.execute("UPDATE iostat_samples SET r_s = r_s * 2, w_s = w_s * 2, tps = tps * 2 "
                       "WHERE list_contains(?, run_id)", [run_ids])
        for rid in run_ids:
            store_sums(ws.con, rid)
        ws.con.execute("COMMIT")
    finally:
        ws.close()


def test_report_of_thousands_of_runs_covers_the_busiest_and_counts_the_others(tmp_path, capsys):
    """2,000 runs: the report covers MAX_RUNS of them, the busiest first, and names the others' count. Before: it
    toured every run (a section row, a chart line and a storm verdict each: minutes at 1,000 runs, 100,000 runs
    never finished)."""
    path = many_runs_workspace(tmp_path / "ws.duckdb", 2000)
    busier(path, BUSY)
    out = tmp_path / "r.pdf"
    assert main(["report", "-w", str(path), "-o", str(out), "--json", "--sections", "summary", "runs",
                 "appendix"]) == 0
    got = json.loads(capsys.readouterr().out)
    runs = got["values"]["runs"]
    assert len(runs) == MAX_RUNS
    assert set(BUSY) <= set(runs)  # the busiest are covered, then the others of the same peak in import order
    assert runs == sorted(runs)
    assert got["values"]["runs_not_covered"] == 2000 - MAX_RUNS
    said = f"covers the {MAX_RUNS:,} busiest of the 2,000 runs it was made for"
    assert any(said in v for v in got["verdicts"]), got["verdicts"]
    text = flat(pdf_text(out))
    assert "Not included" in text
    assert f"the other {2000 - MAX_RUNS:,} are not analysed here: iostat:" in text
    assert f"and {2000 - MAX_RUNS - 12:,} more" in text  # 12 named, the rest counted


def test_report_of_a_selection_of_thousands_of_runs_is_bounded_too(tmp_path, capsys):
    """The runs the report is made for (the window's selection, ``--runs``): the same bound, the busiest of them."""
    path = many_runs_workspace(tmp_path / "ws.duckdb", 2000)
    busier(path, [1999])
    picked = list(range(1000, 2000))
    assert main(["report", "-w", str(path), "-o", str(tmp_path / "r.pdf"), "--json", "--sections", "summary",
                 "--runs", *map(str, picked)]) == 0
    got = json.loads(capsys.readouterr().out)
    assert len(got["values"]["runs"]) == MAX_RUNS
    assert 1999 in got["values"]["runs"]
    assert set(got["values"]["runs"]) <= set(picked)
    assert got["values"]["runs_not_covered"] == 1000 - MAX_RUNS


def test_report_of_a_thousand_questions_answers_the_first_and_counts_the_others(tmp_path, capsys):
    """1,000 questions: the first MAX_QUESTIONS answered in their order, the others counted on the Answers page and
    in the box. Before: every question answered and given its section (10,000 questions: past 90 s, killed)."""
    path = many_questions_workspace(tmp_path / "ws.duckdb", 1000)
    out = tmp_path / "r.pdf"
    assert main(["report", "-w", str(path), "-o", str(out), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["values"]["questions_not_answered"] == 1000 - MAX_QUESTIONS
    text = flat(pdf_text(out))
    assert f"the answers to the first {MAX_QUESTIONS:,} of the 1,000 questions asked" in text
    assert f"1,000 questions are asked in this workspace: this report answers the first {MAX_QUESTIONS:,}" in text
    assert f"questions {MAX_QUESTIONS + 1:,} to 1,000 are not answered here" in text
    assert f"{MAX_QUESTIONS}. Storm profile" in text
    assert f"{MAX_QUESTIONS + 1}. Storm profile" not in text
