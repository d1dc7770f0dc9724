"""The overlay's axes: values as they are (never rescaled by an SI prefix) and one time base, named on the axis.

pyqtgraph rescales an axis by an SI prefix when it is given units (a 16 h run read "ks") and, without units, by a
power of ten it prints beside the label ("GAVG (ms) (x0.001)" with ticks 560-690 for 0.56-0.69 ms). A figure whose
unit already carries a prefix (ms, kB/s) must never be rescaled again, and seconds become minutes or hours, not
kiloseconds. Here:

* :class:`ValueAxis` prints the values as they are, with thousands separators (1,212, 0.56);
* :class:`TimeAxis` prints the time the chart is drawn in, in one of three bases: seconds since the alignment (in
  seconds, minutes or hours as the visible span asks, said in the label), the clock (wall-clock ticks from the
  common reference of clock alignment) or 0-1 of each run. ``text_at(x)`` is the same time as the readout and the
  results table print it.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import pyqtgraph as pg

# (seconds per unit, unit) by the span the axis shows: up to 15 min in seconds, up to 5 h in minutes, then hours
TIME_UNITS = ((15 * 60.0, 1.0, "s"), (5 * 3600.0, 60.0, "min"), (math.inf, 3600.0, "h"))
CLOCK_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
TICK_PX = 90  # about one labelled tick per this many pixels on the clock axis


def fmt_number(v: float, places: int) -> str:
    s = f"{v:,.{max(0, places)}f}"
    return "0" if s.strip("-0.,") == "" else s


class ValueAxis(pg.AxisItem):
    """A value axis that prints the figures as they are: no SI prefix, no '(x0.001)', thousands separators."""

    def __init__(self, orientation: str = "left", **kw: Any):
        super().__init__(orientation, **kw)
        self.enableAutoSIPrefix(False)

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802 (pyqtgraph)
        if self.logMode:
            return super().tickStrings(values, scale, spacing)
        step = spacing * scale
        places = max(0, math.ceil(-math.log10(step))) if step > 0 and math.isfinite(step) else 0
        return [fmt_number(v * scale, places) for v in values]


class TimeAxis(pg.AxisItem):
    """The chart's time axis in one base: ``elapsed`` (seconds since the alignment, shown in s, min or h by the
    visible span), ``clock`` (wall-clock times from ``clock0``) or ``normalised`` (0-1 of each run)."""

    def __init__(self, **kw: Any):
        super().__init__("bottom", **kw)
        self.enableAutoSIPrefix(False)
        self.mode = "elapsed"
        self.what = "time since alignment"
        self.clock0: datetime | None = None
        self.zone = ""
        self.unit_s, self.unit = 1.0, "s"
        self._relabel()

    # ---- the base -----------------------------------------------------------------------------------
    def set_base(self, mode: str, what: str = "time since alignment", clock0: datetime | None = None,
                 zone: str = "") -> None:
        """``mode``: elapsed | clock | normalised; ``what``: the label's words for elapsed time; ``clock0``: the
        wall-clock time of x = 0 in clock mode, ``zone`` its zone's name ("UTC") or ""."""
        if mode == "clock" and clock0 is None:
            mode = "elapsed"
        self.mode, self.what, self.clock0, self.zone = mode, what, clock0, zone
        self.unit_s, self.unit = 1.0, "s"
        self.setScale(1.0)
        self._choose_unit()
        self._relabel()
        self.picture = None
        self.update()

    def label_text(self) -> str:
        if self.mode == "normalised":
            return "normalised time (0–1 of each run)"
        if self.mode == "clock":
            return f"clock time ({self.zone})" if self.zone else "clock time (as the files give it)"
        return f"{self.what} ({self.unit})"

    def _relabel(self) -> None:
        text = self.label_text()
        if text != getattr(self, "_label", None):
            self._label = text
            self.setLabel(text)

    def _choose_unit(self) -> None:
        if getattr(self, "mode", None) != "elapsed":  # (pyqtgraph sets a range before __init__ is done)
            return
        lo, hi = self.range
        span = abs(hi - lo)
        unit_s, unit = next((u, n) for top, u, n in TIME_UNITS if span <= top)
        if unit_s != self.unit_s:
            self.unit_s, self.unit = unit_s, unit
            self.setScale(1.0 / unit_s)
            self._relabel()

    def setRange(self, mn: float, mx: float) -> None:  # noqa: N802 (pyqtgraph name)
        super().setRange(mn, mx)
        self._choose_unit()

    # ---- ticks --------------------------------------------------------------------------------------
    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:  # noqa: N802,N803
        if self.mode != "clock" or self.clock0 is None:
            return super().tickSpacing(minVal, maxVal, size)
        span = abs(maxVal - minVal)
        want = span / max(1.0, size / TICK_PX)
        step = next((s for s in CLOCK_STEPS if s >= want), CLOCK_STEPS[-1] * math.ceil(want / CLOCK_STEPS[-1]))
        day = self.clock0 - self.clock0.replace(hour=0, minute=0, second=0, microsecond=0)
        offset = (-(day.total_seconds() % step)) % step  # ticks on whole clock times (10:05:00, not 10:04:37)
        smaller = [s for s in CLOCK_STEPS if s < step and step % s == 0]
        minor = smaller[-1] if smaller else step / 5
        return [(float(step), offset), (float(minor), offset % minor)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802 (pyqtgraph)
        if self.mode == "clock" and self.clock0 is not None:
            fmt = "%H:%M:%S" if spacing < 60 or any(round(v) % 60 for v in values) else "%H:%M"
            return [(self.clock0 + timedelta(seconds=round(v, 6))).strftime(fmt) for v in values]
        step = spacing * scale
        places = max(0, math.ceil(-math.log10(step))) if step > 0 and math.isfinite(step) else 0
        return [fmt_number(v * scale, places) for v in values]

    # ---- the same time in words -------------------------------------------------------------------------
    def text_at(self, x: float, decimals: int = 1) -> str:
        """A time of the chart as the readout and the results table print it: '10.1 s', '12.5 min' and the like
        follow the axis' unit in elapsed time (seconds under 15 min: '10.1 s'), '10:04:37' on the clock, '0.450'
        in 0-1 time."""
        if not math.isfinite(x):
            return "–"
        if self.mode == "normalised":
            return f"{x:,.3f}"
        if self.mode == "clock" and self.clock0 is not None:
            t = self.clock0 + timedelta(seconds=x)
            return t.strftime("%H:%M:%S") + (f".{int(t.microsecond / 100000)}" if decimals and t.microsecond else "")
        return f"{fmt_number(x / self.unit_s, decimals)} {self.unit}"

    def span_at(self, a: float, b: float) -> str:
        """An interval of the chart as the readout names it: '10–11 s', '12.5–12.58 min', '10:04:35–10:04:40'."""
        if self.mode == "normalised":
            return f"{_trim(a, 3)}–{_trim(b, 3)}"
        if self.mode == "clock" and self.clock0 is not None:
            return f"{self.text_at(a, 0)}–{self.text_at(b, 0)}"
        places = 3 if self.unit == "s" else 2
        return f"{_trim(a / self.unit_s, places)}–{_trim(b / self.unit_s, places)} {self.unit}"


def _trim(v: float, places: int) -> str:
    """``10``, ``10.5``, ``-2.25``: no trailing zeros, no ``-0``."""
    s = f"{v:,.{places}f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s
