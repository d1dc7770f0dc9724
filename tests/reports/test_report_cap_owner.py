"""Which cap applies to a run is decided once (app.analysis.cap.which_cap): the report's cap section, its I/O chart's
cap line and the Iometer verdicts read the same cap for the same run.

Before, the report took the report's cap, else the run's tag, while the Iometer verdicts took a cap question before
the tag: a run tagged ``cap_iops=500`` with a cap question of 200 IOPS was drawn against a 500 IOPS line and judged
against 500 in the cap table, next to the question's answer judged against 200 (fails on the old code)."""

from __future__ import annotations

from app.analysis import questions as Q
from app.analysis.bench_results import cap_for_run
from app.analysis.cap import DEFAULT_TOLERANCE_PCT, Cap, which_cap
from app.importer import import_file
from app.run import Run
from parsers.base import ImportOptions
from reports import ReportOptions
from reports.content import collect
from tests.conftest import SAMPLES


def _run(**tags: str) -> Run:
    return Run(run_id=1, name="r", kind="iostat", format="iostat-text", source_path="/x", source_sha256="0",
               tags=tags)


def test_the_one_rule_given_then_question_then_tag():
    tagged = _run(cap_iops="500", cap_bw_kbs="9000")
    asked = [Cap(200.0, None, "write", 2.0, "question")]
    given = Cap(300.0, None, "total", 5.0, "given")
    assert which_cap(given, asked, tagged) == given
    assert which_cap(None, asked, tagged) == asked[0]
    # a given cap that names no figure gives only its tolerance
    assert which_cap(Cap(None, None, "total", 7.0), [], tagged) == Cap(500.0, 9000.0, "total", 7.0, "run tag")
    assert which_cap(None, [], tagged) == Cap(500.0, 9000.0, "total", DEFAULT_TOLERANCE_PCT, "run tag")
    # used whole: a given IOPS cap is not topped up with the tag's bandwidth cap (a cap nobody stated)
    assert which_cap(Cap(300.0), [], tagged) == Cap(300.0)
    assert which_cap(None, [], _run(cap_iops="a lot")) is None  # a tag that is no number is no cap
    assert which_cap(None, [], None) is None


def test_the_report_and_the_iometer_rule_read_the_same_cap(ws):
    r = import_file(ws, str(SAMPLES / "capped_200iops_iostat-d.txt"),
                    ImportOptions(interval_s=2, tags={"cap_iops": "500"}))
    assert r.status == "imported", r.error
    rid = r.run_ids[0]
    Q.add_question(ws, Q.CapQuestion(run_id=rid, iops_cap=200))
    applies = cap_for_run(ws, rid)
    assert applies == Cap(200.0, None, "total", DEFAULT_TOLERANCE_PCT, "question")

    content = collect(ws, ReportOptions(date="x", sections=["overlay", "cap"]))
    overlay = next(s for s in content.sections if s.key == "overlay")
    lines = [ref["value"] for c in overlay.charts for ref in c.data.get("refs", [])]
    assert lines == [200.0]  # old: [500.0], the tag's
    judged = [c["cap"] for c in content.values["cap"][rid]["checks"]]
    assert judged == [200.0]  # old: the tag's 500 first, then the question's 200
    cap_table = next(t for s in content.sections if s.key == "cap" for t in s.tables)
    assert [row[1] for row in cap_table.rows] == ["200 IOPS"]
    cap_section = next(s for s in content.sections if s.key == "cap")
    assert ("capped_200iops_iostat-d: the run's tag names a 500 IOPS cap; the cap question's cap is the one judged."
            in cap_section.paragraphs)  # the tag set aside is said, never silently dropped
