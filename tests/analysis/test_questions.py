"""Questions (app.analysis.questions, `main.py question`): stored, ordered, answered with the numbers of the
existing analyses, on the repository's sample captures (numbers in sample_traces/README.md)."""

import json
import re

import pytest

from app.analysis import questions as Q
from app.analysis.cap import cap_report
from app.analysis.compare import compare_runs
from app.analysis.histograms import latency_share
from app.analysis.numbers import fmt_pct, fmt_span, fmt_value
from app.analysis.sizing import measured_inputs, response_time_check, size_vdi
from app.analysis.sizing_presets import load_presets
from app.analysis.storm import storm_report
from app.analysis.text import AnalysisError, Note
from app.cli import main as cli_main
from app.importer import import_file
from app.workspace import Workspace
from parsers.base import ImportOptions
from tests.conftest import ROOT, SAMPLES

VSCSI = ROOT / "tests" / "fixtures" / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"  # PROVENANCE.md
CAPPED, FAST, SLOW, FIO, VS = 1, 2, 3, 4, 5


def _import_samples(path):
    with Workspace(path) as ws:
        for f, opts in ((SAMPLES / "capped_200iops_iostat-d.txt", ImportOptions(interval_s=2)),
                        (SAMPLES / "storm_fast_iostat-xt.txt", ImportOptions(first_report="interval")),
                        (SAMPLES / "storm_slow_iostat-xt.txt", ImportOptions(first_report="interval")),
                        (SAMPLES / "fio_randrw_jsonplus.json", ImportOptions()),
                        (VSCSI, ImportOptions())):
            r = import_file(ws, str(f), opts)
            assert r.status == "imported", r.error
        assert [r.run_id for r in ws.runs()] == [CAPPED, FAST, SLOW, FIO, VS]


@pytest.fixture(scope="module")
def samples_path(tmp_path_factory):
    p = tmp_path_factory.mktemp("questions") / "samples.duckdb"
    _import_samples(p)
    return p


@pytest.fixture(scope="module")
def sws(samples_path):
    """The samples workspace, read-only: answers only (CRUD tests use their own copy)."""
    with Workspace(samples_path, read_only=True) as ws:
        yield ws


@pytest.fixture
def rw(tmp_path):
    p = tmp_path / "rw.duckdb"
    _import_samples(p)
    return p


# ---- answers carry the analyses' numbers --------------------------------------------------------------
def test_cap_not_held_on_the_200_iops_capture(sws):
    a = Q.answer(sws, Q.CapQuestion(run_id=CAPPED, iops_cap=200))
    res = cap_report(sws, CAPPED, iops_cap=200)
    assert a.verdict == "not held"
    assert res.verdict == "NOT held"
    f = a.figures[0]
    assert f.value == res.worst_window_iops == pytest.approx(65715.7, abs=0.05)
    assert f.limit == res.checks[0].limit == 210
    assert f.unit == "IOPS"
    assert f.text == "worst 10 s window 65,716 IOPS vs cap 200 IOPS + 5 % = 210 IOPS" == a.number
    c = res.checks[0]
    assert f"{c.windows_over} of the {c.windows_judged} windows of 10 s" in a.reason
    assert "median interval of 201 IOPS" in a.reason
    assert "plateau" not in a.reason.lower()  # the plateau is the storm's figure, not the cap check's
    assert res.plateau_iops == 201
    ev = a.evidence
    assert ev.run_ids == [CAPPED]
    assert ev.results[0].as_dict() == res.as_dict()
    ww = res.worst_window
    assert {"run_id": CAPPED, "t_start_s": ww["t_start_s"], "t_end_s": ww["t_end_s"],
            "label": "worst 10 s window (IOPS)"} in ev.ranges
    assert [ln["value"] for ln in ev.lines] == [200, 210]
    assert ev.chart["log"] is True
    assert ev.chart["column"] == "iops"
    assert ev.chart["stepped"] is True


def test_cap_held_and_not_reached_and_not_capped(sws):
    a = Q.answer(sws, Q.CapQuestion(run_id=CAPPED, iops_cap=66000))  # worst 65,715.7 within 69,300, above 62,700
    assert a.verdict == "held"
    assert cap_report(sws, CAPPED, iops_cap=66000).verdict == "held"
    assert a.reason.startswith("Every 10 s window of capped_200iops_iostat-d averaged at or below 69,300 IOPS")
    a = Q.answer(sws, Q.CapQuestion(run_id=FAST, iops_cap=2000))
    assert a.verdict == "held"
    assert "never reached" in a.reason
    assert "1,900 IOPS" in a.reason
    assert cap_report(sws, FAST, iops_cap=2000).verdict == "held (cap not reached)"
    a = Q.answer(sws, Q.CapQuestion(run_id=SLOW, iops_cap=200, tolerance_pct=10, window_s=20))
    res = cap_report(sws, SLOW, iops_cap=200, tolerance_pct=10, window_s=20)
    assert a.verdict == "not held"
    assert res.verdict == "not capped"
    assert a.figures[0].value == res.worst_window_iops
    assert a.figures[0].limit == pytest.approx(220)
    assert "worst 20 s window" in a.number
    assert "+ 10 % = 220 IOPS" in a.number


def test_cap_on_bandwidth_and_iops_decides_by_the_worse(sws):
    a = Q.answer(sws, Q.CapQuestion(run_id=CAPPED, iops_cap=66000, bw_cap_kbs=1e9))
    res = cap_report(sws, CAPPED, iops_cap=66000, bw_cap_kbs=1e9)
    assert [c.verdict for c in res.checks] == ["held", "held (cap not reached)"]
    # the less conclusive check comes first: the bandwidth cap was never reached
    assert a.verdict == "held"
    assert [f.unit for f in a.figures] == ["kB/s", "IOPS"]
    assert "never reached" in a.reason
    assert a.figures[0].value == res.checks[1].worst_window["average"]
    assert a.figures[1].value == res.checks[0].worst_window["average"]


def test_storm_profile_matches_storm_report(sws):
    a = Q.answer(sws, Q.StormQuestion(run_id=FAST))
    m = storm_report(sws, FAST).run
    assert a.verdict == "information"
    assert (a.figures[0].value, m.peak_iops, m.time_to_peak_s, m.settle_time_s) == (1212, 1212, 16, 28)
    assert a.figures[1].value == m.plateau_iops
    assert a.number == f"peak 1,212 IOPS at 20–21 s; plateau {fmt_value(m.plateau_iops, 'IOPS')}"
    assert "16 s after the first activity" in a.reason
    assert "settled 28 s after the peak" in a.reason
    rep = a.evidence.results[0]
    assert rep.phase_source == "detected"
    assert len(a.evidence.ranges) == 1 + len(rep.phases)


def test_compare_matches_compare_runs(sws):
    a = Q.answer(sws, Q.CompareQuestion(run_ids=[SLOW, FAST], phases="none"))
    cmp = compare_runs(sws, [SLOW, FAST], phases="none")
    peak = next(r for r in cmp.metrics if r["metric"] == "peak_iops")
    assert [f.value for f in a.figures] == peak["values"] == [809, 1212]
    # storm A against B, the whole question: which higher and by how much, which sooner and by how much
    # (time to peak: 16 s and 61 s, the storm reports' own figures)
    ttp = next(r for r in cmp.metrics if r["metric"] == "time_to_peak_s")["values"]
    assert ttp == [61, 16]
    assert a.reason == ("storm_fast_iostat-xt peaks higher than storm_slow_iostat-xt: 1,212 IOPS against 809 IOPS, "
                        "1.50 times as high (403 IOPS more), and sooner: 16 s after its first activity against 61 s "
                        "(45 s sooner).")
    a = Q.answer(sws, Q.CompareQuestion(run_ids=[SLOW, FAST, CAPPED], metric="mean_iops", align="activity"))
    mean = next(r for r in compare_runs(sws, [SLOW, FAST, CAPPED]).metrics if r["metric"] == "mean_iops")
    assert [f.value for f in a.figures] == mean["values"]
    assert a.evidence.chart["align"] == "activity"
    assert a.evidence.chart["column"] == "iops"
    assert "ranges from" in a.reason


def test_evidence_series_for_the_charts(sws):
    a = Q.answer(sws, Q.CompareQuestion(run_ids=[SLOW, FAST, FIO], align="activity", phases="none"))
    slow, fast = Q.evidence_series(sws, a)  # the fio run has no series
    assert (slow.run_id, fast.run_id) == (SLOW, FAST)
    # fio's startdelay: activity from second 5
    assert fast.align["mode"] == "activity"
    assert fast.offset_s == 5
    cap = Q.answer(sws, Q.CapQuestion(run_id=CAPPED, iops_cap=200))
    [s] = Q.evidence_series(sws, cap)
    assert s.col("iops").max() == 112375.5
    assert s.interval_s == 2


def test_response_time_per_vm_disk_from_the_histograms(sws):
    a = Q.answer(sws, Q.ResponseTimeQuestion(run_ids=[VS, FIO], threshold_ms=50, goal_pct=95))
    vs = latency_share(sws, VS, 50.0)
    f0 = latency_share(sws, FIO, 50.0, device="randrw #0")
    assert a.verdict == "met"
    assert len(a.figures) == 3
    worst = a.figures[0]  # the lowest share comes first: it decides
    assert worst.value == vs.share == response_time_check(sws, VS, threshold_ms=50, goal_pct=95)["share"]
    assert worst.text == ("vscsiStats-helper_sample_vscsiStats, VM 2099979, disk scsi0:0: "
                          f"{vs.share * 100:.2f} % (exact) within 50 ms vs goal 95 %")
    assert a.figures[1].value == f0.share
    assert a.evidence.devices == {VS: vs.devices, FIO: ["randrw #0", "randrw #1"]}
    a = Q.answer(sws, Q.ResponseTimeQuestion(run_ids=[VS], threshold_ms=50, goal_pct=99.9))
    assert a.verdict == "not met"
    assert f"only {vs.share * 100:.2f} %" in a.reason
    a = Q.answer(sws, Q.ResponseTimeQuestion(run_ids=[FIO], disks=["randrw #1"], goal_pct=95))
    assert len(a.figures) == 1
    assert a.figures[0].value == latency_share(sws, FIO, 50.0, device="randrw #1").share
    with pytest.raises(AnalysisError, match="none of the disks"):
        Q.answer(sws, Q.ResponseTimeQuestion(run_ids=[FIO], disks=["nope"]))


def test_response_time_on_iostat_is_interval_level(sws):
    a = Q.answer(sws, Q.ResponseTimeQuestion(run_ids=[FAST], goal_pct=95))
    rt = response_time_check(sws, FAST, threshold_ms=50, goal_pct=95)
    assert a.figures[0].value == rt["share"]
    assert a.verdict == ("met" if rt["passed"] else "not met")
    assert any("interval-level" in n for n in a.notes)


def test_sizing_range_answers_both_ends_18_and_54(sws):
    q = Q.SizingQuestion(users=100, iops_per_user=8, iops_per_user_storm=25, read_pct=40, raid="10",
                         disk_type="sata7k")
    a = Q.answer(sws, q)
    direct = [size_vdi(100, x, read_pct=40, raid="10", disk_type="sata7k") for x in (8, 25)]
    assert [f.value for f in a.figures] == [d.disks_layout for d in direct] == [18, 54]
    assert [r.disks_exact for r in a.evidence.results] == [d.disks_exact for d in direct]
    # 8..25 is the sizing method's light and heavy user (ETRI), not a steady load and its storm (issue 26)
    assert a.number == "light users (8 IOPS each): 18 disks; heavy users (25 IOPS each): 54 disks"
    assert a.reason == ("100 users need 18 disks at 8 IOPS per user (light users) and 54 disks at 25 IOPS per user "
                        "(heavy users), on RAID 10 with 7,200 rpm SATA / NL-SAS disks of 75 IOPS and 40 % reads.")
    assert a.verdict == "information"
    assert Q.describe(q) == "How many disks for 100 users at 8–25 IOPS per user?"
    wi = {(r["end"], r["raid"], r["disk_type"]): r["disks"] for r in a.evidence.tables["what_if"]}
    assert wi[("light users", "10", "sata7k")] == 18
    assert wi[("heavy users", "10", "sata7k")] == 54
    heavy = size_vdi(100, 25, read_pct=40, raid="5", disk_type="sas15k").disks_layout
    assert wi[("heavy users", "5", "sas15k")] == heavy
    pre = load_presets()
    assert len(wi) == 2 * len(pre["raid"]) * len(pre["disk_types"])
    one = Q.answer(sws, Q.SizingQuestion(users=100, iops_per_user=8))
    assert [f.value for f in one.figures] == [18]
    assert one.number == "8 IOPS per user: 18 disks"
    cap = Q.answer(sws, Q.SizingQuestion(users=100, iops_per_user=8, gb_per_user=50, disk_gb=100))
    assert cap.figures[0].value == size_vdi(100, 8, gb_per_user=50, disk_gb=100).disks == 100
    assert "capacity decides; 18 for the IOPS" in cap.reason


def test_sizing_measured_from_a_run(sws):
    a = Q.answer(sws, Q.SizingQuestion(users=100, measured_run=FAST, vms=10))
    m = measured_inputs(sws, FAST, 10)
    steady = size_vdi(100, storm_multiplier=1.0, measured=m)
    storm = size_vdi(100, measured=m)
    assert [f.value for f in a.figures] == [steady.disks_layout, storm.disks_layout]
    assert a.evidence.results[-1] == m
    assert a.evidence.run_ids == [FAST]
    assert f"steady {fmt_value(m['steady_iops'], 'IOPS')}, peak 1,212 IOPS" in a.reason


# ---- storage -------------------------------------------------------------------------------------------
def test_crud_and_order_persist_across_reopening(rw):
    with Workspace(rw) as ws:
        a = Q.add_question(ws, Q.CapQuestion(run_id=CAPPED, iops_cap=200))
        b = Q.add_question(ws, Q.SizingQuestion(users=100, iops_per_user=8, iops_per_user_storm=25),
                           title="Disks for the pilot")
        c = Q.add_question(ws, Q.StormQuestion(run_id=FAST), position=1)
        assert [(s.question_id, s.position) for s in Q.list_questions(ws)] == [(c.question_id, 1),
                                                                             (a.question_id, 2), (b.question_id, 3)]
        Q.move_question(ws, c.question_id, 3)
        Q.edit_question(ws, a.question_id, {"tolerance_pct": 10, "window_s": 20}, title="Cap of the pilot")
        Q.edit_question(ws, b.question_id, {"iops_per_user_storm": None}, title="")
    with Workspace(rw, read_only=True) as ws:
        got = Q.list_questions(ws)
        assert [s.question_id for s in got] == [a.question_id, b.question_id, c.question_id]
        assert [s.position for s in got] == [1, 2, 3]
        assert got[0].title == "Cap of the pilot"
        assert got[0].question == Q.CapQuestion(
            run_id=CAPPED, iops_cap=200, tolerance_pct=10, window_s=20)
        assert got[1].title is None
        assert got[1].heading() == "How many disks for 100 users at 8 IOPS per user?"
        assert got[1].question.iops_per_user_storm is None
        assert got[2].kind == "storm_profile"
        assert got[2].created_at is not None
        row = ws.con.execute("SELECT kind, params FROM questions WHERE question_id = ?", [a.question_id]).fetchall()
        assert row[0][0] == "cap"
        assert json.loads(row[0][1])["tolerance_pct"] == 10
    with Workspace(rw) as ws:
        Q.delete_question(ws, a.question_id)
        assert [(s.question_id, s.position) for s in Q.list_questions(ws)] == [(b.question_id, 1),
                                                                             (c.question_id, 2)]
        with pytest.raises(Q.QuestionError, match=f"there is no question {a.question_id}"):
            Q.get_question(ws, a.question_id)
        with pytest.raises(Q.QuestionError, match="between 1 and 2, not 3") as e:
            Q.move_question(ws, b.question_id, 3)
        assert e.value.field == "position"
        assert [s.question_id for s in Q.list_questions(ws)] == [b.question_id, c.question_id]  # nothing moved


def test_a_failed_edit_changes_nothing(rw):
    with Workspace(rw) as ws:
        sq = Q.add_question(ws, Q.CapQuestion(run_id=CAPPED, iops_cap=200))
        with pytest.raises(Q.QuestionError) as e:
            Q.edit_question(ws, sq.question_id, {"window_s": 5}, title="never stored")
        assert e.value.field == "window_s"
        assert str(e.value) == "Window: must be 10 s or more, not 5"
        assert Q.get_question(ws, sq.question_id) == sq


def test_workspace_without_questions_table_lists_none(tmp_path):
    import duckdb

    p = tmp_path / "old.duckdb"
    duckdb.connect(str(p)).execute("CREATE TABLE runs (run_id INTEGER)").close()
    with Workspace(p, read_only=True) as ws:
        assert Q.list_questions(ws) == []


@pytest.mark.parametrize(("kind", "params", "field", "words"), [
    ("cap", {"run_id": 1}, "iops_cap", "IOPS cap: give an IOPS cap, a bandwidth cap or both"),
    ("cap", {"run_id": 1, "iops_cap": -3}, "iops_cap", "IOPS cap: must be more than 0 IOPS, not -3"),
    ("cap", {"run_id": 1, "iops_cap": 200, "tolerance_pct": -5}, "tolerance_pct",
     "Tolerance: must be 0 % or more, not -5"),
    ("cap", {"run_id": 1, "iops_cap": 200, "window_s": 2}, "window_s", "Window: must be 10 s or more, not 2"),
    ("cap", {"run_id": 1, "iops_cap": 200, "op": "both"}, "op", "Reads or writes: one of total, read, write, not "
     "'both'"),
    ("cap", {"run_id": "x", "iops_cap": 200}, "run_id", "Run: a whole number expected, not 'x'"),
    ("cap", {"run_id": 1, "iops_cap": 200, "colour": "red"}, "colour", None),
    ("compare", {"run_ids": [1]}, "run_ids", "Runs: give at least 2 runs"),
    ("compare", {"run_ids": [1, 1]}, "run_ids", "Runs: a run is named twice"),
    ("compare", {"run_ids": [1, 2], "metric": "best"}, "metric", None),
    ("compare", {"run_ids": [1, 2], "align": "sideways"}, "align", None),
    ("compare", {"run_ids": [1, 2], "align": "offset:x"}, "align", None),
    ("response_time", {"run_ids": [5], "goal_pct": 120}, "goal_pct", "Goal: must be 100 % or less, not 120"),
    ("response_time", {"run_ids": [5], "threshold_ms": 0}, "threshold_ms",
     "Response-time threshold: must be more than 0 ms, not 0"),
    ("sizing", {"users": 0, "iops_per_user": 8}, "users", "Users: must be 1 or more, not 0"),
    ("sizing", {"users": 100}, "iops_per_user", None),
    ("sizing", {"users": 100, "iops_per_user": 25, "iops_per_user_storm": 8}, "iops_per_user_storm",
     "IOPS per user of heavy users: the heavy users' figure (8) must be above the light users' 25 IOPS per user"),
    ("sizing", {"users": 100, "iops_per_user": 8, "iops_per_user_storm": 25, "storm_multiplier": 3},
     "storm_multiplier", None),
    ("sizing", {"users": 100, "measured_run": 2}, "vms", None),
    ("sizing", {"users": 100, "iops_per_user": 8, "raid": "7"}, "raid", None),
    ("sizing", {"users": 100, "iops_per_user": 8, "disk_type": "floppy"}, "disk_type", None),
    ("sizing", {"users": 100, "iops_per_user": 8, "gb_per_user": 40}, "disk_gb", None),
    ("sizing", {"users": 100, "iops_per_user": 8, "read_pct": 140}, "read_pct",
     "Reads: must be 100 % or less, not 140"),
    ("storm_profile", {"run_id": 1, "phases": "some"}, "phases", None),
    ("weather", {}, "kind", "Question type: one of compare runs, cap check, response time, sizing, storm profile, "
                            "latency source, where the time goes, load per VM, load limit, storm replay, library "
                            "comparison, not 'weather'"),
])
def test_bad_parameters_name_the_field(kind, params, field, words):
    with pytest.raises(Q.QuestionError) as e:
        Q.question_from_params(kind, params)
    assert e.value.field == field
    if words is not None:
        assert str(e.value) == words
    assert str(e.value).split(":")[0] == Q.FIELD_LABELS.get(field, field)


def test_questions_on_missing_runs(rw):
    with Workspace(rw) as ws:
        with pytest.raises(Q.QuestionError, match="there is no run 42") as e:
            Q.add_question(ws, Q.StormQuestion(run_id=42))
        assert e.value.field == "run_id"
        assert e.value.missing
        sq = Q.add_question(ws, Q.StormQuestion(run_id=CAPPED))
        Q.add_question(ws, Q.ResponseTimeQuestion(run_ids=[CAPPED]))  # plain iostat -d: no await
        ws.delete_run(CAPPED)
        (s1, a1), (_s2, a2) = Q.answer_all(ws)
    assert s1.question_id == sq.question_id
    assert a1.verdict == "information"
    assert a1.figures == []
    assert a1.error == "there is no run 1 in this workspace (was it deleted?)"
    assert a1.reason == "This question cannot be answered from the data: " + a1.error


def test_a_fix_in_an_unanswerable_question_is_named_per_front_end(tmp_path):
    with Workspace(tmp_path / "f.duckdb") as ws:
        assert import_file(ws, str(SAMPLES / "fio_randread_lat_limited.json"), ImportOptions()).status == "imported"
        Q.add_question(ws, Q.ResponseTimeQuestion(run_ids=[1], goal_pct=95))
        [(_sq, a)] = Q.answer_all(ws)
    assert isinstance(a.reason, Note)
    assert "json+ output format" in a.reason
    assert "--output-format=json+" in a.reason.render("cli")
    assert "--" not in a.reason


IDENT = re.compile(r"\b[a-z]+_[a-z_]+\b|--[a-z]|main\.py|\.md\b")


def test_words_are_for_customers(sws):
    names = {CAPPED: "capped disk", FAST: "fast storm", SLOW: "slow storm", FIO: "fio mix", VS: "VM1"}
    qs = [Q.CapQuestion(run_id=CAPPED, iops_cap=200), Q.CapQuestion(run_id=FAST, iops_cap=2000),
          Q.CapQuestion(run_id=SLOW, iops_cap=200), Q.StormQuestion(run_id=SLOW),
          Q.CompareQuestion(run_ids=[SLOW, FAST, CAPPED]), Q.ResponseTimeQuestion(run_ids=[VS, FIO], goal_pct=99.9),
          Q.SizingQuestion(users=100, iops_per_user=8, iops_per_user_storm=25),
          Q.SizingQuestion(users=100, measured_run=FAST, vms=10)]
    for q in qs:
        a = Q.answer(sws, q, names)
        for text in [a.title, a.reason, a.number, *(f.label for f in a.figures)]:
            assert not IDENT.search(str(text)), (q, text)
        assert not re.search(r"\brun \d", a.title + a.reason)  # the names given, not run numbers
        json.dumps(a.as_dict(), default=str)


def test_number_formats():
    assert [fmt_value(v, "IOPS") for v in (1212, 203.44, 65715.66, 0.25)] == [
        "1,212 IOPS", "203.4 IOPS", "65,716 IOPS", "0.2 IOPS"]
    assert fmt_value(50, "ms") == "50 ms"
    assert fmt_value(0.347, "ms") == "0.35 ms"
    assert fmt_value(2.5, "s") == "2.5 s"
    assert fmt_span(20, 21) == "20–21 s"
    assert fmt_pct(0.98876) == "98.88 %"


# ---- the command line -----------------------------------------------------------------------------------
def cli(capsys, *args):
    try:
        rc = cli_main(list(args))
    except SystemExit as e:  # argparse: a usage error
        rc = e.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_round_trip(rw, capsys):
    w = ["-w", str(rw)]
    assert cli(capsys, "question", "list", *w)[1].startswith("no questions")
    rc, out, _ = cli(capsys, "question", "add", "cap", "--run", "1", "--cap-iops", "200", *w)
    assert rc == 0
    assert out == "added question 1 at position 1: Did the 200 IOPS cap hold on capped_200iops_iostat-d?\n"
    assert cli(capsys, "question", "add", "compare", "--runs", "3,2", "--phases", "none", *w)[0] == 0
    assert cli(capsys, "question", "add", "response-time", "--runs", "5", "--threshold-ms", "50", "--goal-pct", "95",
               *w)[0] == 0
    rc, out, _ = cli(capsys, "question", "add", "sizing", "--users", "100", "--iops-per-user", "8..25",
                     "--read-pct", "40", "--raid", "10", "--disk", "sata7k", "--json", *w)
    assert rc == 0
    assert json.loads(out)["params"]["iops_per_user_storm"] == 25
    assert cli(capsys, "question", "add", "storm", "--run", "2", "--position", "1", "--title", "Boot storm", *w)[0] == 0
    rc, out, _ = cli(capsys, "question", "list", "--json", *w)
    listed = json.loads(out)
    assert [(q["question_id"], q["kind"]) for q in listed] == [
        (5, "storm_profile"), (1, "cap"), (2, "compare"), (3, "response_time"), (4, "sizing")]
    assert listed[0]["heading"] == "Boot storm"
    assert listed[2]["params"]["run_ids"] == [3, 2]

    rc, out, _ = cli(capsys, "question", "answer", "--json", *w)
    assert rc == 0
    ans = {a["question_id"]: a for a in json.loads(out)}
    assert [ans[i]["verdict"] for i in (5, 1, 2, 3, 4)] == ["information", "not held", "information", "met",
                                                              "information"]
    assert [f["value"] for f in ans[4]["figures"]] == [18, 54]
    assert ans[1]["figures"][0]["value"] == pytest.approx(65715.7, abs=0.05)
    # the same numbers as the analysis command
    rc, out, _ = cli(capsys, "analyze", "cap", "--run", "1", "--iops-cap", "200", "--json", *w)
    capj = json.loads(out)
    assert ans[1]["evidence"]["results"][0]["worst_window_iops"] == capj["worst_window_iops"]
    assert ans[1]["evidence"]["results"][0]["checks"] == capj["checks"]
    rc, out, _ = cli(capsys, "question", "answer", "4", "1", *w)
    assert rc == 0
    assert out.splitlines()[0] == "5. [INFORMATION] How many disks for 100 users at 8–25 IOPS per user?  " \
                                              "(question 4)"
    assert "light users (8 IOPS each): 18 disks; heavy users (25 IOPS each): 54 disks" in out
    assert "[NOT HELD]" in out
    assert "note: capacity not sized (give --gb-per-user and --disk-gb)" in out

    rc, out, _ = cli(capsys, "question", "edit", "1", "--tolerance", "10", "--window", "20", "--title", "Pilot cap", *w)
    assert rc == 0
    assert out.startswith("question 1: Pilot cap")
    rc, out, _ = cli(capsys, "question", "move", "1", "--to", "5", *w)
    assert rc == 0
    assert out.splitlines()[-1] == "  5. [1] Pilot cap"
    rc, out, _ = cli(capsys, "question", "delete", "2", *w)
    assert rc == 0
    assert out.startswith("deleted question 2:")
    with Workspace(rw, read_only=True) as ws:
        got = Q.list_questions(ws)
    assert [(s.question_id, s.position) for s in got] == [(5, 1), (3, 2), (4, 3), (1, 4)]
    assert got[-1].question.tolerance_pct == 10
    assert got[-1].question.window_s == 20


def test_cli_errors_and_exit_codes(rw, capsys):
    w = ["-w", str(rw)]
    rc, _, err = cli(capsys, "question", "add", "cap", "--run", "1", "--cap-iops", "200", "--tolerance", "-5", *w)
    assert rc == 2
    assert err == "main.py question: error: --tolerance: must be 0 % or more, not -5\n"
    rc, _, err = cli(capsys, "question", "add", "sizing", "--users", "100", "--iops-per-user", "25..8", *w)
    assert rc == 2
    assert err.startswith("main.py question: error: --iops-per-user: the heavy users' figure (8)")
    rc, _, err = cli(capsys, "question", "add", "cap", "--run", "9", "--cap-iops", "200", *w)
    assert rc == 1
    assert err == "error: --run: there is no run 9 in this workspace\n"
    assert cli(capsys, "question", "add", "cap", *w)[0] == 2  # --run is required
    assert cli(capsys, "question", *w)[0] == 2
    assert cli(capsys, "question", "delete", "7", *w)[:3:2] == (1, "error: there is no question 7\n")
    assert cli(capsys, "question", "add", "storm", "--run", "1", *w)[0] == 0
    rc, _, err = cli(capsys, "question", "edit", "1", "--cap-iops", "5", *w)
    assert rc == 2
    assert err == "main.py question: error: --cap-iops: a storm question does not take it\n"
    rc, _, err = cli(capsys, "question", "move", "1", "--to", "4", *w)
    assert rc == 2
    assert "between 1 and 1, not 4" in err
    rc, out, err = cli(capsys, "question", "answer", "1", "8", *w)
    assert rc == 1
    assert "error: there is no question 8" in err
    assert "[INFORMATION] Storm profile" in out
    cli(capsys, "run", "1", "--delete", *w)
    rc, out, _ = cli(capsys, "question", "answer", *w)
    assert rc == 1
    assert "cannot be answered from the data: there is no run 1" in out


def test_response_time_of_reads_or_writes_only(sws):
    """The question judges the I/O it names: reads, writes or both (fio keeps them apart)."""
    from app.analysis.histograms import latency_share

    for op in ("read", "write"):
        a = Q.answer(sws, Q.ResponseTimeQuestion(run_ids=[FIO], disks=["randrw #1"], threshold_ms=0.1, goal_pct=50,
                                                 op=op))
        want = latency_share(sws, FIO, 0.1, op, "randrw #1")
        got = a.evidence.results[0]
        assert (got["op"], got["bounds"], got["ios"]) == (op, list(want.bounds), want.ios)
        assert f"of {op}s answered within 0.10 ms" in a.title
    total = Q.answer(sws, Q.ResponseTimeQuestion(run_ids=[FIO], disks=["randrw #1"], threshold_ms=0.1, goal_pct=50))
    r, w = (latency_share(sws, FIO, 0.1, op, "randrw #1").ios for op in ("read", "write"))
    assert total.evidence.results[0]["ios"] == r + w
    with pytest.raises(Q.QuestionError, match="Reads or writes"):
        Q.ResponseTimeQuestion(run_ids=[FIO], op="both").validate()
