"""One clock from the activity: the offset of a run's clock against a reference run (app.analysis.clock), stored
per run (app.store.clock) and used wherever runs are put on the clock.

The corpus captures tests/corpus/clock/*bursts-A* are one disk seen by iostat and sar at once for 10 minutes of
random fio bursts, every 2 s (the interval: the offset must be found within it); *bursts-B* is another capture made
right after (MANIFEST.md). Copies with their clocks shifted by a known amount (tests/clock_util.py) are the same
captures made by a host whose clock is off: the offset found must be minus the shift.
"""

import os
from datetime import timedelta

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from app.analysis.clock import MIN_MATCH, accept, correlation_by_lag, estimate_offset  # noqa: E402
from app.analysis.series import load_series, runs_on_one_axis  # noqa: E402
from app.errors import AnalysisError  # noqa: E402
from app.importer import import_file  # noqa: E402
from app.store.clock import clear_offset, fmt_offset, get_offset, set_offset  # noqa: E402
from app.workspace import Workspace  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.clock_util import later_start, shifted_copy  # noqa: E402
from tests.conftest import CORPUS  # noqa: E402

CLOCK = CORPUS / "clock"
IOSTAT_A, SAR_A = CLOCK / "vda_iostat-dxt-ISO_bursts-A.txt", CLOCK / "vda_sar-d-p_bursts-A.txt"
IOSTAT_B, SAR_B = CLOCK / "vda_iostat-dxt-ISO_bursts-B.txt", CLOCK / "vda_sar-d-p_bursts-B.txt"
INTERVAL = 2.0  # both tools sampled every 2 s
Y = ImportOptions(first_report="interval")  # iostat ran with -y


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One workspace: the A pair, B's pair, and shifted copies: sar A +37 s and -4 min, iostat A +37 s."""
    d = tmp_path_factory.mktemp("clock")
    files = {"iostat": IOSTAT_A, "sar": SAR_A, "iostat B": IOSTAT_B, "sar B": SAR_B,
             "sar +37": shifted_copy(SAR_A, d, 37), "sar -240": shifted_copy(SAR_A, d, -240),
             "iostat +37": shifted_copy(IOSTAT_A, d, 37)}
    ws = Workspace(d / "ws.duckdb")
    ids = {k: import_file(ws, str(p), Y).run_ids[0] for k, p in files.items()}
    yield ws, ids
    ws.close()


def test_two_tools_on_one_disk_at_once_are_on_one_clock(runs):
    ws, ids = runs
    m = estimate_offset(ws, ids["sar"], ids["iostat"])
    assert m.matching
    assert m.figure == "IOPS"
    assert m.step_s == 1.0
    assert abs(m.offset_s) < INTERVAL, m.reason
    assert m.match > 0.95
    assert m.next_best < 0.6  # one clear peak: the bursts have no period
    assert m.overlap_s >= 590  # the whole 10 minutes


@pytest.mark.parametrize(("run", "reference", "shift"), [
    ("sar +37", "iostat", 37.0),  # sar's clock 37 s ahead: put back by -37 s
    ("sar -240", "iostat", -240.0),  # 4 min behind: +4 min (only 6 of its 10 minutes overlap the reference as filed)
    ("iostat +37", "sar", 37.0),  # the other way round
    ("iostat +37", "iostat", 37.0),  # a copy of the reference itself
])
def test_a_shifted_clock_is_found_within_one_interval(runs, run, reference, shift):
    ws, ids = runs
    m = estimate_offset(ws, ids[run], ids[reference])
    assert m.matching, m.reason
    assert abs(m.offset_s + shift) < INTERVAL, (m.offset_s, shift)
    assert m.match >= 0.95
    assert m.reason.startswith(f"matching: correlation {m.match:.2f} at {m.offset_s:+.1f} s")


@pytest.mark.parametrize(("run", "reference"), [("iostat B", "iostat"), ("sar B", "iostat"), ("iostat", "sar B"),
                                                ("sar +37", "iostat B")])
def test_two_different_captures_are_not_matching_and_get_no_offset(runs, run, reference):
    ws, ids = runs
    m = estimate_offset(ws, ids[run], ids[reference])
    assert not m.matching
    assert m.offset_s is None
    assert m.match < MIN_MATCH  # measured 0.47 for every pair of A and B
    assert m.reason.startswith("not matching: the best correlation of their IOPS is")
    with pytest.raises(AnalysisError, match="no offset to accept"):
        accept(ws, m)


def test_an_accepted_offset_puts_the_run_on_the_reference_clock_in_every_view(runs):
    ws, ids = runs
    sar, shifted = load_series(ws, ids["sar"]), load_series(ws, ids["sar +37"])
    assert (shifted.clock0_utc - sar.clock0_utc).total_seconds() == 37.0  # as filed
    m = estimate_offset(ws, ids["sar +37"], ids["iostat"])
    stored = accept(ws, m)
    try:
        assert get_offset(ws, ids["sar +37"]) == stored
        assert stored.source == "estimated"
        assert stored.reference_run_id == ids["iostat"]
        moved = load_series(ws, ids["sar +37"])
        assert abs((moved.clock0_utc - sar.clock0_utc).total_seconds()) < INTERVAL
        assert moved.clock_offset_s == m.offset_s
        # on one clock (the overlay's, the questions' and the report's clock alignment) the copy lies on its original,
        # and says why
        on_clock = {s.run_id: s for s in runs_on_one_axis(ws, [ids["sar"], ids["sar +37"]], align_mode="clock")}
        a, b = on_clock[ids["sar"]].frame, on_clock[ids["sar +37"]].frame
        assert abs(float(a["t_start_s"][0]) - float(b["t_start_s"][0])) < INTERVAL
        note = f"its clock corrected by {fmt_offset(m.offset_s)} (estimated against run {ids['iostat']}, match"
        assert any(n.startswith(note) for n in on_clock[ids["sar +37"]].notes), on_clock[ids["sar +37"]].notes
        # estimated again, the run is matched on its file's clock: the same offset, and the stored one said
        again = estimate_offset(ws, ids["sar +37"], ids["iostat"])
        assert again.offset_s == pytest.approx(m.offset_s)
        assert again.stored_offset_s == m.offset_s
        # a run matched against a corrected reference lands on the corrected clock: iostat +37 against sar +37
        against_corrected = estimate_offset(ws, ids["iostat +37"], ids["sar +37"])
        assert abs(against_corrected.offset_s + 37.0) < INTERVAL
    finally:
        assert clear_offset(ws, ids["sar +37"])
    assert load_series(ws, ids["sar +37"]).clock0_utc == shifted.clock0_utc


def test_an_offset_set_by_hand_is_checked_and_said(runs):
    ws, ids = runs
    o = set_offset(ws, ids["sar -240"], 240.0)
    try:
        assert o.words() == "+4 min (set by hand)"
        assert load_series(ws, ids["sar -240"]).clock_note == "its clock corrected by +4 min (set by hand)"
    finally:
        clear_offset(ws, ids["sar -240"])
    for bad in (float("nan"), float("inf"), 8 * 86400.0):
        with pytest.raises(AnalysisError, match="not one a capture's clock has"):
            set_offset(ws, ids["sar -240"], bad)
    with pytest.raises(AnalysisError, match="no run 999"):
        set_offset(ws, 999, 1.0)
    with pytest.raises(AnalysisError, match="is the reference"):
        estimate_offset(ws, ids["sar"], ids["sar"])
    assert get_offset(ws, ids["sar -240"]) is None


def test_the_offset_words():
    assert [fmt_offset(x) for x in (0.0, 37.0, -36.94, 1.5, -240.0, 250.5, 3600.0)] == [
        "0 s", "+37 s", "−36.9 s", "+1.5 s", "−4 min", "+4 min 10.5 s", "+60 min"]


def test_a_repeating_activity_matches_several_offsets_equally():
    """The correlation by lag, by hand: a square wave of period 10 matches itself at every multiple of 10 (which
    is why a pair whose next best is close to its best is not matching), and -1 half a period away."""
    x = np.tile([100.0] * 5 + [0.0] * 5, 20)
    lags, r, n = correlation_by_lag(x, x[:100])  # r[k] = corr(x[j + k], x[j]) over the j of both
    assert list(lags) == list(range(-99, 200))
    assert list(n[lags >= 0][:3]) == [100, 100, 100]
    assert n[lags == 150][0] == 50
    assert n[lags == -50][0] == 50
    wide = n >= 50
    assert sorted(int(k) for k in lags[wide & (r > 0.999)]) == list(range(-50, 151, 10))
    assert sorted(int(k) for k in lags[wide & (r < -0.999)]) == list(range(-45, 146, 10))
    # the first wave 3 steps later: x[j + 3] against x[j] lines up at k = -3 (and every 10 from there)
    lags, r, _n = correlation_by_lag(x[3:103], x[:100])
    assert r[lags == -3][0] == pytest.approx(1.0)
    assert np.isnan(correlation_by_lag(np.ones(20), x[:20])[1]).all()  # a side that never varies matches nothing


IOSTAT_C, NO_T_C = CLOCK / "vda_iostat-dxt-ISO_bursts-C.txt", CLOCK / "vda_iostat-dx_no-t_bursts-C.txt"


def test_a_capture_without_time_stamps_is_placed_on_the_clock_by_its_activity(tmp_path):
    """iostat with and without -t started together on one disk (bursts C, 3 min): the one without time stamps is
    placed at the start of the other (0 s), a copy of it without its first 30 reports (started 60 s later) at +60 s,
    and against another capture (A) it is not matching. Accepted, it is on the clock in every view, and says so."""
    later = later_start(NO_T_C, tmp_path, 30)
    with Workspace(tmp_path / "ws.duckdb") as ws:
        ref = import_file(ws, str(IOSTAT_C), Y).run_ids[0]
        other = import_file(ws, str(IOSTAT_A), Y).run_ids[0]
        plain, late = (import_file(ws, str(p), ImportOptions(first_report="interval", interval_s=2)).run_ids[0]
                       for p in (NO_T_C, later))
        assert load_series(ws, plain).clock0_utc is None
        m = estimate_offset(ws, plain, ref)
        assert m.matching, m.reason
        assert m.placed
        assert abs(m.offset_s) < INTERVAL
        assert m.match > 0.95
        m = estimate_offset(ws, late, ref)
        assert m.matching, m.reason
        assert abs(m.offset_s - 60.0) < INTERVAL
        assert m.reason.endswith(f"(no time stamps: it starts {m.offset_s:+.1f} s from the reference's start)")
        assert not estimate_offset(ws, late, other).matching
        with pytest.raises(AnalysisError, match="it cannot be the reference"):
            estimate_offset(ws, ref, plain)
        with pytest.raises(AnalysisError, match="placed on the clock of a run that has them"):
            set_offset(ws, late, 60.0)  # by hand, it needs the run whose clock it is placed on
        accept(ws, m)
        placed = load_series(ws, late)
        assert placed.clock_placed
        assert placed.clock0_utc == load_series(ws, ref).clock0_utc + timedelta(seconds=m.offset_s)
        on_clock = {s.run_id: s for s in runs_on_one_axis(ws, [ref, late], align_mode="clock")}
        assert abs(float(on_clock[late].frame["t_start_s"][0]) - 60.0) < INTERVAL
        note = f"no time stamps: placed on run {ref}'s clock, starting {fmt_offset(m.offset_s)} from its start"
        assert any(n.startswith(note + f" (estimated, match {m.match:.2f})") for n in on_clock[late].notes)
        # estimated again once placed: the same place (it is matched from the reference's start, not from itself)
        assert estimate_offset(ws, late, ref).offset_s == pytest.approx(m.offset_s)
