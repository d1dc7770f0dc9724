"""Locale-tolerant parsing of the dates, times and numbers that tools print."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from parsers.dates import ORDER_NAMES, Dated, Decision, Words, ampm_words, decide, read

# the morning and afternoon words of every glibc locale (parsers.dates), each on its own (not inside a word)
_AM_WORDS, _PM_WORDS = ampm_words()


def _word_re(words: frozenset[str]) -> re.Pattern[str]:
    alts = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![^\W\d_])(?:{alts})(?![^\W\d_])", re.IGNORECASE)


_AM = _word_re(_AM_WORDS)
_PM = _word_re(_PM_WORDS)
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


_DATE = re.compile(r"(\d{1,4})\s*([./-]|年|년)\s*(\d{1,2})\s*(?:[./-]|月|월)\s*(\d{1,4})\s*[日일]?")
_TIME = re.compile(r"(\d{1,2})\s*[:时時시]\s*(\d{2})(?:\s*[:分분]\s*(\d{2}))?\s*[秒초]?")


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
    clock = _TIME.sub(" ", _DATE.sub(" ", s, count=1), count=1)  # (a marker word, not the digits of a date)
    ampm = "PM" if _PM.search(clock) else ("AM" if _AM.search(clock) else None)
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


def stamp_date(s: RawStamp, order: str) -> date | None:
    if not s.date_parts:
        return None
    a, b, c = s.date_parts
    year_first = s.date_sep.startswith("Y")
    return read((a, b, c), year_first, order if not year_first or order in ("YMD", "YDM") else "YMD")


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


def _seconds(s: RawStamp) -> float | None:
    if s.hms is None:
        return None
    h, m, sec = s.hms
    if s.ampm == "AM" and h == 12:
        h = 0
    elif s.ampm == "PM" and h < 12:
        h += 12
    return h * 3600 + m * 60 + sec


def dated(stamps: list[RawStamp]) -> list[Dated]:
    """The stamps that print a date, as :func:`parsers.dates.decide` weighs them."""
    return [Dated((s.date_parts[0], s.date_parts[1], s.date_parts[2]), s.date_sep.startswith("Y"), _seconds(s),
                  s.text) for s in stamps if s.date_parts]


DATE_ORDER_FIX = "{fix:date_order}"


@dataclass
class Dating:
    """A file's stamps as datetimes, the day/month order they were read in and why (``meta``: ``date_order``, and
    ``date_reading`` when the file reads both ways: the order stored and, for each other reading, what each stored
    date would be), and the warning that asks the user when the evidence could not decide."""

    times: list[datetime]
    decision: Decision
    meta: dict[str, Any] = field(default_factory=dict)
    warning: str | None = None
    notes: list[str] = field(default_factory=list)


def date_stamps(stamps: list[RawStamp], base: RawStamp | None = None, words: Words | None = None,
                given: str | None = None, system: str | None = None) -> Dating:
    """Every stamp of a file (and its banner's date ``base``, which dates stamps that print a time only) as a
    datetime, in the day/month order the evidence decides (:func:`parsers.dates.decide`); ``given``: the user's
    answer, for a file that reads both ways."""
    decision = decide(dated([*([base] if base else []), *stamps]), words, given=given, system=system)
    r = StampResolver(base, decision.order)
    times = [r.add(s) for s in stamps]
    out = Dating(times, decision, {"date_order": decision.note}, notes=r.notes)
    if decision.decided:
        return out
    others: dict[str, dict[str, str]] = {}
    for order in decision.readings[1:]:
        other = StampResolver(base, order)
        mapping: dict[str, str] = {}
        if base is not None and base.date_parts:
            b0, b1 = stamp_date(base, decision.order), stamp_date(base, order)
            if b0 is not None and b1 is not None:
                mapping[b0.isoformat()] = b1.isoformat()
        for s, t in zip(stamps, times):
            mapping.setdefault(t.date().isoformat(), other.add(s).date().isoformat())
        others[order] = mapping
    out.meta["date_reading"] = {"stored": decision.order, "others": others}
    sample = next((s.text for s in [*([base] if base else []), *stamps] if s.date_parts), "")
    ways = " or ".join(f"{ORDER_NAMES[o]}" for o in decision.readings)
    out.warning = (f"the dates read both ways ({sample!r}: {ways}) and nothing in the file decides which: they are "
                   f"stored read {ORDER_NAMES[decision.order]} until you say which with {DATE_ORDER_FIX}")
    return out
