"""Writes parsers/locale_formats.py from glibc's locale sources: how each locale prints a date (%x, its d_fmt), a
time (%X, its t_fmt), its am/pm words, its decimal point, and -- where its dates name the month -- its month names.

sysstat prints its time stamps with strftime's %x and %X (iostat -t: "%x %X"; sar: the banner's date with %x, each
line's time with %X), in the locale of LC_TIME; its numbers with the decimal point of LC_NUMERIC. These are the facts
parsers/dates.py weighs as the file's own words: the locales whose formats print what a file holds, and the day/month
order each of them writes.

sar also prints a summary label after each report, translated by sysstat's message catalogues ("Average:" in
English and in every language sysstat has no catalogue for): the label says the language of LC_MESSAGES.

Run on Debian 12 with the packages `locales` 2.36-9+deb12u14 (glibc 2.36) and `sysstat` 12.6.1-1:
    python3 tests/corpus/locales/derive_locale_formats.py /usr/share/i18n/locales /usr/share/locale \
        > parsers/locale_formats.py
"""

from __future__ import annotations

import os
import pprint
import re
import sys
import textwrap
from collections import defaultdict

KEYS = {"LC_TIME": ("d_fmt", "t_fmt", "t_fmt_ampm", "am_pm", "abmon", "mon"), "LC_NUMERIC": ("decimal_point",)}


def _unescape(s: str, esc: str) -> str:
    s = re.sub(r"<U([0-9A-Fa-f]{4,8})>", lambda m: chr(int(m.group(1), 16)), s)
    out, i = [], 0
    while i < len(s):
        if s[i] == esc and i + 1 < len(s):
            out.append(s[i + 1])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def _parse(src: str, name: str, cache: dict[str, dict]) -> dict:
    if name in cache:
        return cache[name]
    path = os.path.join(src, name)
    cache[name] = {}
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    m = re.search(r"^escape_char\s+(\S)", text, re.M)
    esc = m.group(1) if m else "\\"
    m = re.search(r"^comment_char\s+(\S)", text, re.M)
    com = m.group(1) if m else "#"
    lines, buf = [], ""
    for ln in text.split("\n"):
        if ln.lstrip().startswith(com):
            continue
        if ln.rstrip().endswith(esc) and not ln.rstrip().endswith(esc * 2):
            buf += ln.rstrip()[:-1]
            continue
        lines.append(buf + ln)
        buf = ""
    out: dict[str, dict[str, list[str]]] = {}
    cat = None
    for ln in lines:
        s = ln.strip()
        if s in KEYS:
            cat = s
            out.setdefault(cat, {})
            continue
        if s.startswith("END "):
            cat = None
            continue
        if cat is None or not s:
            continue
        m = re.match(r"copy\s+\"([^\"]+)\"", s)
        if m:
            for k, v in _parse(src, m.group(1), cache).get(cat, {}).items():
                out[cat].setdefault(k, v)
            continue
        parts = s.split(None, 1)
        if parts[0] in KEYS[cat] and len(parts) == 2:
            out[cat][parts[0]] = [_unescape(v, esc) for v in re.findall(r"\"([^\"]*)\"", parts[1])]
    cache[name] = out
    return out


def _expand(fmt: str, ampm_fmt: str) -> str:
    for a, b in (("%r", ampm_fmt or "%I:%M:%S %p"), ("%T", "%H:%M:%S"), ("%R", "%H:%M"), ("%D", "%m/%d/%y"),
                 ("%F", "%Y-%m-%d")):
        fmt = fmt.replace(a, b)
    return fmt


def _labels(messages: str) -> dict[str, str]:
    """sysstat's translation of "Average:" per language (its message catalogues)."""
    import gettext
    import glob

    out = {}
    for mo in sorted(glob.glob(os.path.join(messages, "*", "LC_MESSAGES", "sysstat.mo"))):
        lang = mo.split(os.sep)[-3]
        with open(mo, "rb") as fh:
            text = gettext.GNUTranslations(fh).gettext("Average:")
        if text != "Average:":
            out[lang] = text
    return out


def main() -> None:
    src = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/i18n/locales"
    messages = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/locale"
    cache: dict[str, dict] = {}
    rows: dict[tuple, list[str]] = defaultdict(list)
    months: dict[str, tuple[str, ...]] = {}
    ampms: set[tuple[str, ...]] = {("AM", "PM")}
    entries = {"C": {"d_fmt": "%m/%d/%y", "t_fmt": "%H:%M:%S", "ampm": ("AM", "PM"), "dp": "."}}
    for name in sorted(os.listdir(src)):
        if "_" not in name or name.startswith(("translit", "iso", "i18n")):
            continue
        d = _parse(src, name, cache)
        t, n = d.get("LC_TIME", {}), d.get("LC_NUMERIC", {})
        if not t.get("d_fmt") or not (t.get("t_fmt") or [""])[0]:
            continue
        ampm_fmt = (t.get("t_fmt_ampm") or [""])[0]
        if len(t.get("am_pm") or ()) == 2 and all(t["am_pm"]):
            ampms.add(tuple(t["am_pm"]))
        entries[name] = {"d_fmt": _expand(t["d_fmt"][0], ampm_fmt), "t_fmt": _expand(t["t_fmt"][0], ampm_fmt),
                         "ampm": tuple(t.get("am_pm") or ()), "dp": (n.get("decimal_point") or ["."])[0]}
        if re.search(r"%[bBh]", t["d_fmt"][0]) and len(t.get("abmon", [])) == 12 and len(t.get("mon", [])) == 12:
            months[name] = tuple(t["abmon"]) + tuple(t["mon"])
    for name, e in entries.items():
        uses_ampm = "%p" in e["t_fmt"] or "%P" in e["t_fmt"]
        rows[(e["d_fmt"], e["t_fmt"], e["ampm"] if uses_ampm else (), e["dp"])].append(name)
    print('"""How every glibc locale prints a date (%x) and a time (%X), its am/pm words and decimal point, and the '
          'month\nnames of those whose dates name the month, and sar\'s summary label in each language. GENERATED '
          'from glibc 2.36\'s\nlocale sources (Debian 12, package `locales` 2.36-9+deb12u14) and sysstat 12.6.1\'s '
          'message catalogues by\ntests/corpus/locales/derive_locale_formats.py: do not edit by hand. Read by '
          'parsers/dates.py."""\n')
    print("# (d_fmt, t_fmt, (am, pm) when t_fmt prints them, decimal point): the locales that print so")
    print("FORMATS: tuple[tuple[str, str, tuple[str, ...], str, tuple[str, ...]], ...] = (")
    for (dfmt, tfmt, ampm, dp), names in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[1])):
        print(f"    ({dfmt!r}, {tfmt!r}, {ampm!r}, {dp!r},")
        print(textwrap.indent(pprint.pformat(tuple(names), width=110), "     ") + "),")
    print(")\n")
    print("# the abbreviated then the full month names (January first) of the locales whose dates name the month")
    print("MONTHS: dict[str, tuple[str, ...]] = {")
    for name, ms in sorted(months.items()):
        print(f"    {name!r}:")
        print(textwrap.indent(pprint.pformat(ms, width=110), "        ") + ",")
    print("}\n")
    print("# every locale's (morning, afternoon) words, whether or not its %X prints them")
    print("AMPM: tuple[tuple[str, ...], ...] = (")
    for pair in sorted(ampms):
        print(f"    {pair!r},")
    print(")\n")
    print('# sysstat 12.6.1\'s "Average:" in each language it translates (its message catalogues, sysstat.mo); any')
    print('# other language prints "Average:"')
    print("AVERAGE_LABELS: dict[str, str] = {")
    for lang, text in sorted(_labels(messages).items()):
        print(f"    {lang!r}: {text!r},")
    print("}")


if __name__ == "__main__":
    main()
