"""Where the response-time goal breaks (app.analysis.knee): the deciding points, the crossing and the fit, on
points worked out by hand; the real load steps are in tests/test_cli_replay.py."""

from __future__ import annotations

import pytest

from app.analysis.knee import LoadPoint, decide, fit_model, ordinal


def pts(*xs: tuple[float, float]) -> list[LoadPoint]:
    """(IOPS, response ms) against a 5 ms threshold, ordered by IOPS."""
    return [LoadPoint(1, "r", f"step {i}", x, r, r, r, None, r <= 5.0, "given", i)
            for i, (x, r) in enumerate(sorted(xs))]


def test_the_goal_holds_up_to_the_last_point_below_the_first_failure():
    notes: list[str] = []
    held, broke, est = decide(pts((1000, 1.0), (2000, 2.0), (3000, 4.0), (4000, 8.0), (5000, 16.0)), 5.0, notes)
    assert (held.iops, broke.iops) == (3000, 4000)
    # 4 ms at 3,000 and 8 ms at 4,000: 5 ms a quarter of the way, 3,250 IOPS
    assert est == pytest.approx(3250)
    assert notes == []


def test_a_pass_above_the_first_failure_is_named_and_does_not_move_the_limit():
    notes: list[str] = []
    held, broke, _est = decide(pts((1000, 1.0), (2000, 6.0), (3000, 4.0), (4000, 8.0)), 5.0, notes)
    assert (held.iops, broke.iops) == (1000, 2000)
    assert notes == ["the goal also held at 1 higher load (up to 3,000 IOPS, run 1, step 2) after failing at 2,000 "
                     "IOPS: the limit is taken at the first failure"]


def test_no_failure_or_no_pass():
    held, broke, est = decide(pts((1000, 1.0), (2000, 2.0)), 5.0, [])
    assert (held.iops, broke, est) == (2000, None, None)
    held, broke, est = decide(pts((1000, 6.0), (2000, 7.0)), 5.0, [])
    assert (held, broke.iops, est) == (None, 1000, None)


def test_an_undecided_point_neither_holds_nor_breaks():
    p = pts((1000, 1.0), (2000, 5.0), (3000, 9.0))
    p[1].passed = None  # its bin straddles the threshold
    notes: list[str] = []
    held, broke, _est = decide(p, 5.0, notes)
    assert (held.iops, broke.iops) == (1000, 3000)
    assert notes[0].startswith("1 point cannot be judged")


def test_the_queueing_fit_finds_service_time_and_capacity():
    # R = 1 ms / (1 - X / 10,000), exactly
    data = [(x, 1.0 / (1 - x / 10000)) for x in (1000, 3000, 5000, 7000, 8000, 9000)]
    fit = fit_model(pts(*data), 5.0)
    assert fit.service_ms == pytest.approx(1.0, rel=0.01)
    assert fit.capacity_iops == pytest.approx(10000, rel=0.01)
    assert fit.r2 == pytest.approx(1.0, abs=1e-3)
    assert fit.crossing_iops == pytest.approx(8000, rel=0.01)  # 1 / (1 - X / C) = 5 at X = 0.8 C
    assert fit_model(pts((1, 1.0), (2, 2.0)), 5.0) is None  # two points: no fit


def test_ordinals():
    assert [ordinal(p) for p in (80, 95, 91, 92, 93, 11, 99.9)] == ["80th", "95th", "91st", "92nd", "93rd", "11th",
                                                                    "99.9th"]
