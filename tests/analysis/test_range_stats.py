"""The results table's figures (app.analysis.range_stats): the storm and cap analyses' own numbers, for the
whole run and for a range, equal to what `main.py analyze storm|cap --json [--from S --to S]` prints."""

import json
from pathlib import Path

import pytest

from app.analysis.histograms import Share
from app.analysis.range_stats import (
    COLUMNS,
    DASH,
    CurveSpec,
    cap_text,
    compute_row,
    compute_rows,
    export_table,
    format_value,
    share_text,
    table_lines,
    to_tsv,
    visible_columns,
)
from app.analysis.series import make_series
from app.analysis.storm import storm_metrics
from app.cli import main as cli_main
from app.importer import import_file
from app.workspace import Workspace
from parsers.base import ImportOptions
from tests.conftest import SAMPLES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
VSCSI = FIXTURES / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"
DEV_A = "2099979:8194 (scsi0:0)"
DEV_B = "2099979:8195 (scsi0:0)"


def import_samples(ws: Workspace) -> dict[str, int]:
    """The repository's sample captures, imported as sample_traces/README.md says (run ids 1, 2, 3)."""
    ids = {}
    for name in ("storm_fast_iostat-xt", "storm_slow_iostat-xt"):
        r = import_file(ws, str(SAMPLES / f"{name}.txt"), ImportOptions(first_report="interval"))
        assert r.status == "imported", r.error
        ids[name] = r.run_ids[0]
    r = import_file(ws, str(SAMPLES / "capped_200iops_iostat-d.txt"), ImportOptions(interval_s=2))
    assert r.status == "imported", r.error
    ids["capped"] = r.run_ids[0]
    return ids


def two_vm_text() -> str:
    """Two VM disks, three collections; VM disk B answers 403 I/Os of its second collection in 15-30 ms
    instead of under 0.1 ms (the same counts otherwise)."""
    one = VSCSI.read_text()
    b = one.replace("handleID,8194", "handleID,8195")
    head = ("Histogram: latency of IOs in Microseconds (us),virtual machine worldGroupID,2099979,"
            "virtual disk handleID,8195")
    i = b.index(head)
    j = b.index("Histogram:", i + 10)
    block = b[i:j]
    slow = block.replace("\n403,100\n", "\n0,100\n").replace("\n0,30000\n", "\n403,30000\n")
    assert slow != block
    b_slow = b[:i] + slow + b[j:]
    return one + b + one + b_slow + one + b


def make_ws(path: Path) -> tuple[Workspace, dict[str, int]]:
    w = Workspace(path)
    ids = import_samples(w)
    f = path.parent / "two_vms.csv"
    f.write_text(two_vm_text())
    r = import_file(w, str(f), ImportOptions(interval_s=60))
    assert r.status == "imported", r.error
    ids["vscsi"] = r.run_ids[0]
    return w, ids


@pytest.fixture(scope="module")
def cli_ws(tmp_path_factory):
    """The same imports in a workspace of their own for the command line (a process opens a workspace in one
    mode only: the table's workspace stays open read-write)."""
    path = tmp_path_factory.mktemp("cli") / "ws.duckdb"
    w, ids = make_ws(path)
    w.close()
    return path, ids


@pytest.fixture(scope="module")
def sample_ws(tmp_path_factory, cli_ws):
    w, ids = make_ws(tmp_path_factory.mktemp("table") / "ws.duckdb")
    assert ids == cli_ws[1]  # the same run ids on both sides
    yield w, ids, cli_ws[0]
    w.close()


def cli_json(capsys, *argv: str) -> dict:
    capsys.readouterr()
    assert cli_main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_plateau_is_the_median_of_the_intervals_above_half_the_peak():
    # idle, ramp, a plateau around 1,000 with one spike, a long idle tail
    iops = [0, 0, 200, 600, 1000, 990, 1010, 1200, 1000, 300] + [0] * 50
    m = storm_metrics(make_series(iops))
    assert m.plateau_floor_iops == 600.0
    assert m.plateau_iops == 1000.0  # of 1000, 990, 1010, 1200, 1000 (600 is not above half the peak)
    assert m.iops_percentiles["p50"] == 0.0  # the median of the whole run is the idle level: never the plateau
    # time-weighted: a long interval counts for its length
    m2 = storm_metrics(make_series([1000, 700, 0], dt=[1, 5, 1]))
    assert m2.plateau_iops == 700.0


@pytest.mark.parametrize("t_range", [None, (10.0, 40.0), (22.5, 47.0)])
@pytest.mark.parametrize("run", ["storm_fast_iostat-xt", "storm_slow_iostat-xt", "capped"])
def test_figures_equal_the_storm_analysis_of_the_command_line(sample_ws, capsys, run, t_range):
    ws, ids, path = sample_ws
    rid = ids[run]
    row = compute_row(ws, CurveSpec(rid, run, t_range=t_range))
    argv = ["analyze", "storm", "-w", str(path), "--run", str(rid), "--phases", "none", "--json"]
    if t_range:
        argv += ["--from", f"{t_range[0]:g}", "--to", f"{t_range[1]:g}"]
    cli = cli_json(capsys, *argv)["run"]
    st = row.storm
    assert row.error is None
    for key in ("t_start_s", "t_end_s", "intervals", "peak_iops", "peak_t_end_s", "time_to_peak_s", "mean_iops",
                "plateau_iops", "total_ios", "read_share", "read_share_basis"):
        assert getattr(st, key) == cli[key], key
    assert st.iops_percentiles["p95"] == cli["iops_percentiles"]["p95"]
    if t_range:
        assert t_range[0] <= st.t_start_s + 0.5
        assert st.t_end_s - 0.5 < t_range[1]


def test_known_figures_of_the_samples(sample_ws):
    ws, ids, _ = sample_ws
    fast = compute_row(ws, CurveSpec(ids["storm_fast_iostat-xt"], "fast")).storm
    assert (fast.peak_iops, fast.peak_t_end_s, fast.time_to_peak_s) == (1212.0, 21.0, 16.0)
    assert (fast.total_ios, fast.plateau_iops) == (36340.0, 1200.0)
    capped = compute_row(ws, CurveSpec(ids["capped"], "capped")).storm
    assert capped.read_share_basis.startswith("kB")  # plain -d reports: labelled, never by I/Os


@pytest.mark.parametrize(("t_range", "verdict"),
                         [(None, "NOT held"), ((0.0, 12.0), "held"), ((20.0, 50.0), "NOT held")])
def test_cap_verdict_equals_the_cap_analysis_of_the_command_line(sample_ws, capsys, t_range, verdict):
    ws, ids, path = sample_ws
    rid = ids["capped"]
    row = compute_row(ws, CurveSpec(rid, "capped", t_range=t_range), cap=200.0)
    argv = ["analyze", "cap", "-w", str(path), "--run", str(rid), "--iops-cap", "200", "--json"]
    if t_range:
        argv += ["--from", f"{t_range[0]:g}", "--to", f"{t_range[1]:g}"]
    cli = cli_json(capsys, *argv)["checks"][0]
    c = row.cap
    for key in ("verdict", "limit", "window_s", "worst_window", "windows_judged", "windows_over", "plateau"):
        assert getattr(c, key) == cli[key], key
    text = cap_text(row)
    ww = cli["worst_window"]["average"]
    assert cli["verdict"] == verdict
    if verdict == "held":
        assert text == f"held: worst 10 s window {ww:,.1f} IOPS ≤ {cli['limit']:,.1f}"
    else:
        assert text.startswith(f"NOT held: worst 10 s window {ww:,.1f} IOPS > {cli['limit']:,.1f}")
    # the first 12 s of the capped run sit at the cap: held
    if t_range == (0.0, 12.0):
        assert text == "held: worst 10 s window 200.7 IOPS ≤ 210.0"


def test_no_cap_verdict_without_a_cap_or_on_a_latency_chart(sample_ws):
    ws, ids, _ = sample_ws
    rid = ids["capped"]
    assert compute_row(ws, CurveSpec(rid, "c")).cap is None
    row = compute_row(ws, CurveSpec(rid, "c", metric="await (ms)"), cap=200.0)
    assert row.cap is None
    assert "IOPS or throughput" in row.cap_note
    cols = visible_columns([row], None)
    assert "cap" not in [c.key for c in cols]


def test_vscsistats_rows_per_vm_disk_share_exact_or_bounds(sample_ws):
    ws, ids, _ = sample_ws
    rid = ids["vscsi"]
    specs = [CurveSpec(rid, f"v · {d}", kind="vscsistats", device=d) for d in (DEV_A, DEV_B)]
    a, b = compute_rows(ws, specs, threshold_ms=20.0)
    # 20 ms lies inside the (15, 30] ms bucket, which is empty for VM disk A: exact, 789 of 793 per collection
    assert a.share.exact
    assert a.share.ios == 3 * 793
    assert a.share.under_lo == 3 * 789
    assert share_text(a.share) == f"{3 * 789 / (3 * 793) * 100:.1f} % (exact)"
    # VM disk B: 403 I/Os of its second collection lie in (15, 30] ms: only bounds, plus a labelled estimate
    assert not b.share.exact
    assert (b.share.under_lo, b.share.under_hi) == (2 * 789 + 386, 2 * 789 + 386 + 403)
    assert b.share.estimate == pytest.approx(2 * 789 + 386 + 403 * 5 / 15)
    assert "estimate" in share_text(b.share)
    per = {c["t_start_s"]: c["share"] for c in b.collections}
    # which VM suffered, when
    assert per[0.0].exact
    assert per[120.0].exact
    assert not per[60.0].exact
    assert b.storm.total_ios == 3 * 793
    assert b.storm.peak_iops == pytest.approx(793 / 60)
    # a range: the second collection only (midpoint 90 s)
    b2 = compute_row(ws, CurveSpec(rid, "b", kind="vscsistats", device=DEV_B, t_range=(61.0, 119.0)), None, 20.0)
    assert b2.storm.intervals == 1
    assert (b2.share.under_lo, b2.share.under_hi) == (386, 789)
    lines = table_lines([a, b], visible_columns([a, b], None), per_collection=True)
    assert [ln.kind for ln in lines] == ["curve"] + ["collection"] * 3 + ["curve"] + ["collection"] * 3 + [
        "delta", "ratio"]


def test_one_formatter_and_dashes():
    assert format_value(36340.0, "count") == "36,340"
    assert format_value(1212.0, "iops") == "1,212.0"
    assert format_value(None, "iops") == DASH
    assert format_value(None, "pct") == DASH
    assert share_text(None) == DASH
    assert share_text(Share(50_000, 793, 792, 792, 792.0)) == "99.9 % (exact)"
    # bounds that would print alike get more decimals; never "100.0" for a share below 100 %
    assert share_text(Share(51_000, 10_000, 9_995, 9_999, 9_997.0)) == "99.95–99.99 % (estimate 99.97 %)"


def test_tsv_with_header_and_a_b_lines(sample_ws):
    ws, ids, _ = sample_ws
    rows = compute_rows(ws, [CurveSpec(ids["storm_fast_iostat-xt"], "A"),
                             CurveSpec(ids["storm_slow_iostat-xt"], "B")])
    cols = visible_columns(rows, None)
    table = export_table(rows, cols)
    text = to_tsv(table)
    lines = [ln.split("\t") for ln in text.splitlines()]
    head = lines[0]
    # exported times are seconds of the run, and the headers say so (on screen they are the chart's)
    assert head[:5] == ["Curve", "Run", "VM disk / device", "From (s of the run)", "To (s of the run)"]
    assert [ln[0] for ln in lines[1:]] == ["A", "B", "B − A", "B / A"]
    i = head.index("Peak (IOPS)")
    a, b = float(lines[1][i]), float(lines[2][i])
    assert (a, b) == (1212.0, 809.0)
    assert float(lines[3][i]) == b - a
    assert float(lines[4][i]) == pytest.approx(b / a, rel=1e-9)
    j = head.index("Total I/Os")
    assert lines[1][j] == "36340"  # unformatted: no thousands separator
    shown = table_lines(rows, cols)
    k = [c.key for c in cols].index("peak")
    assert shown[2].display[k] == "-403.0"
    assert shown[3].display[k] == "×0.667"
    assert all(c.key != "share" for c in cols)  # no vscsiStats row: no share column
    assert {c.key for c in COLUMNS} >= {"peak", "peak_at", "time_to_peak", "mean", "p95", "plateau", "total",
                                         "read_share", "cap", "share"}


def test_range_errors_are_rows_not_crashes(sample_ws):
    ws, ids, _ = sample_ws
    row = compute_row(ws, CurveSpec(ids["storm_fast_iostat-xt"], "A", t_range=(500.0, 600.0)), cap=200.0)
    assert row.error is None
    assert row.storm.intervals == 0
    assert row.cap is None
    cols = visible_columns([row], 200.0)
    assert all(v == DASH for v in table_lines([row], cols)[0].display[2:])
    bad = compute_row(ws, CurveSpec(999, "nope"))
    assert bad.error
    assert "999" in bad.error
