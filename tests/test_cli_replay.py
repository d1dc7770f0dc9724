"""Storm replay and the load limit through the command line, on real captures made for them (tests/corpus/replay and
tests/corpus/knee, MANIFEST.md): the job files fio ran are the ones ``replay`` writes, the fidelity and the knee are
what the captures say -- each checked against an independent reading of the files in a few lines of plain Python."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import CORPUS, SAMPLES
from tests.test_cli import run

REPLAY = CORPUS / "replay"
KNEE = CORPUS / "knee"
STEPS = sorted(KNEE.glob("*.json"))
# fidelity of IOPS over time measured on each committed replay (the figures docs/user-guide.md quotes)
FIDELITY = {"startdelay-linear_a": 0.936, "startdelay-linear_b": 0.947, "stonewall-linear_a": 0.822,
            "stonewall-linear_b": 0.888}


@pytest.fixture(scope="module")
def wsp(tmp_path_factory):
    ws = str(tmp_path_factory.mktemp("replay") / "ws.duckdb")
    for args in ([str(SAMPLES / "storm_fast_iostat-xt.txt"), "--first-report", "interval"],  # run 1, with -y
                 [str(REPLAY)], [str(KNEE)]):
        p = run("import", *args, "-w", ws)
        assert p.returncode == 0, p.stdout + p.stderr
    return ws


def js(*args):
    p = run(*args, "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def ids(wsp):
    return {r["name"]: r["run_id"] for r in js("runs", "-w", wsp)}


def body(job: str) -> str:
    return job.partition("[global]")[2]


@pytest.mark.parametrize("chain", ["startdelay", "stonewall"])
def test_the_replays_fio_ran_are_the_job_files_replay_writes(wsp, tmp_path, chain):
    out = tmp_path / "job.fio"
    p = run("replay", "1", "--range", "4..50", "--scale", "0.5", "--tolerance", "5", "--chain", chain,
            "--filename", "/dev/loop0", "--size", "256m", "-o", str(out), "-w", wsp)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(f"wrote {out}: 20 fio jobs over 46 s (run 1, seconds 4–50 of the run, IOPS x 0.5)")
    job = out.read_text()
    for run_ in ("a", "b"):
        assert body(job) == body((REPLAY / f"storm_fast_replay_{chain}-linear_{run_}.fio").read_text())
    # the header says what it reproduces and what it assumes
    # (the job fio ran also named zram0, which carried no I/O: since issue 28 a compressed-RAM device is no disk)
    assert "; Reproduces: run 1 'storm_fast_iostat-xt' (iostat), whole disks: vda\n" in job
    assert ";   seconds 4–50 of the run: 46 s from second 4 of the run, 1 s intervals" in job
    assert "; Scale: IOPS x 0.5" in job
    assert "ASSUMED every request is that size" in job
    assert "ASSUMED 100 % random" in job
    assert "; Measured peak phase: 1,199 IOPS (replayed at 600)" in job
    fid = {"startdelay": "94.2 % faithful, the replay +1 s longer", "stonewall": "85.5 % faithful, the replay +6 s"}
    assert fid[chain] in job
    # the plateau of 720 reads and 480 writes per second (reports 16-31), at half: one 16 s job
    assert "[p011_at15s_for16s]\nstartdelay=15000ms\nruntime=16000ms\nrw=randrw\nrwmixread=60\n" \
           "rate_iops=360,240\nbs=4k,4k\niodepth=1" in job if chain == "startdelay" else "stonewall" in job


def storm_iops(path) -> list[float]:
    """r/s + w/s of vda per report of the storm capture (an independent reading of iostat's text)."""
    out = []
    head = None
    for line in path.read_text().splitlines():
        f = line.split()
        if f and f[0] == "Device":
            head = f
        elif f and f[0] in ("vda", "loop0") and head:
            out.append((f[0], float(f[head.index("r/s")]) + float(f[head.index("w/s")])))
    return out


@pytest.mark.parametrize("name", sorted(FIDELITY))
def test_replay_check_measures_each_real_replay(wsp, ids, name):
    res = js("replay", "1", "--check", str(ids[f"storm_fast_replay_{name}_iostat-dxt"]), "--job",
             str(REPLAY / f"storm_fast_replay_{name}.fio"), "--replay-device", "loop0", "-w", wsp)
    dims = {d["key"]: d for d in res["dimensions"]}
    assert dims["iops"]["figure"] == pytest.approx(FIDELITY[name], abs=0.0005)
    assert res["verdict"] == ("faithful" if name.startswith("startdelay") else "approximate")
    assert dims["read_share"]["figure"] < 1.0  # percentage points
    assert dims["request_size"]["figure"] < 0.01  # 4 kB against 4 kB
    assert dims["latency"]["verdict"] == "slower"  # the loop device answers in ms, the storm's disk in 0.04 ms
    # independent reading: the storm's reports 5-50 (seconds 4-50; report k covers second k-1 to k) against the
    # replay's loop0 reports from the lag on (report 1 is since boot; report n covers second n-2 to n-1), / 0.5
    orig = [v for _d, v in storm_iops(SAMPLES / "storm_fast_iostat-xt.txt") if _d == "vda"][4:50]
    rep = [v for d, v in storm_iops(REPLAY / f"storm_fast_replay_{name}_iostat-dxt.txt") if d == "loop0"][1:]
    lag = int(res["lag_s"])
    rep = [rep[i + lag] / 0.5 if 0 <= i + lag < len(rep) else 0.0 for i in range(len(orig))]
    assert 1 - sum(abs(a - b) for a, b in zip(rep, orig)) / sum(orig) == pytest.approx(dims["iops"]["figure"])
    if name.startswith("startdelay"):
        assert lag == 3  # iostat started 3 s before fio: no drift


def test_startdelay_replays_more_faithfully_than_stonewall():
    start = [v for k, v in FIDELITY.items() if k.startswith("startdelay")]
    wall = [v for k, v in FIDELITY.items() if k.startswith("stonewall")]
    assert min(start) > max(wall)


def test_replay_check_from_fios_own_report(wsp, ids):
    res = js("replay", "1", "--check", str(ids["storm_fast_replay_startdelay-linear_a_fio"]), "--range", "4..50",
             "--scale", "0.5", "-w", wsp)
    assert res["verdict"] == "faithful"
    assert res["dimensions"][0]["figure"] > 0.98
    assert "not whether it ran at the right time" in res["basis"]
    # fio's report has no time line: its figure is not called "at the right second" (it was), and the text says why
    assert res["dimensions"][0]["text"].startswith("98.5 % of the I/O in the right phase (fio's report: each phase's "
                                                   "rate, not its timing)")
    p = run("replay", "1", "--check", str(ids["storm_fast_replay_startdelay-linear_a_fio"]), "--range", "4..50",
            "--scale", "0.5", "-w", wsp)
    assert p.returncode == 0
    assert p.stdout.startswith("replay check: FAITHFUL")
    assert "\n  measured from: fio's own report of the replay: each job's IOPS over its phase" in p.stdout


def test_the_replay_question(wsp, ids):
    rep = ids["storm_fast_replay_startdelay-linear_b_iostat-dxt"]
    p = run("question", "add", "replay", "--run", "1", "--replay-run", str(rep), "--range", "4..50", "--scale",
            "0.5", "--replay-device", "loop0", "-w", wsp)
    assert p.returncode == 0, p.stderr
    assert "Does storm_fast_replay_startdelay-linear_b_iostat-dxt reproduce the storm of storm_fast_iostat-xt " \
           "(seconds 4–50, IOPS x 0.5)?" in p.stdout
    a = js("question", "answer", "-w", wsp)[-1]
    assert a["verdict"] == "met"
    assert a["figures"][0]["text"].startswith("IOPS over time faithful: 94.7 % of the I/O at the right second")
    assert a["notes"][0] == "measured from iostat captured during the replay (loop0)"  # in the report's notes too
    run("question", "delete", str(a["question_id"]), "-w", wsp)


def test_replay_errors(wsp, ids, tmp_path):
    out = str(tmp_path / "x.fio")
    p = run("replay", str(ids[STEPS[0].stem]), "-o", out, "-w", wsp)
    assert p.returncode == 1
    assert "a replay needs I/O over time" in p.stderr
    p = run("replay", "1", "--range", "50..4", "-o", out, "-w", wsp)
    assert p.returncode == 1
    assert "must come after its start" in p.stderr
    p = run("replay", "1", "--range", "4-50", "-o", out, "-w", wsp)
    assert p.returncode == 2
    assert "a range of seconds like 12..45" in p.stderr
    p = run("replay", "2", "--check", "3", "--job", str(REPLAY / "storm_fast_replay_startdelay-linear_a.fio"), "-w",
            wsp)
    assert p.returncode == 2
    assert "the job file replays run 1, not run 2" in p.stderr
    p = run("replay", "1", "--job", str(REPLAY / "storm_fast_replay_startdelay-linear_a.fio"), "-o", out, "-w", wsp)
    assert p.returncode == 2
    assert "--job goes with --check" in p.stderr
    p = run("replay", "1", "-w", wsp)
    assert p.returncode == 2
    assert "give the job file to write" in p.stderr
    assert not (tmp_path / "x.fio").exists()


# ---- the load limit -----------------------------------------------------------------------------------------
def steps_read_independently() -> list[tuple[float, float, float, str]]:
    """Each step's IOPS, fio's own 95th percentile and mean total latency (ms), and its name, by IOPS."""
    out = []
    for f in STEPS:
        j = json.loads(f.read_text())["jobs"][0]["read"]
        out.append((j["iops"], j["clat_ns"]["percentile"]["95.000000"] / 1e6, j["lat_ns"]["mean"] / 1e6, f.stem))
    return sorted(out)


def knee_of(points: list[tuple[float, float]], limit: float) -> tuple[float | None, float | None]:
    """The highest load within ``limit`` below the lowest load above it, and that lowest load."""
    fails = [x for x, v in points if v > limit]
    first = min(fails) if fails else None
    ok = [x for x, v in points if v <= limit and (first is None or x < first)]
    return (max(ok) if ok else None), first


@pytest.mark.parametrize("goal", [("share", "5", "95"), ("mean", "2", "80")])
def test_the_knee_of_the_real_load_steps(wsp, ids, goal):
    statistic, threshold, pct = goal
    runs = ",".join(str(ids[f.stem]) for f in STEPS)
    p = run("question", "add", "knee", "--runs", runs, "--threshold-ms", threshold, "--goal-pct", pct,
            "--statistic", statistic, "--iops-per-user", "8", "-w", wsp)
    assert p.returncode == 0, p.stderr
    assert "How many desktops before the response-time goal" in p.stdout
    a = js("question", "answer", "-w", wsp)[-1]
    res = a["evidence"]["results"][0]
    steps = steps_read_independently()
    col = 1 if statistic == "share" else 2
    held, broke = knee_of([(s[0], s[col]) for s in steps], float(threshold))
    assert (res["held_iops"], res["broke_iops"]) == (pytest.approx(held), pytest.approx(broke))
    name = {s[0]: s[3] for s in steps}
    assert res["held_point"]["label"] == name[held]
    assert res["broke_point"]["label"] == name[broke]
    assert res["desktops_held"] == int(held // 8)
    assert res["desktops_broke"] == int(broke // 8)
    assert held < res["estimate_iops"] < broke
    expected = {"share": ("loop0_fio-3.33_randread-4k_qd003", "loop0_fio-3.33_randread-4k_qd016"),
                "mean": ("loop0_fio-3.33_randread-4k_qd024", "loop0_fio-3.33_randread-4k_qd032")}[statistic]
    assert (name[held], name[broke]) == expected
    assert a["figures"][0]["text"] == f"goal holds up to {held:,.0f} IOPS ({int(held // 8):,} desktops)"
    run("question", "delete", str(a["question_id"]), "-w", wsp)


def test_the_knee_of_the_ramp_captured_by_iostat(wsp, ids):
    """The same steps as one run with a ramp (iostat on loop0): its seconds in 20 bands of IOPS, await by I/Os."""
    rid = ids["loop0_randread-4k_qd-steps_iostat-dxt"]
    p = run("question", "add", "knee", "--runs", str(rid), "--threshold-ms", "2", "--statistic", "mean",
            "--iops-per-user", "8", "-w", wsp)
    assert p.returncode == 0, p.stderr
    ans = js("question", "answer", "-w", wsp)[-1]
    res = ans["evidence"]["results"][0]
    # the band that holds names its one interval ("1 intervals" before)
    assert "(loop0_randread-4k_qd-steps_iostat-dxt, 1 interval at 13,184–14,283 IOPS: " in ans["reason"]
    # independent reading: loop0's r/s and r_await per report (the first is since boot), 20 bands of r/s
    rows, head = [], None
    for line in (KNEE / "loop0_randread-4k_qd-steps_iostat-dxt.txt").read_text().splitlines():
        f = line.split()
        if f and f[0] == "Device":
            head = f
        elif f and f[0] == "loop0":
            rows.append((float(f[head.index("r/s")]), float(f[head.index("r_await")])))
    rows = [(x, a) for x, a in rows[1:] if x > 0]
    width = max(x for x, _a in rows) / 20
    bands: dict[int, list[tuple[float, float]]] = {}
    for x, a in rows:
        bands.setdefault(min(19, int(x / width)), []).append((x, a))
    pts = [(sum(x for x, _a in b) / len(b), sum(x * a for x, a in b) / sum(x for x, _a in b)) for b in bands.values()]
    held, broke = knee_of(pts, 2.0)
    assert (res["held_iops"], res["broke_iops"]) == (pytest.approx(held), pytest.approx(broke))
    run("question", "delete", str(js("question", "list", "-w", wsp)[-1]["question_id"]), "-w", wsp)


def test_a_goal_the_data_cannot_judge(wsp, ids):
    runs = ",".join(str(ids[f.stem]) for f in STEPS[:3])
    p = run("question", "add", "knee", "--runs", str(ids["loop0_randread-4k_qd-steps_iostat-dxt"]), "-w", wsp)
    assert p.returncode == 0
    p = run("question", "answer", "-w", wsp, "--json")
    assert p.returncode == 1  # a question the data cannot answer: said, and the exit code says so
    a = json.loads(p.stdout)
    assert a[-1]["error"] is not None
    assert "judge the mean response time" in a[-1]["error"]
    run("question", "delete", str(a[-1]["question_id"]), "-w", wsp)
    p = run("question", "add", "knee", "--runs", runs, "--iops-per-user", "8..25", "-w", wsp)
    assert p.returncode == 2
    assert "one value, not a range" in p.stderr
    assert re.search(r"knee", run("question", "add", "--help").stdout)


def test_the_report_answers_both_questions(wsp, ids, tmp_path):
    """``report`` with a replay question and a load-limit question: the answers page and each evidence section
    print the answer's figures (the same numbers as the command line's JSON)."""
    from tests.reports.test_report import pdf_text

    rep = ids["storm_fast_replay_stonewall-linear_a_iostat-dxt"]
    run("question", "add", "replay", "--run", "1", "--replay-run", str(rep), "--range", "4..50", "--scale", "0.5",
        "--replay-device", "loop0", "-w", wsp)
    runs = ",".join(str(ids[f.stem]) for f in STEPS)
    run("question", "add", "knee", "--runs", runs, "--threshold-ms", "5", "--goal-pct", "95", "--iops-per-user", "8",
        "-w", wsp)
    answers = js("question", "answer", "-w", wsp)
    out = tmp_path / "r.pdf"
    p = run("report", "-w", wsp, "--runs", "1", "-o", str(out))
    assert p.returncode == 0, p.stderr
    text = " ".join(pdf_text(out).split())
    assert "Does storm_fast_replay_stonewall-linear_a_iostat-dxt reproduce the storm of storm_fast_iostat-xt" in text
    assert "IOPS over time approximate: 82.2 % of the I/O at the right second" in text
    dim = answers[-2]["evidence"]["results"][0]["dimensions"][0]  # the same numbers as the JSON
    assert f"IOPS over time {round(dim['original']):,} I/Os {round(dim['replay']):,} I/Os 82.2 % at the right " \
           "second approximate" in text
    assert "How many desktops before the response-time goal (95 % within 5 ms) breaks on 14 runs" in text
    assert "goal holds up to 7,641 IOPS (955 desktops); breaks by 9,413 IOPS (1,176 desktops)" in text
    assert "loop0_fio-3.33_randread-4k_qd003 7,641 IOPS 2.19 ms" in text
    assert "yes (decides)" in text
    assert "no (decides)" in text
    assert answers[-1]["figures"][0]["value"] == pytest.approx(7641, abs=1)
    for a in answers[-2:]:
        run("question", "delete", str(a["question_id"]), "-w", wsp)


def test_the_report_of_a_check_against_fios_own_report_does_not_claim_timing(wsp, ids, tmp_path):
    """fio's JSON has no time line: the report's fidelity says "in the right phase" (it said "at the right second")
    and its notes say what the replay was measured from."""
    from tests.reports.test_report import pdf_text

    rep = ids["storm_fast_replay_startdelay-linear_a_fio"]
    run("question", "add", "replay", "--run", "1", "--replay-run", str(rep), "--range", "4..50", "--scale", "0.5",
        "-w", wsp)
    out = tmp_path / "r.pdf"
    p = run("report", "-w", wsp, "--runs", "1", "-o", str(out))
    assert p.returncode == 0, p.stderr
    text = " ".join(pdf_text(out).split())
    assert "98.5 % in the right phase" in text
    assert "at the right second" not in text
    assert "Notes: measured from fio's own report of the replay" in text
    run("question", "delete", str(js("question", "list", "-w", wsp)[-1]["question_id"]), "-w", wsp)
