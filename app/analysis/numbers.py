"""How the window, the command line's texts and the PDF write a number: one format per quantity (no Qt).

A leaf module (it imports nothing of the app): the analyses that put figures into sentences (the questions'
answers, the per-VM story, the Iometer cap verdicts), the renderings and the report use the same formats.

``fmt_value`` writes a value with its unit, ``fmt_span`` a time range of a run, ``fmt_pct`` a share,
``fmt_pct_value`` a percentage given in percent; ``pct_pair`` and ``pct_bounds`` write two bounds (and an
estimate between them) with as many decimals as it takes to tell them apart.
"""

from __future__ import annotations


def fmt_value(v: float | int | None, unit: str = "") -> str:
    """``v`` with its unit, one way per value: whole numbers without decimals (1,212 IOPS), other values
    under 1,000 with one decimal (203.4 IOPS), larger ones rounded to whole (65,716 IOPS); ms with two
    decimals, seconds as they are (16 s), disks and users as counts. Values within 1e-9 of a whole number
    are whole."""
    if v is None:
        return "-"
    u = f" {unit}" if unit else ""
    v = round(float(v), 9)  # a floating-point crumb (220.00000000000003) is no decimal
    if unit == "ms" and float(v) != int(v):
        return f"{v:,.2f}{u}"
    if unit == "s":
        return f"{v:,g}{u}"
    if float(v) == int(v):
        return f"{int(v):,}{u}"
    if abs(v) < 1000:
        return f"{v:,.1f}{u}"
    return f"{v:,.0f}{u}"


def fmt_span(t0: float | None, t1: float | None) -> str:
    """A time range of a run: 26–36 s."""
    return f"{fmt_value(t0)}–{fmt_value(t1, 's')}"


def fmt_pct(share: float | None) -> str:
    """A share (0-1) as a percentage with two decimals: 98.90 %."""
    return "-" if share is None else f"{share * 100:.2f} %"


def fmt_pct_value(pct: float) -> str:
    """A percentage given in percent (a goal, a tolerance): 95 %, 2.5 %."""
    return f"{pct:g} %"


def pct_pair(lo: float | None, hi: float | None, digits: int = 2, missing: str = "?") -> tuple[str, str]:
    """Two bounds as percentages with as many decimals as it takes to tell them apart (up to 6): never
    'between 99.8 % and 99.8 %'."""
    def one(v: float | None, d: int) -> str:
        return missing if v is None else f"{v * 100:.{d}f} %"

    a, b = one(lo, digits), one(hi, digits)
    if lo is None or hi is None or lo == hi:
        return a, b
    for d in range(digits + 1, 7):
        if a != b:
            break
        a, b = one(lo, d), one(hi, d)
    return a, b


def pct_bounds(lo: float | None, hi: float | None, est: float | None, digits: int = 2,
               missing: str = "?") -> tuple[str, str, str]:
    """Bounds and an estimate between them as percentages, all three with the decimals it takes to tell the
    bounds apart: never 'between 98.98 % and 98.99 %, estimate 99.0 %' (an estimate that reads as outside)."""
    a, b = pct_pair(lo, hi, digits, missing)
    d = len(a.split(".")[1].split()[0]) if "." in a else (len(b.split(".")[1].split()[0]) if "." in b else digits)
    return a, b, missing if est is None else f"{est * 100:.{d}f} %"
