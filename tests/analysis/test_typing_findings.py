"""Bugs the type checker (mypy, `make lint`) found, each held by a test of the behaviour it broke."""

from __future__ import annotations

from app.analysis.text import format_response_time, pct_pair


def test_a_response_time_known_only_by_bounds_without_an_estimate_prints():
    """'size' printed 'between {lo:.2%}' of the bounds already formatted as text, and crashed (ValueError) when
    the latency histogram bounds the share but an open-ended bucket leaves no estimate."""
    rt = {"passed": None, "share": None, "bounds": [0.9, 0.95], "estimate": None, "run_id": 3, "threshold_ms": 50,
          "goal_pct": 80, "label": "per-I/O, from the latency histogram"}
    text = format_response_time(rt)
    assert text.startswith("response time, run 3: between 90.00 % and 95.00 % (bounds) of I/O within 50 ms -> "
                           "cannot tell whether it meets the goal of 80 %")
    rt["estimate"] = 0.93
    assert "between 90.00 % and 95.00 % (bounds; ESTIMATE 93.00 % by interpolation)" in format_response_time(rt)


def test_pct_pair_with_more_decimals_than_it_searches():
    """pct_pair left its result unbound (UnboundLocalError) when asked for more than 6 decimals."""
    assert pct_pair(0.5, 0.6, digits=7) == ("50.0000000 %", "60.0000000 %")
    assert pct_pair(0.998, 0.9981) == ("99.80 %", "99.81 %")
    assert pct_pair(0.99801, 0.99802) == ("99.801 %", "99.802 %")
