"""One clock for runs whose files print different time zones (the host's esxtop and its guests' perfmon or iostat).

The corpus pair tests/corpus/clock/ is one host seen by two iostat runs at once, one printing UTC, the other
New York time, started 3 s apart; a 400 MB direct write is one event both saw. On the clock it falls in the same
interval of both; aligned on their starts it is 3 s apart.
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from app.analysis import questions as Q  # noqa: E402
from app.analysis.series import clock_reference, load_series, runs_on_one_axis, utc_offset_s  # noqa: E402
from app.importer import import_file  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.conftest import CORPUS  # noqa: E402

UTC = CORPUS / "clock" / "vda_iostat-dxt-ISO_TZ-UTC.txt"
NY = CORPUS / "clock" / "vda_iostat-dxt-ISO_TZ-America-New_York.txt"
Y = ImportOptions(first_report="interval")  # both were made with -y: the first report is an interval


def _peak_end(s):
    """End of the interval with the most writes (the dd burst), on the series' axis."""
    f = s.frame
    return float(f.get_column("t_end_s")[int(f.get_column("write_iops").arg_max())])


def _pair(ws):
    return [import_file(ws, str(p), Y).run_ids[0] for p in (UTC, NY)]


def test_the_files_state_their_zones_and_the_clock_puts_one_event_at_one_time(ws):
    utc, ny = _pair(ws)
    assert utc_offset_s(ws.run(utc)) == 0.0
    assert utc_offset_s(ws.run(ny)) == -5 * 3600.0
    a, b = load_series(ws, utc), load_series(ws, ny)
    # read by hand: the UTC run's first report is 22:16:53 (interval from :52), New York's 17:16:56 -05:00 (:55)
    assert str(a.clock0_utc) == "2026-11-23 22:16:52"
    assert str(b.clock0_utc) == "2026-11-23 22:16:55"
    ref, notes = clock_reference([a, b])
    assert str(ref) == "2026-11-23 22:16:52"
    assert notes == {}
    # on their starts the burst is 3 s apart; on the clock it is in one interval (22:16:57-58 UTC)
    assert (_peak_end(a), _peak_end(b)) == (6.0, 3.0)
    on_clock = runs_on_one_axis(ws, [utc, ny], align_mode="clock")
    assert [_peak_end(s) for s in on_clock] == [6.0, 6.0]
    assert on_clock[1].align["reference"] == "clock time 2026-11-23 22:16:52 UTC"


def test_a_run_without_a_zone_among_runs_with_one_is_said_to_be_taken_as_utc(ws):
    from tests.conftest import SAMPLES

    utc, _ny = _pair(ws)
    # MM/DD/YY stamps, no zone
    plain = import_file(ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions()).run_ids[0]
    _ref, notes = clock_reference([load_series(ws, utc), load_series(ws, plain)])
    assert notes == {plain: "its file gives no time zone: its clock is taken as UTC"}


def test_a_compare_question_draws_its_runs_on_the_clock(ws):
    utc, ny = _pair(ws)
    sq = Q.add_question(ws, Q.CompareQuestion([utc, ny], align="clock"))
    answer = Q.answer_stored(ws, sq)
    assert [_peak_end(s) for s in Q.evidence_series(ws, answer)] == [6.0, 6.0]


def test_the_overlay_aligns_on_clock_time_when_the_user_chooses_it(qtbot, window):
    from tests.ui.test_ui_overlay import settle, shown

    ids = [import_file(window.ws, str(p), Y).run_ids[0] for p in (UTC, NY)]
    window.browser.reload()
    plot = shown(qtbot, window, ids)
    peaks = [float(c.t[int(c.y.argmax())]) for c in plot.curves]
    assert peaks == [6.0, 3.0]  # run start: the one burst 3 s apart
    plot.align.setCurrentIndex(plot.align.findText("Align: clock time"))
    settle(qtbot, plot, 2)
    assert [float(c.t[int(c.y.argmax())]) for c in plot.curves] == [6.0, 6.0]
    assert [c.align_offset_s for c in plot.curves] == [0.0, -3.0]
