"""Locale-tolerant parsing of the dates, times and numbers that tools print."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

_AM = re.compile(r"(?:\bAM\b|\ba\.\s?m\.|上午|午前)", re.IGNORECASE)
_PM = re.compile(r"(?:\bPM\b|\bp\.\s?m\.|下午|午後)", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_ISO_TZ = re.compile(r"T\d{2}:\d{2}:\d{2}([+-]\d{2}:?\d{2}|Z)?")


@dataclass(slots=True)  # (a long iostat log holds one per report while it is read)
class RawStamp:
    """A timestamp split into its printed parts, before the date order is known."""

    text: str
    date_parts: tuple[int, ...]  # () when the line has no date, else 3 numbers as printed
    date_sep: str
    hms: tuple[int, int, int] | None
    ampm: str | None  # "AM" | "PM" | None
    tz: str | None


_DATE = re.compile(r"(\d{1,4})\s*([./-]|年)\s*(\d{1,2})\s*(?:[./-]|月)\s*(\d{1,4})\s*日?")
_TIME = re.compile(r"(\d{1,2})\s*[:时時]\s*(\d{2})(?:\s*[:分]\s*(\d{2}))?\s*秒?")


def split_stamp(text: str) -> RawStamp | None:
    """Split a date and/or time as printed by iostat -t, sar etc. None if it is neither."""
    s = text.strip()
    if s.lower().startswith("time:"):
        s = s[5:].strip()
    m_date = _DATE.search(s)
    rest = s[m_date.end():] if m_date else s
    m_time = _TIME.search(rest)
    if not m_date and not m_time:
        return None
    parts: tuple[int, ...] = ()
    sep = ""
    if m_date:
        parts = (int(m_date.group(1)), int(m_date.group(3)), int(m_date.group(4)))
        sep = m_date.group(2)
        if len(m_date.group(1)) == 4:
            sep = "Y" + sep  # year first
    hms = None
    if m_time:
        hms = (int(m_time.group(1)), int(m_time.group(2)), int(m_time.group(3) or 0))
    ampm = "PM" if _PM.search(s) else ("AM" if _AM.search(s) else None)
    tz = None
    m_tz = _ISO_TZ.search(s)
    if m_tz and m_tz.group(1):
        tz = m_tz.group(1)
    # Anything left that is not part of a date/time means this is not a timestamp line.
    leftover = _TIME.sub(" ", _DATE.sub(" ", s, count=1), count=1)
    leftover = _AM.sub(" ", _PM.sub(" ", leftover))
    leftover = re.sub(r"[T\s,]|[+-]\d{2}:?\d{2}|Z", "", leftover)
    if leftover:
        return None
    return RawStamp(s, parts, sep, hms, ampm, tz)


_COMMON = re.compile(
    r"(\d{1,4})([./-])(\d{1,2})[./-](\d{1,4})[ T](\d{1,2}):(\d{2}):(\d{2})(?: ?([AP]M))?"
)


def fast_stamp(text: str) -> RawStamp | None:
    """The common `-t` forms (MM/DD/YYYY hh:mm:ss [AM|PM], ISO without zone) in one match; None otherwise."""
    m = _COMMON.fullmatch(text)
    if m is None:
        return None
    a, sep, b, c, hh, mm, ss, ampm = m.groups()
    return RawStamp(text, (int(a), int(b), int(c)), ("Y" + sep) if len(a) == 4 else sep,
                    (int(hh), int(mm), int(ss)), ampm, None)


def date_order(stamps: list[RawStamp]) -> tuple[str, bool]:
    """Decide the order of day/month in the stamps: 'YMD', 'DMY' or 'MDY'.

    Returns (order, ambiguous). Dotted dates are European (DMY). Slash dates
    are decided by any field above 12; when none is, the C/US order MDY is
    assumed and ``ambiguous`` is True.
    """
    with_date = [s for s in stamps if s.date_parts]
    if not with_date:
        return "MDY", False
    if all(s.date_sep.startswith("Y") for s in with_date):
        return "YMD", False
    if any(s.date_sep == "." for s in with_date):
        return "DMY", False
    if any(s.date_parts[0] > 12 for s in with_date):
        return "DMY", False
    if any(s.date_parts[1] > 12 for s in with_date):
        return "MDY", False
    ambiguous = any(s.date_parts[0] != s.date_parts[1] for s in with_date)
    return "MDY", ambiguous


def _year(y: int) -> int:
    if y >= 100:
        return y
    return 2000 + y if y < 70 else 1900 + y


def stamp_date(s: RawStamp, order: str) -> date | None:
    if not s.date_parts:
        return None
    a, b, c = s.date_parts
    if s.date_sep.startswith("Y"):
        return date(a, b, c)
    if order == "DMY":
        return date(_year(c), b, a)
    return date(_year(c), a, b)


def stamp_datetime(s: RawStamp, order: str) -> datetime:
    """Wall-clock datetime of a stamp (date 1900-01-01 when only a time was printed)."""
    d = stamp_date(s, order) or date(1900, 1, 1)
    if s.hms is None:
        return datetime(d.year, d.month, d.day)
    h, m, sec = s.hms
    if s.ampm == "AM" and h == 12:
        h = 0
    elif s.ampm == "PM" and h < 12:
        h += 12
    return datetime(d.year, d.month, d.day, h, m, sec)


def banner_date(banner: RawStamp, stamps: list[RawStamp]) -> date | None:
    """The date of a banner, read in the same day/month order as the file's stamps."""
    order, _ = date_order([banner, *stamps])
    return stamp_date(banner, order)


class StampResolver:
    """Turns stamps into datetimes one at a time (streaming), with midnight roll-over.

    The day/month order is decided from the first stamp and the banner; :func:`resolve_stamps`
    decides it from all stamps, and a caller that streams compares the two at the end.
    """

    def __init__(self, base: RawStamp | None = None, order: str | None = None):
        self.base = base
        self.order = order
        self.base_day: date | None = None
        self.prev: datetime | None = None
        self.shift = timedelta(0)
        self.notes: list[str] = []
        if order is not None:
            self._set_order(order)

    def _set_order(self, order: str) -> None:
        self.order = order
        self.base_day = stamp_date(self.base, order) if self.base is not None else None

    def add(self, s: RawStamp) -> datetime:
        if self.order is None:
            self._set_order(date_order([s, *([self.base] if self.base else [])])[0])
        try:
            dt = stamp_datetime(s, self.order or "MDY")
        except ValueError:
            if self.order not in ("MDY", "DMY"):
                raise
            # a day above 12 came late: the dates were day/month (or month/day) all along
            other = "DMY" if self.order == "MDY" else "MDY"
            dt = stamp_datetime(s, other)
            self._set_order(other)
        if not s.date_parts:
            if self.base_day is not None:
                dt = datetime.combine(self.base_day, dt.time())
            dt += self.shift
            if self.prev is not None and dt < self.prev - timedelta(hours=12):
                self.shift += timedelta(days=1)
                dt += timedelta(days=1)
                if len(self.notes) < 3:
                    self.notes.append(f"time went back from {self.prev.time()} to {s.text}: counted as the next day")
        self.prev = dt
        return dt


def resolve_stamps(stamps: list[RawStamp], base: RawStamp | None = None) -> tuple[list[datetime], list[str]]:
    """Turn raw stamps into datetimes, handling date order and midnight roll-over.

    ``base`` (the banner's date) dates stamps that print only a time; those roll
    over to the next day when the clock goes back. Returns the datetimes and
    human-readable notes about assumptions made.
    """
    order, ambiguous = date_order([*stamps, *([base] if base else [])])
    r = StampResolver(base, order)
    out = [r.add(s) for s in stamps]
    notes = (["day/month order of the dates is ambiguous; read them as month/day/year (C locale)"]
             if ambiguous else []) + r.notes
    return out, notes
