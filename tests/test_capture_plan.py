"""The capture plan (app.analysis.capture_plan, ``main.py plan``): made from the workspace's questions, written as
text and PDF, stored, and the round trip on real captures made here by following it (tests/corpus/plan/: the
planned iostat and sar, and an iostat made wrongly on purpose -- no -t, a 2 s interval, 40 s)."""

import json
import subprocess
from datetime import datetime

import pytest

from app.analysis.capture_plan import PlannedSystem, check_runs, derive_plan, plan_text, save, stored
from app.analysis.questions import CapQuestion, ResponseTimeQuestion, add_question
from app.errors import AnalysisError
from app.importer import ImportOptions, import_paths
from tests.conftest import CORPUS
from tests.test_cli import run

PLAN = CORPUS / "plan"
GOOD = [PLAN / "vm_iostat.txt", PLAN / "vm_sar.txt"]
WRONG = PLAN / "vm_iostat-dx_no-t_2s.txt"
ARGS = ["--linux", "vm", "--storm-min", "1", "--lead-min", "0.5", "--tail-min", "0.5",
        "--storm-start", "2026-11-29 09:26:00"]


def test_the_plans_linux_commands_are_the_ones_the_corpus_captures_were_made_with(tmp_path):
    p = run("plan", "-w", str(tmp_path / "ws.duckdb"), *ARGS)
    assert p.returncode == 0, p.stderr
    # tests/corpus/MANIFEST.md, "plan": the commands run to make vm_iostat.txt and vm_sar.txt
    assert "      S_TIME_FORMAT=ISO LC_ALL=C iostat -dxt -y 5 24 > vm_iostat.txt &\n" in p.stdout
    assert "      LC_ALL=C sar -d -p 5 24 > vm_sar.txt &\n" in p.stdout
    assert "Start every capture at 2026-11-29 09:25:30 (the storm is expected at 09:26:00)" in p.stdout
    assert "  [ ] vm_iostat.txt  (vm: " in p.stdout
    assert "  [ ] vm_sar.txt  (vm: " in p.stdout


def test_round_trip_plan_then_captures_made_by_it_are_as_planned_and_the_wrong_one_is_named(tmp_path):
    ws = str(tmp_path / "ws.duckdb")
    pdf = tmp_path / "plan.pdf"
    p = run("plan", "-w", ws, *ARGS, "--save", "--pdf", str(pdf), "--customer", "Example Corp")
    assert p.returncode == 0, p.stderr
    assert "stored: imports into this workspace are checked against this plan" in p.stdout
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "Capture plan for Example Corp" in text
    assert "S_TIME_FORMAT=ISO LC_ALL=C iostat -dxt -y 5 24 > vm_iostat.txt &" in text
    assert "What to send back" in text
    p = run("import", "-w", ws, *map(str, GOOD), str(WRONG))
    assert p.returncode == 0, p.stderr
    plan_lines = [ln for ln in p.stdout.splitlines() if ln.startswith("plan ")]
    assert plan_lines == [
        "plan       run 1 (vm_iostat.txt): as planned",
        "plan       run 2 (vm_sar.txt): as planned",
        "plan       run 3 (vm_iostat-dx_no-t_2s.txt): no time stamps (iostat without -t); interval unknown (planned "
        "5 s)"]
    # the interval given: the wrong capture is named with everything that differs
    assert run("run", "3", "--interval", "2", "-w", ws).returncode == 0
    out = json.loads(run("plan", "-w", ws, "--check", "--json").stdout)
    by = {c["run_id"]: c for c in out["checks"]}
    assert by[1]["as_planned"]
    assert by[2]["as_planned"]
    assert by[3]["differences"] == ["no time stamps (iostat without -t)", "interval 2 s instead of 5 s",
                                    "too short: 0.6 min of the planned 2 min"]
    assert by[3]["planned"] == "vm_iostat.txt"  # checked as the planned iostat of host vm
    assert out["missing"] == []
    # the report's runs table says it, in words
    rep = tmp_path / "r.pdf"
    assert run("report", "-w", ws, "-o", str(rep), "--sections", "runs").returncode == 0
    text = " ".join(subprocess.run(["pdftotext", str(rep), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "Capture plan" in text
    assert "as planned" in text
    assert "Run 3: no time stamps (iostat without -t); interval 2 s instead of 5 s; too short: 0.6 min of the " \
           "planned 2 min." in text


def test_a_host_not_in_the_plan_and_a_storm_outside_the_capture_are_named(ws):
    plan = derive_plan(ws, [PlannedSystem("linux", "db01")], storm_min=1, lead_min=0.5, tail_min=0.5,
                       storm_start=datetime(2026, 11, 29, 9, 40))
    save(ws, plan)
    rid = import_paths(ws, [str(GOOD[1])], ImportOptions())[0].run_ids[0]
    (c,) = check_runs(ws, stored(ws), [rid])
    assert c.differences == ["host vm is not in the plan (planned: db01)",
                             "the storm (09:40:00–09:41:00) is not inside the capture (09:25:22–09:27:22)"]
    assert c.planned is None
    assert not c.as_planned
    assert c.short_words() == "differs: other host, storm outside"


def test_questions_choose_the_interval_the_tools_and_say_what_the_plan_lacks(ws):
    rid = import_paths(ws, [str(GOOD[0])], ImportOptions(first_report="interval"))[0].run_ids[0]
    add_question(ws, CapQuestion(rid, iops_cap=200, window_s=10))
    add_question(ws, ResponseTimeQuestion([rid]))
    plan = derive_plan(ws, [PlannedSystem("windows", "desk01")])
    assert plan.interval_s == 5  # a 10 s cap window needs two reports in it
    assert plan.reasons[0] == "Interval 5 s: a cap is judged on 10 s windows, which need at least two reports each."
    assert plan.storm_min == 2  # the run the questions name: 115 s + one interval, rounded up to whole minutes
    assert plan.count == 264  # (10 + 2 + 10) min / 5 s
    assert plan.notes == ["The questions read the host's latency (esxtop) or vscsiStats histograms, but the plan "
                          "has no ESXi host."]
    assert plan.commands(plan.systems[0]) == [
        "typeperf -cf desk01_counters.txt -si 5 -sc 264 -f CSV -o desk01_perfmon.csv"]
    esx = derive_plan(ws, [PlannedSystem("esxi", "esx01")], interval_s=5, storm_min=20)
    assert esx.commands(esx.systems[0]) == ["vscsiStats -s", "esxtop -b -d 5 -n 480 > esx01_esxtop.csv",
                                            "vscsiStats -p all -c > esx01_vscsistats.csv", "vscsiStats -x"]
    assert "\\PhysicalDisk(*)\\Avg. Disk sec/Transfer" in plan_text(plan)


@pytest.mark.parametrize(("systems", "kw", "message"), [
    ([], {}, "needs at least one system"),
    ([PlannedSystem("linux", "a b")], {}, "not a host name"),
    ([PlannedSystem("linux", "a"), PlannedSystem("esxi", "A")], {}, "named twice"),
    ([PlannedSystem("linux", "a")], {"interval_s": 1}, "2 or more"),
    ([PlannedSystem("linux", "a")], {"storm_min": 0}, "above 0"),
])
def test_a_plan_that_cannot_be_followed_is_refused(ws, systems, kw, message):
    with pytest.raises(AnalysisError, match=message):
        derive_plan(ws, systems, **kw)


def test_a_stored_plan_this_version_cannot_read_is_said_not_a_crash(tmp_path):
    """A received workspace whose capture plan is not one StormScope writes: the import and the report say the
    plan could not be compared; the runs are imported and the report is written."""
    import duckdb

    ws = str(tmp_path / "ws.duckdb")
    assert run("plan", "-w", ws, *ARGS, "--save").returncode == 0
    with duckdb.connect(ws) as con:
        con.execute("""UPDATE capture_plans SET spec = '{"systems": [{"kind": "mainframe", "host": "x"}]}'""")
    p = run("import", "-w", ws, str(GOOD[0]))
    assert p.returncode == 0, p.stderr
    assert "plan       not checked: the workspace's capture plan cannot be read" in p.stdout
    rep = tmp_path / "r.pdf"
    assert run("report", "-w", ws, "-o", str(rep), "--sections", "runs").returncode == 0
    text = " ".join(subprocess.run(["pdftotext", str(rep), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "The capture plan stored with the workspace could not be compared" in text
    assert run("plan", "-w", ws, "--check").returncode == 1
