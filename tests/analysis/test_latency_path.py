"""Where the time goes (app.analysis.latency_path, the ``latency_path`` question): a guest's await beside its host's
GAVG, KAVG and DAVG on one clock. The pair is CONSTRUCTED (tests/fixtures/PROVENANCE.md, "A constructed guest + host
pair"): the real iostat capture tests/corpus/plan/vm_iostat.txt and an esxtop file generated on the same clock and
5 s grid -- they did not see the same I/O, so this checks the arithmetic, against an independent computation from
the two files' raw lines (csv and str.split, not StormScope's parsers)."""

import csv
from datetime import UTC, datetime, timedelta

import pytest

from app.analysis.latency_path import latency_path
from app.analysis.questions import LatencyPathQuestion, QuestionError, add_question, answer
from app.errors import AnalysisError
from app.importer import import_paths
from app.store.clock import set_offset
from parsers.base import ImportOptions
from tests.conftest import CORPUS, ROOT

GUEST = CORPUS / "plan" / "vm_iostat.txt"
HOST = ROOT / "tests" / "fixtures" / "esxtop" / "esxtop_gen_pair_vm_iostat.csv"
LUN = "naa.6000c290000000000000000000000000"


def _guest_reports(device: str = "vda") -> list[tuple[datetime, float, float | None]]:
    """(time stamp, requests/s, await weighted by the requests of each kind) of ``device`` per report."""
    out, ts, head = [], None, None
    for line in GUEST.read_text().splitlines():
        if line[:4].isdigit() and "T" in line:
            ts = datetime.strptime(line.strip(), "%Y-%m-%dT%H:%M:%S%z")
        elif line.startswith("Device"):
            head = line.split()
        elif head and line.split()[:1] == [device]:
            v = dict(zip(head, line.split(), strict=True))
            rates = {op: float(v[f"{op}/s"]) for op in "rwdf"}
            n = sum(rates.values())
            aw = sum(rates[op] * float(v[f"{op}_await"]) for op in "rwdf") / n if n else None
            out.append((ts, n, aw))
    return out


def _host_samples() -> list[tuple[datetime, float, float, float, float]]:
    """(time stamp, commands/s, GAVG, KAVG, DAVG) of the LUN per sample."""
    with HOST.open(newline="") as f:
        rows = list(csv.reader(f))
    col = {name: i for i, name in enumerate(rows[0])}

    def c(counter: str) -> int:
        return col[f"\\\\esx01\\Physical Disk SCSI Device({LUN})\\{counter}"]

    out = []
    for r in rows[1:]:
        t = datetime.strptime(r[0], "%m/%d/%Y %H:%M:%S").replace(tzinfo=UTC)
        n = float(r[c("Reads/sec")]) + float(r[c("Writes/sec")])
        out.append((t, n, *(float(r[c(f"Average {k} MilliSec/Command")]) for k in ("Guest", "Kernel", "Driver"))))
    return out


def _independent(shift_s: float = 0.0) -> tuple[list[dict], dict[str, float]]:
    """Per host interval the guest's await (its reports overlapping it, weighted by their I/Os inside it) and the
    split; the means weighted by the guest's I/Os. ``shift_s``: seconds added to the guest's clock."""
    g = _guest_reports()
    guest = [((g[i - 1][0] if i else t - timedelta(seconds=5)) + timedelta(seconds=shift_s),
              t + timedelta(seconds=shift_s), n, aw) for i, (t, n, aw) in enumerate(g)]
    h = _host_samples()
    rows = []
    for k, (t, n, gavg, kavg, davg) in enumerate(h):
        a, b = (h[k - 1][0] if k else t - timedelta(seconds=5)), t
        length = (b - a).total_seconds()
        ov = [(max(0.0, (min(gb, b) - max(ga, a)).total_seconds()), gn, aw) for ga, gb, gn, aw in guest]
        covered = sum(o for o, _, _ in ov)
        if covered < 0.5 * length or n <= 0:
            continue
        ios = sum(o * gn for o, gn, _ in ov)
        w = [(o * gn, aw) for o, gn, aw in ov if o > 0 and o * gn > 0 and aw is not None]
        if ios <= 0 or not w:
            continue
        aw = sum(x * y for x, y in w) / sum(x for x, _ in w)
        rows.append({"a": a, "ios": ios, "await": aw, "gavg": gavg, "kavg": kavg, "davg": davg, "guest": aw - gavg})
    tot = sum(r["ios"] for r in rows)
    mean = {k: sum(r[k] * r["ios"] for r in rows) / tot for k in ("await", "gavg", "kavg", "davg", "guest")}
    return rows, mean


@pytest.fixture
def pair(ws):
    ids = [rid for r in import_paths(ws, [str(GUEST), str(HOST)], ImportOptions(first_report="interval"))
           for rid in r.run_ids]
    assert len(ids) == 2
    return ws, ids[0], ids[1]


def test_the_split_per_interval_and_over_the_capture_matches_the_raw_lines(pair):
    ws, guest, host = pair
    lp = latency_path(ws, guest, host)
    rows, mean = _independent()
    assert lp.guest_devices == ["vda"]
    assert lp.host_devices == [LUN]
    got = lp.frame.filter(lp.frame.get_column("await_ms").is_not_null() & (lp.frame.get_column("guest_ios") > 0))
    assert got.height == lp.intervals == len(rows) == 24
    assert lp.host_intervals == 25
    for r, want in zip(got.iter_rows(named=True), rows, strict=True):
        assert r["clock"].replace(tzinfo=UTC) == want["a"]
        for mine, theirs in (("await_ms", "await"), ("gavg_ms", "gavg"), ("kavg_ms", "kavg"), ("davg_ms", "davg"),
                             ("guest_ms", "guest"), ("guest_ios", "ios")):
            assert r[mine] == pytest.approx(want[theirs], rel=1e-9, abs=1e-9), (r["clock"], mine)
    for mine, theirs in (("await_ms", "await"), ("gavg_ms", "gavg"), ("kavg_ms", "kavg"), ("davg_ms", "davg"),
                         ("guest_ms", "guest")):
        assert lp.mean[mine] == pytest.approx(mean[theirs], rel=1e-9)
    # the three parts add up to the guest's mean await; each share is its part over it
    assert lp.mean["guest_ms"] + lp.mean["kavg_ms"] + lp.mean["davg_ms"] == pytest.approx(lp.mean["await_ms"])
    assert lp.shares["davg_ms"] == pytest.approx(mean["davg"] / mean["await"])
    assert lp.largest == "davg_ms"
    assert lp.notes[0].startswith("The time in the guest's queue is estimated")


def test_a_clock_offset_moves_the_guest_onto_the_hosts_clock(pair):
    ws, guest, host = pair
    set_offset(ws, guest, 10.0)  # set by hand: the guest's clock 10 s behind
    lp = latency_path(ws, guest, host)
    rows, mean = _independent(shift_s=10.0)
    assert lp.intervals == len(rows) == 22  # the guest's last 10 s now lie after the host's capture
    assert lp.mean["await_ms"] == pytest.approx(mean["await"], rel=1e-9)
    assert lp.mean["guest_ms"] == pytest.approx(mean["guest"], rel=1e-9)


def test_the_question_answers_in_words_with_the_estimate_said(pair):
    ws, guest, host = pair
    sq = add_question(ws, LatencyPathQuestion(guest, host))
    a = answer(ws, sq)
    _rows, mean = _independent()
    assert a.verdict == "information"
    assert [f.label for f in a.figures] == ["mean response time in the guest", "in the guest's queue (estimated)",
                                            "in the hypervisor (KAVG)", "in the array (DAVG)"]
    assert a.figures[0].value == pytest.approx(mean["await"])
    assert a.reason.startswith("Of the 6.44 ms vm_iostat waited per I/O, 0.87 ms (13.48 %) in the guest's queue "
                               "(estimated), 0.02 ms (0.30 %) in the hypervisor (KAVG), 5.56 ms (86.22 %) in the "
                               "array (DAVG): most of it in the array (DAVG).")
    with pytest.raises(QuestionError, match="another run than the guest's"):
        LatencyPathQuestion(guest, guest).validate()
    with pytest.raises(AnalysisError, match="no DAVG or KAVG"):
        latency_path(ws, host, guest)  # the roles swapped: the guest's run has no host latency


def test_the_report_section_says_where_the_time_goes_and_that_the_guest_part_is_estimated(tmp_path):
    import subprocess

    from tests.test_cli import run

    ws = str(tmp_path / "ws.duckdb")
    assert run("import", "-w", ws, str(GUEST), str(HOST), "--first-report", "interval").returncode == 0
    assert run("question", "add", "latency-path", "--run", "1", "--host-run", "2", "-w", ws).returncode == 0
    p = run("question", "answer", "-w", ws)
    assert "in the guest's queue (estimated): 0.87 ms (13.48 %)" in p.stdout
    pdf = tmp_path / "r.pdf"
    assert run("report", "-w", ws, "-o", str(pdf)).returncode == 0
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "Time per I/O over the capture" in text
    assert "In the guest's queue 0.87 ms 13.48 % estimated: the guest's await less GAVG" in text
    assert "In the array (DAVG) 5.56 ms 86.22 % measured by esxtop" in text
    assert "Most of the guest's wait is in the array (DAVG, 86.22 %)" in text
    assert "The time in the guest's queue is estimated" in text
