"""The day/month order of a file's dates, decided from evidence -- never guessed -- and the words of 12-hour clocks.

A date printed ``05/03/26`` is 5 March in one locale and 3 May in another. Read the wrong way, every time axis and
period of a report is wrong, silently. So the order is decided from evidence, in this order, and the evidence is
said in ``runs.meta.date_order``:

1. **the file's own words**: how every locale of glibc prints a date (``%x``) and a time (``%X``), its am/pm words and
   its decimal point (:mod:`parsers.locale_formats`, derived from glibc's locale sources), and sar's summary label in
   each language sysstat translates. The locales that print what the file holds -- its dates and times, its decimal
   commas, its label (``Moyenne :`` is French), its month names, where its 4-digit year stands -- either all write the
   day first (or all the month), or they do not agree;
2. **every date in the file**: a value over 12 (``31/12/26``) or a date that does not exist one way (``30/02``); a
   roll-over that is one interval read one way and weeks read the other (``05/03/26 23:59:59`` then
   ``06/03/26 00:00:00``); an order under which the time would go back;
3. **the file's neighbours** in the same drop (same host, same tool): decided by :mod:`app.importer`, not here.

Where the evidence cannot decide, the caller stores the month-first reading (the C locale's, sysstat's default)
*as undecided* -- ``runs.meta.date_reading`` holds both readings -- and the user is asked (the window once per drop,
the command line by an option). 2-digit years are read as POSIX does (00-68: 20xx, 69-99: 19xx), and said.

No Qt, no DuckDB: a parser-side leaf (it reads :mod:`parsers.locale_formats` only).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import cache

from parsers.locale_formats import AMPM, AVERAGE_LABELS, FORMATS, MONTHS

ORDER_NAMES = {"DMY": "day/month/year", "MDY": "month/day/year", "YMD": "year/month/day", "YDM": "year/day/month"}
ORDER_WORDS = {"DMY": "day first", "MDY": "month first", "YMD": "year first", "YDM": "year first, then the day"}
ASSUMED = "MDY"  # the C locale's (sysstat's default): what an undecided file is stored as until the user says


# ---- the locales' formats as patterns --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Form:
    """How a group of locales prints dates and times: ``order`` of its date fields (None: its dates name no order we
    read: era years, other digits), its patterns, decimal point, and the message languages of its locales."""

    locales: tuple[str, ...]
    order: str | None
    date: re.Pattern[str] | None
    time: re.Pattern[str] | None
    decimal: str
    ampm: tuple[str, ...]
    languages: frozenset[str]


def _words(names: Iterable[str]) -> str:
    return "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True) if n)


# strftime conversions: (regular expression, zero-padded: "{pad}", date field it prints)
_CONVERSIONS: dict[str, tuple[str, str]] = {
    "d": ("(?P<d>{pad})", "D"), "e": (r"\s?(?P<d>[1-9]\d?)", "D"), "m": ("(?P<m>{pad})", "M"),
    "y": (r"(?P<y>\d{{2}})", "Y"), "Y": (r"(?P<y>\d{{4}})", "Y"), "a": (r"[^\s\d,]+", ""), "A": (r"[^\s\d,]+", ""),
    "H": ("{pad}", ""), "I": ("{pad}", ""), "M": ("{pad}", ""), "S": ("{pad}", ""), "k": (r"\s?\d\d?", ""),
    "l": (r"\s?[1-9]\d?", ""), "Z": (r"[A-Za-z]{{0,6}}", ""), "z": (r"[+-]\d{{4}}", ""), "n": (r"\s+", ""),
    "t": (r"\s+", ""), "%": ("%", ""),
}


def _pattern(fmt: str, ampm: tuple[str, ...], months: tuple[str, ...]) -> tuple[str, str] | None:
    """A strftime format as a regular expression with groups d, m, y (and mn: a month name), and its date order; None
    for formats printing era years or other digits (``%E``, ``%O``, ``%C``) or conversions not listed."""
    out, order = [], []
    for m in re.finditer(r"%([-_0^#]?)(.)|(\s+)|(.)", fmt, re.S):
        flag, conv, blank, char = m.groups()
        if blank is not None:
            out.append(r"\s+")
        elif char is not None:
            out.append(re.escape(char))
        elif conv in "bBh":
            out.append("(?P<mn>" + (_words(months) if months else r"[^\s\d]+") + ")")
            order.append("M")
        elif conv in "pP":
            words = _words(ampm)
            if not words:
                return None
            out.append(f"(?:{words})" if conv == "p" else f"(?i:{words})")
        elif conv in _CONVERSIONS:
            rx, field_ = _CONVERSIONS[conv]
            out.append(rx.format(pad=r"[1-9]\d?" if flag == "-" else r"\d{2}"))  # %-d: never a leading zero
            order.append(field_)
        else:
            return None
    return "".join(out), "".join(order)


def _language(locale: str) -> str:
    """The language of sysstat's messages in this locale: its catalogue for the locale's country, else its language,
    else none (English)."""
    if locale == "C":
        return "C"
    base = locale.split("@")[0].split(".")[0]
    if base in AVERAGE_LABELS:
        return base
    return base.split("_")[0]


@cache
def forms() -> tuple[Form, ...]:
    out = []
    for dfmt, tfmt, ampm, decimal, names in FORMATS:
        months = next((MONTHS[n] for n in names if n in MONTHS), ())
        dp = _pattern(dfmt, ampm, months)
        tp = _pattern(tfmt, ampm, ())
        order = dp[1] if dp is not None and sorted(dp[1]) == ["D", "M", "Y"] else None
        out.append(Form(tuple(names), order,
                        re.compile(dp[0]) if dp else None, re.compile(tp[0]) if tp else None, decimal,
                        tuple(ampm), frozenset(_language(n) for n in names)))
    return tuple(out)


# ---- 12-hour clocks ----------------------------------------------------------------------------------------------
@cache
def ampm_words() -> tuple[frozenset[str], frozenset[str]]:
    """Every word glibc's locales print for the morning and for the afternoon (a word that means both in some locale
    is in neither)."""
    am = {a for a, _p in AMPM}
    pm = {p for _a, p in AMPM}
    am |= {"AM", "am", "a.m.", "a. m."}
    pm |= {"PM", "pm", "p.m.", "p. m."}
    both = am & pm
    return frozenset(am - both), frozenset(pm - both)


@cache
def ampm_pattern() -> str:
    """A regular expression of every am/pm word (the longest first)."""
    am, pm = ampm_words()
    return _words(am | pm)


def is_pm(word: str) -> bool | None:
    """True for an afternoon word, False for a morning one, None for neither."""
    am, pm = ampm_words()
    if word in pm:
        return True
    if word in am:
        return False
    return None


# ---- the file's words ------------------------------------------------------------------------------------------------
def _squeeze(label: str) -> str:
    return re.sub(r"\s+", "", label.replace("\u202f", " ").replace("\xa0", " "))


_LABEL_LANGUAGES: dict[str, frozenset[str]] = {}
for _lang, _text in AVERAGE_LABELS.items():
    _LABEL_LANGUAGES[_squeeze(_text)] = _LABEL_LANGUAGES.get(_squeeze(_text), frozenset()) | {_lang}


@dataclass
class Words:
    """What a file prints that says its locale: its dates (``%x``), times (``%X``), stamps (``%x %X``), whether its
    numbers have decimal commas (None: no number says), and sar's summary label."""

    dates: list[str] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    stamps: list[str] = field(default_factory=list)
    decimal_comma: bool | None = None
    label: str | None = None

    def add_date(self, text: str) -> None:
        _keep(self.dates, text.strip())

    def add_time(self, text: str) -> None:
        _keep(self.times, text.strip())

    def add_stamp(self, text: str) -> None:
        _keep(self.stamps, text.strip())


def _keep(items: list[str], text: str, most: int = 4) -> None:
    """A few distinct samples (the first ones and the latest): enough to match a format, bounded for a long file."""
    if not text or text in items:
        return
    if len(items) >= most:
        items[-1] = text
    else:
        items.append(text)


def _label_allows(label: str | None, form: Form) -> bool:
    if label is None:
        return True
    key = _squeeze(label)
    if key == "Average:":
        return any(lang not in AVERAGE_LABELS for lang in form.languages)
    langs = _LABEL_LANGUAGES.get(key)
    if langs is None:  # a label this table does not know (another sysstat release): no evidence
        return True
    return bool(langs & form.languages)


def matching_forms(words: Words) -> list[Form]:
    """The locales' forms that print everything ``words`` holds."""
    out = []
    for f in forms():
        if f.order is None or f.date is None or f.time is None:
            continue
        if words.decimal_comma is not None and (f.decimal == ",") != words.decimal_comma:
            continue
        if not _label_allows(words.label, f):
            continue
        if not all(f.date.fullmatch(d) for d in words.dates):
            continue
        if not all(f.time.fullmatch(t) for t in words.times):
            continue
        if words.stamps:
            both = re.compile(rf"{f.date.pattern}\s+{f.time.pattern}")
            if not all(both.fullmatch(s) for s in words.stamps):
                continue
        out.append(f)
    return out


def month_number(name: str) -> int | None:
    """The month a glibc locale's (abbreviated or full) month name means, when every locale that has the name agrees
    (``mars`` is March in French and Norwegian; ``Dec`` is December)."""
    key = name.strip().rstrip(".").casefold()
    found = {i % 12 + 1 for ms in MONTHS.values() for i, n in enumerate(ms) if n.strip().rstrip(".").casefold() == key}
    found |= {i + 1 for i, n in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                            "dec")) if n == key}
    return next(iter(found)) if len(found) == 1 else None


# ---- the decision ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Dated:
    """One printed date: its three numbers as printed (year first when ``year_first``), the time of day printed with
    it (seconds; None: none), and its text."""

    parts: tuple[int, int, int]
    year_first: bool
    seconds: float | None
    text: str


@dataclass(frozen=True)
class Decision:
    """The order dates are read in, whether the evidence decided it (else ``readings`` are the orders the file
    allows, the first being the one stored until the user says), and in words how (``runs.meta.date_order``)."""

    order: str
    decided: bool
    how: str
    readings: tuple[str, ...] = ()
    two_digit_year: bool = False

    @property
    def note(self) -> str:
        """``runs.meta.date_order``: the order and its evidence."""
        return f"{ORDER_NAMES[self.order]} ({self.how})"


def _year(y: int) -> int:
    if y >= 100:
        return y
    return 2000 + y if y < 69 else 1900 + y


def read(parts: tuple[int, int, int], year_first: bool, order: str) -> date:
    """The date of ``parts`` in ``order`` (ValueError when there is none)."""
    a, b, c = parts
    if year_first:
        return date(_year(a), c, b) if order == "YDM" else date(_year(a), b, c)
    if order == "DMY":
        return date(_year(c), b, a)
    if order == "YMD":
        return date(_year(a), b, c)
    return date(_year(c), a, b)


def _universe(dated: Sequence[Dated], forms_found: list[Form], first: date | None) -> tuple[str, ...]:
    """The orders a file's dates could be in: year first (4 digits) or not; a 2-digit year first only where a locale
    that prints what the file holds writes it so, and its dates are then possible."""
    if any(d.year_first for d in dated):
        return ("YMD", "YDM") if any(f.order == "YDM" for f in forms_found) else ("YMD",)
    orders = ["MDY", "DMY"]
    if any(f.order == "YMD" for f in forms_found) and _valid(dated, "YMD", first):
        orders.append("YMD")
    return tuple(orders)


def _valid(dated: Sequence[Dated], order: str, not_before: date | None = None) -> bool:
    return not _first_impossible(dated, order, not_before)


def _first_impossible(dated: Sequence[Dated], order: str, not_before: date | None = None) -> str:
    """The first date that does not exist read in ``order`` (or lies before ``not_before``), as printed."""
    for d in dated:
        try:
            day = read(d.parts, d.year_first, order)
        except ValueError:
            return d.text
        if not_before is not None and day < not_before:
            return d.text
    return ""


# the first release of each Linux major version: a date printed by a kernel's tools is not before it
LINUX_RELEASES = {2: date(1996, 6, 9), 3: date(2011, 7, 21), 4: date(2015, 4, 12), 5: date(2019, 3, 3),
                  6: date(2022, 10, 2)}


def not_before(os_name: str | None) -> date | None:
    """The first day a file printed by this system can be dated (its Linux kernel's major release), or None."""
    m = re.match(r"(?:GNU/)?Linux\s+(\d+)\.", os_name or "")
    return LINUX_RELEASES.get(int(m.group(1))) if m else None


def _stamps(dated: Sequence[Dated], order: str) -> list[datetime]:
    return [datetime.combine(read(d.parts, d.year_first, order), datetime.min.time())
            + timedelta(seconds=d.seconds or 0.0) for d in dated]


def _span(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} hours"
    return f"{seconds / 86400:.0f} days"


def _rollover(dated: Sequence[Dated], orders: list[str], interval: float | None) -> tuple[list[str], str]:
    """The orders under which every change of date in the stamps is a step like the others (the interval), and why
    the others are not: a step of weeks, or the time going back."""
    timed = [d for d in dated if d.seconds is not None]
    if len(timed) < 2 or len({d.text.split()[0] if d.text else d.parts for d in timed}) < 2:
        return orders, ""
    pairs = [(a, b) for a, b in zip(timed, timed[1:]) if a.parts != b.parts]
    if not pairs:
        return orders, ""
    if interval is None:
        secs = [d.seconds or 0.0 for d in timed]
        same = [y - x for (a, x), (b, y) in zip(zip(timed, secs), zip(timed[1:], secs[1:]))
                if a.parts == b.parts and y > x]
        interval = statistics.median(same) if same else None
    gaps = {o: [(_stamps([b], o)[0] - _stamps([a], o)[0]).total_seconds() for a, b in pairs] for o in orders}
    if interval is None:  # every step changes the date: the order whose steps are the shortest, if others are weeks
        interval = min(statistics.median(g) for g in gaps.values())
    limit = max(3 * interval, interval + 60.0)
    fits = [o for o in orders if all(0 < g <= limit for g in gaps[o])]
    if not fits or len(fits) == len(orders):
        return orders, ""
    a, b = pairs[next(i for i, _p in enumerate(pairs) if any(not 0 < gaps[o][i] <= limit for o in orders))]
    i = pairs.index((a, b))
    ways = "; ".join(f"{_span(gaps[o][i]) if gaps[o][i] > 0 else 'back in time'} read {ORDER_NAMES[o]}"
                     for o in orders)
    return fits, f"the date changes from {a.text} to {b.text}: {ways}"


def decide(dated: Sequence[Dated], words: Words | None = None, *, interval: float | None = None,
           given: str | None = None, system: str | None = None) -> Decision:
    """The order of ``dated`` (every printed date of the file, with its time of day, in file order), from the file's
    ``words`` and the dates themselves; ``given``: the user's answer (``DMY``/``MDY``), used where the evidence
    allows both. ``interval``: the seconds between samples, when known otherwise; ``system``: the banner's system
    (``Linux 6.18.44``): a date before its kernel's first release does not exist."""
    found = matching_forms(words) if words is not None else []
    first = not_before(system)
    distinct = list({(d.parts, d.year_first): d for d in dated}.values())
    universe = list(_universe(distinct, found, first))
    two_digit = any(not d.year_first and d.parts[2] < 100 for d in dated)
    if not dated:
        return Decision(universe[0], True, "no date printed")
    possible = [o for o in universe if _valid(distinct, o, first)]
    if not possible:
        raise ValueError("no order of day and month reads every date")
    reasons: list[str] = []
    left = list(universe)
    said = [o for o in left if o in possible and any(f.order == o for f in found)]
    if said and len(said) < len([o for o in left if o in possible]) and words is not None:  # 1. the file's words
        locales = sorted({n for f in found if f.order in said for n in f.locales}, key=lambda n: (n != "C", n))
        shown = ", ".join(locales[:4]) + (f" and {len(locales) - 4} more" if len(locales) > 4 else "")
        reasons.append(f"the file's words: {_what_words(words)} are printed by the locales {shown} only")
        left = said
    if any(o not in possible for o in left):  # 2. a date that does not exist one way (a value over 12)
        gone = next(o for o in left if o not in possible)
        bad = _first_impossible(distinct, gone)
        reasons.append(f"the date {bad} does not exist read {ORDER_NAMES[gone]}" if bad else
                       f"read {ORDER_NAMES[gone]}, the date {_first_impossible(distinct, gone, first)} is before the "
                       f"first release of the file's kernel ({system}, {first})")
        left = [o for o in left if o in possible]
    if len(left) > 1:
        fits, why = _rollover(dated, left, interval)
        if why:
            reasons.append(why)
            left = fits
    if len(left) > 1 and all(len({read(d.parts, d.year_first, o) for o in left}) == 1 for d in distinct):
        reasons.append("every date reads the same either way (its day and month are the same number)")
        left = left[:1]
    if len(left) == 1:
        how = "; ".join(reasons) or ("the year is printed first, then the month, as every locale that prints the "
                                     "year first in this layout does" if left[0] == "YMD" else "")
        return Decision(left[0], True, how + _century(two_digit), two_digit_year=two_digit)
    if given in left:
        assert given is not None
        return Decision(given, True, "as the user said: the file reads both ways" + _century(two_digit),
                        two_digit_year=two_digit)
    stored = ASSUMED if ASSUMED in left else left[0]
    readings = (stored, *[o for o in left if o != stored])
    return Decision(stored, False, "undecided: the file reads both ways; stored month first until the user says"
                    + _century(two_digit), readings=readings, two_digit_year=two_digit)


def _century(two_digit: bool) -> str:
    return "; 2-digit years read 2000-2068 and 1969-1999 (POSIX)" if two_digit else ""


def _what_words(words: Words) -> str:
    bits = []
    sample = (words.stamps or words.dates)[:1]
    if sample:
        bits.append(f"dates like {sample[0]!r}")
    if words.times and not words.stamps:
        bits.append(f"times like {words.times[0]!r}")
    if words.decimal_comma:
        bits.append("decimal commas")
    if words.label:
        bits.append(f"the summary label {words.label.strip()!r}")
    return ", ".join(bits)


def other_dates(dates: Iterable[date], parts_of: dict[date, tuple[tuple[int, int, int], bool]], other: str
                ) -> dict[str, str]:
    """For ``runs.meta.date_reading``: each stored date -> the date it is read the other way (ISO), from the numbers
    printed for it."""
    out = {}
    for d in sorted(set(dates)):
        printed = parts_of.get(d)
        if printed is None:
            continue
        out[d.isoformat()] = read(printed[0], printed[1], other).isoformat()
    return out
