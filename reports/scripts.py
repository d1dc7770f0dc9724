"""Every script on the page (no Qt, no reportlab here): right-to-left text in visual order with Arabic letters
joined, and the runs of text that need the CJK font.

reportlab draws characters in the order it is given them, one font per run, and does not shape Arabic. Names from
the customer's files may be Hebrew, Arabic, Chinese or Japanese, so before a text is drawn:

* ``visual(s)``: each right-to-left run (Hebrew, Arabic, and the spaces, punctuation and numbers between its
  letters) is reversed into the order it is read on paper, numbers inside it keeping their own left-to-right
  order and brackets mirrored; Arabic letters are first replaced by their joined forms (Unicode's presentation
  forms B: isolated, final, initial, medial; lam-alef ligatures), which is what an Arabic reader expects to see.
  A text with no right-to-left letter is returned unchanged; the text as stored is never changed.
* ``cjk_runs(s)``: the text cut into (run, is_cjk) pieces, so that Chinese, Japanese and Korean characters are
  drawn with the CJK font (DejaVu Sans has none of them: they printed as empty boxes).

This is the rule for the names a report prints (a run or host name in a line of English), not the whole Unicode
bidirectional algorithm: a paragraph written right to left would need that.
"""

from __future__ import annotations

import re

# base letter -> first presentation form; 4 forms (isolated, final, initial, medial) or 2 (isolated, final: the
# letter joins only to the letter before it)
_FORMS4 = {"\u0626": 0xFE89, "\u0628": 0xFE8F, "\u062A": 0xFE95, "\u062B": 0xFE99, "\u062C": 0xFE9D,
           "\u062D": 0xFEA1, "\u062E": 0xFEA5, "\u0633": 0xFEB1, "\u0634": 0xFEB5, "\u0635": 0xFEB9,
           "\u0636": 0xFEBD, "\u0637": 0xFEC1, "\u0638": 0xFEC5, "\u0639": 0xFEC9, "\u063A": 0xFECD,
           "\u0641": 0xFED1, "\u0642": 0xFED5, "\u0643": 0xFED9, "\u0644": 0xFEDD, "\u0645": 0xFEE1,
           "\u0646": 0xFEE5, "\u0647": 0xFEE9, "\u064A": 0xFEF1}
_FORMS2 = {"\u0622": 0xFE81, "\u0623": 0xFE83, "\u0624": 0xFE85, "\u0625": 0xFE87, "\u0627": 0xFE8D,
           "\u0629": 0xFE93, "\u062F": 0xFEA9, "\u0630": 0xFEAB, "\u0631": 0xFEAD, "\u0632": 0xFEAF,
           "\u0648": 0xFEED, "\u0649": 0xFEEF}
_LAM_ALEF = {"\u0622": 0xFEF5, "\u0623": 0xFEF7, "\u0625": 0xFEF9, "\u0627": 0xFEFB}  # lam + alef: isolated, final
_MARKS = re.compile(r"[\u064B-\u065F\u0670]")  # harakat: transparent to joining
_RTL = re.compile(r"[\u0590-\u05FF\u0600-\u06FF\u0750-\u077F\uFB1D-\uFDFF\uFE70-\uFEFF]")
_RUN = re.compile(r"[\u0590-\u05FF\u0600-\u06FF\u0750-\u077F\uFB1D-\uFDFF\uFE70-\uFEFF]"
                  r"(?:[^A-Za-z\u00C0-\u024F\u0370-\u03FF\u0400-\u04FF]*"
                  r"[\u0590-\u05FF\u0600-\u06FF\u0750-\u077F\uFB1D-\uFDFF\uFE70-\uFEFF])?")
_NUMBER = re.compile(r"[0-9]+(?:[.,:][0-9]+)*")
_MIRROR = str.maketrans("()[]{}<>", ")(][}{><")
_CJK = re.compile(r"[\u1100-\u11FF\u2E80-\u2FDF\u3000-\u303F\u3040-\u30FF\u3100-\u31FF\u3200-\u9FFF\uA960-\uA97F"
                  r"\uAC00-\uD7FF\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFFEF\U00020000-\U0003FFFF]+")


def _joins_forward(ch: str) -> bool:
    return ch in _FORMS4


def _letter(ch: str) -> bool:
    return ch in _FORMS4 or ch in _FORMS2


def shape(s: str) -> str:
    """Arabic letters in their joined forms (logical order kept); other characters unchanged."""
    if not any(_letter(c) for c in s):
        return s
    chars = list(s)
    out: list[str] = []
    i = 0
    n = len(chars)

    def neighbour(k: int, step: int) -> str:
        k += step
        while 0 <= k < n and _MARKS.match(chars[k]):
            k += step
        return chars[k] if 0 <= k < n else ""

    while i < n:
        c = chars[i]
        if not _letter(c):
            out.append(c)
            i += 1
            continue
        prev = neighbour(i, -1)
        joins_prev = _joins_forward(prev) and _letter(prev)
        nxt = neighbour(i, +1)
        if c == "\u0644" and nxt in _LAM_ALEF:  # lam-alef: one ligature
            out.append(chr(_LAM_ALEF[nxt] + (1 if joins_prev else 0)))
            k = i + 1
            while k < n and _MARKS.match(chars[k]):
                k += 1
            i = k + 1
            continue
        joins_next = _joins_forward(c) and _letter(nxt)
        base = _FORMS4.get(c) or _FORMS2[c]
        if c in _FORMS4:
            form = 3 if joins_prev and joins_next else 1 if joins_prev else 2 if joins_next else 0
        else:
            form = 1 if joins_prev else 0
        out.append(chr(base + form))
        i += 1
    return "".join(out)


def _reverse_run(run: str) -> str:
    """A right-to-left run in visual order: characters reversed, numbers kept left to right, brackets mirrored."""
    numbers: list[str] = []

    def keep(m: re.Match[str]) -> str:
        numbers.append(m.group(0))
        return f"\x00{len(numbers) - 1}\x00"

    held = _NUMBER.sub(keep, run)
    parts = re.split(r"(\x00\d+\x00)", held)
    out = []
    for p in reversed(parts):
        if p.startswith("\x00"):
            out.append(numbers[int(p.strip("\x00"))])
        else:
            out.append(p[::-1].translate(_MIRROR))
    return "".join(out)


def visual(s: str) -> str:
    """``s`` as it is drawn: its right-to-left runs shaped and in visual order (see the module doc)."""
    if not _RTL.search(s):
        return s
    return _RUN.sub(lambda m: _reverse_run(shape(m.group(0))), s)


def has_cjk(s: str) -> bool:
    return bool(_CJK.search(s))


def cjk_runs(s: str) -> list[tuple[str, bool]]:
    """``s`` cut into (piece, is_cjk) in order."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for m in _CJK.finditer(s):
        if m.start() > pos:
            out.append((s[pos:m.start()], False))
        out.append((m.group(0), True))
        pos = m.end()
    if pos < len(s):
        out.append((s[pos:], False))
    return out
