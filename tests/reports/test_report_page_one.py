"""Page 1 answers the engagement (issue 26): the heading, the answers with their deciding numbers, the results no
question asked for, then conclusions and recommendations drawn from them; verdict words with one meaning each;
the whole question answered (IOmark's every result row; which VM suffered and when); never a run compared with
itself. Read back from the PDF with pdftotext, as the customer reads it."""

import subprocess

import pytest

from app.analysis import questions as Q
from app.importer import import_file
from parsers.base import ImportOptions
from reports import ReportOptions, build_report
from tests.conftest import CORPUS, SAMPLES


def pages(path):
    out = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return [" ".join(p.split()) for p in out.split("\f")[:-1]]


def imp(ws, path, **kw):
    r = import_file(ws, str(path), ImportOptions(**kw))
    assert r.status == "imported", r.error
    return r.run_ids[0]


@pytest.fixture
def bench(ws):
    """An IOmark run (one data server: 3 %, two: 27 % within 50 ms), an Iometer run, a fio job and iostat watching
    its disk at the same time."""
    ws.ids = {"mark": imp(ws, SAMPLES / "example_iomark_results.csv"),
              "meter": imp(ws, SAMPLES / "example_iometer_results.csv"),
              "io": imp(ws, CORPUS / "crosscheck" / "loop0_randread-direct_iostat.txt"),
              "fio": imp(ws, CORPUS / "crosscheck" / "loop0_randread-direct_fio.json")}
    return ws


def test_verdict_words_mean_one_thing(ws, tmp_path):
    """A run with no cap in force is "Not capped" (was "Not held"), a run that never reached the cap "Not
    reached" (was "Held"), on page 1 and in the question's section."""
    fast = imp(ws, SAMPLES / "storm_fast_iostat-xt.txt", first_report="interval")
    Q.add_question(ws, Q.CapQuestion(run_id=fast, iops_cap=200))  # it runs at 600 IOPS: no 200 IOPS cap in force
    Q.add_question(ws, Q.CapQuestion(run_id=fast, iops_cap=100_000))  # never reached
    out = tmp_path / "r.pdf"
    content = build_report(ws, ReportOptions(date="x"), str(out))
    assert [a["verdict_words"] for a in content.values["answers"]] == ["Not capped", "Not reached"]
    p = pages(out)
    assert "Not capped · worst 10 s window" in p[0]
    assert "Not reached · worst 10 s window" in p[0]
    assert "Not held" not in " ".join(p)
    assert "Answer: Not capped" in " ".join(p[1:])
    concl = p[0][p[0].index("Conclusions and recommendations"):]
    assert "No 200 IOPS cap was in force on storm_fast_iostat-xt (it ran at a median of 600 IOPS)" in concl
    assert "storm_fast_iostat-xt never reached its 100,000 IOPS cap" in concl


def test_iomark_answer_gives_every_result_row(bench, tmp_path):
    """The response-time answer on an IOmark run names the second data server's row too (3.00 % -> 27.00 %), in
    IOmark's words (of responses), with one format for shares; the section does not say the answer a third time."""
    Q.add_question(bench, Q.ResponseTimeQuestion(run_ids=[bench.ids["mark"]], threshold_ms=50, goal_pct=80))
    out = tmp_path / "r.pdf"
    build_report(bench, ReportOptions(date="x", runs=list(bench.ids.values())), str(out))
    p = pages(out)
    assert ("example_iomark_results answered only 3.00 % of responses within 50 ms, below the goal of 80 %. IOmark's 2 "
            "result rows are separate measurements (one data server: 3.00 %; two data servers (the paper: \"about 27 "
            "%\"): 27.00 % of responses within 50 ms); 2 of 2 below the goal of 80 %.") in p[0]
    assert "(exact)" not in p[0]  # IOmark's own figure, not a histogram's
    text = " ".join(p)
    assert text.count("does not meet the goal (at least 80 % of responses within 50 ms)") == 0  # not again
    concl = p[0][p[0].index("Conclusions and recommendations"):]
    assert "Response times miss the goal of 80 % within 50 ms (as low as 3.00 %)" in concl


def test_results_no_question_asked_for_are_on_page_one_and_no_run_is_compared_with_itself(bench, tmp_path):
    """Without questions about them, the Iometer and IOmark answers are page 1's other results; a cross-check pair
    inside the report no longer appends every run of the workspace to the report (which compared the Iometer run
    with itself: "example_iometer_results against example_iometer_results ... × 1")."""
    out = tmp_path / "r.pdf"
    content = build_report(bench, ReportOptions(date="x", runs=list(bench.ids.values())), str(out))
    p = pages(out)
    other = p[0][p[0].index("Other results"):]
    assert other.startswith("Other results Iometer: example_iometer_results: 1 test; the highest rate 2,000.3 IOPS")
    assert "IOmark: example_iomark_results does not meet the goal" in other
    assert "Row by row (each its own measurement): one data server 3.00 %; two data servers" in other
    text = " ".join(p)
    assert "example_iometer_results against example_iometer_results" not in text
    assert content.values["runs"] == sorted(bench.ids.values())
    assert [f[0] for f in content.values["findings"]] == ["Iometer", "IOmark", "Cross-check"]
    assert "Cross-check: fio's own figures and iostat's agree within 10 % on 1 of 1 disk." in other


def test_the_cross_check_of_many_pairs_is_one_table_and_each_reason_is_said_once(ws, tmp_path):
    """Every fio/iostat pair of the corpus (four disks): one table with one row per pair, each reason why two
    figures may differ said once with the pairs it applies to -- the cross-check filled 3.5 pages with a table per
    pair before."""
    from tests.conftest import corpus_files

    for p in corpus_files("crosscheck"):
        imp(ws, p)
    out = tmp_path / "r.pdf"
    content = build_report(ws, ReportOptions(date="x", sections=["crosscheck"]), str(out))
    sec = next(s for s in content.sections if s.key == "crosscheck")
    assert len(sec.tables) == 1
    n = len(sec.tables[0].rows)
    assert n == 4
    whys = [p for p in sec.paragraphs if p.startswith("Why they may differ")]
    assert len(whys) == len(set(whys))
    text = " ".join(pages(out))
    assert text.count("fio reports the I/O it issued") == 1
    assert len(pages(out)) <= 2


# ---- words, defined once ------------------------------------------------------------------------------------------
def test_a_one_interval_spike_has_no_plateau(ws, write, tmp_path):
    """A storm whose busy part is one interval is a burst: the report never says it "held a plateau" of the spike's
    own rate (issue 26: "held a plateau of 854 IOPS" of a 1-second spike)."""
    from tests.analysis_util import iops_log

    rid = imp(ws, write("spike.txt", iops_log([10, 12, 11, 854, 10, 12, 11, 10], interval=1)))
    Q.add_question(ws, Q.StormQuestion(run_id=rid))
    out = tmp_path / "r.pdf"
    content = build_report(ws, ReportOptions(date="x", sections=["storm"]), str(out))
    text = " ".join(pages(out))
    assert "plateau of 854" not in text
    assert "(plateau) was 854" not in text
    assert "its busy part was that one interval: a burst, with no sustained level beside it" in text
    assert "Plateau (sustained level) – (a burst of one interval)" in text
    assert any("in a single interval (a burst, no sustained level)" in v for v in content.verdicts)


def test_an_iops_per_user_range_is_light_and_heavy_users(ws, tmp_path):
    """8..25 IOPS per user is the sizing method's light and heavy office user (ETRI), not a steady load and its
    storm; a storm multiplier still gives steady and storm."""
    Q.add_question(ws, Q.SizingQuestion(users=100, iops_per_user=8, iops_per_user_storm=25))
    Q.add_question(ws, Q.SizingQuestion(users=100, iops_per_user=8, storm_multiplier=3.125))
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(date="x"), str(out))
    p = pages(out)
    assert "light users (8 IOPS each): 18 disks; heavy users (25 IOPS each): 54 disks" in p[0]
    text = " ".join(p)
    assert "Light users: 8 IOPS per user" in text
    assert "Heavy users: 25 IOPS per user" in text
    assert "8 (light users) to 25 (heavy users)" in text
    assert "storm 25 IOPS per user: 54 disks" not in p[0]
    assert "25 IOPS per user (8 IOPS × storm multiplier 3.12): 54 disks" in p[0]  # a multiplier: a storm
