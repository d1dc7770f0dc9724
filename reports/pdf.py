"""Render report content to PDF with reportlab (platypus). Headless: no Qt, no display.

* Charts are vector drawings; long series are decimated to the min and max of every point
  column, so peaks survive at any zoom.
* Untrusted text (file names, hosts, tags, notes) is escaped: markup in a host name prints literally.
* reportlab's invariant mode makes the same content give a byte-identical PDF.
"""

from __future__ import annotations

import io
import math
import re
from importlib import resources
from typing import Any
from xml.sax.saxutils import escape

from reportlab import rl_config
from reportlab.graphics.shapes import Circle, Drawing, Line, PolyLine, Rect, String
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4, letter
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas as rl_canvas
from reportlab.platypus import (
    BaseDocTemplate,
    CondPageBreak,
    Frame,
    Image,
    KeepTogether,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
    Table,
    TableStyle,
)

from app.safe_text import for_terminal
from reports.content import Chart, ReportContent
from reports.content import Table as ContentTable
from reports.options import version
from reports.scripts import cjk_runs, visual

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
MAX_TEXT = 20_000  # characters of one paragraph (the longest the report writes is about 2,000)
MAX_CELL = 90  # characters of untrusted text in a table cell (the appendix prints it in full)
FONT_FILES = {"SS-Regular": "DejaVuSans.ttf", "SS-Bold": "DejaVuSans-Bold.ttf"}  # shipped in reports/fonts/
CJK_FONT = "SS-CJK"  # Chinese, Japanese, Korean: DroidSansFallbackFull.ttf (TrueType outlines: embeddable)
CJK_FILE = "DroidSansFallbackFull.ttf"


def _fonts() -> tuple[str, str]:
    """DejaVu Sans, regular and bold (wide script coverage: Cyrillic, Greek, Hebrew, Arabic...), shipped with
    StormScope in reports/fonts/ and read through importlib.resources -- never a system font directory, so a
    report prints the same glyphs on every machine (a laptop without DejaVu printed a Cyrillic name as boxes)."""
    if all(name in pdfmetrics.getRegisteredFontNames() for name in FONT_FILES):
        return "SS-Regular", "SS-Bold"
    fonts = resources.files("reports") / "fonts"
    for name, file in FONT_FILES.items():
        with (fonts / file).open("rb") as f:  # reportlab reads the whole file: a package in a zip works too
            pdfmetrics.registerFont(TTFont(name, f))
    return "SS-Regular", "SS-Bold"


def _cjk() -> str:
    """The CJK font, registered the first time a report prints a CJK character (reading its 4 MB takes 0.2 s)."""
    if CJK_FONT not in pdfmetrics.getRegisteredFontNames():
        with (resources.files("reports") / "fonts" / CJK_FILE).open("rb") as f:
            pdfmetrics.registerFont(TTFont(CJK_FONT, f))
    return CJK_FONT


UNIT_SPACE = re.compile(r"(?<=\d) (?=(?:%|IOPS|ms|s|kB/s|MB/s|I/Os|disks?|GB|min|users?)(?![\w/]))")


def text(s: Any, bidi: bool = True) -> str:
    """Untrusted text for a Paragraph: escaped, so '<b>' prints as '<b>'; control and bidi characters written
    visibly (``<U+202E>``: a right-to-left override would reverse the text after it); at most MAX_TEXT characters
    (a name from a hostile file cannot stall the layout); a number and its unit are joined by a no-break space, so
    a line never ends between them ('95 %', '210 IOPS'); Hebrew and Arabic in visual order, Arabic joined
    (``bidi``: not for a piece of a text already reordered), Chinese, Japanese and Korean in the CJK font
    (reports.scripts)."""
    s = str(s)
    if len(s) > MAX_TEXT:
        s = s[:MAX_TEXT] + f"… (cut: {len(s):,} characters)"
    s = for_terminal(s, keep_lines=True)
    if bidi:
        s = visual(s)
    return "".join(f'<font name="{_cjk()}">{escape(run)}</font>' if cjk else escape(UNIT_SPACE.sub("\u00a0", run))
                   for run, cjk in cjk_runs(s))


def text_width(s: str, font: str, size: float) -> float:
    """The drawn width of ``s``: its CJK runs measured in the CJK font."""
    return sum(pdfmetrics.stringWidth(run, _cjk() if cjk else font, size) for run, cjk in cjk_runs(s))


def label_runs(s: str, font: str, size: float) -> list[tuple[str, str, float]]:
    """A label as drawn outside a Paragraph (charts, footer): in visual order, cut into (text, font, width) runs --
    CJK characters in the CJK font, the rest in ``font`` (the CJK font has no Latin letters)."""
    return [(run, _cjk() if cjk else font, pdfmetrics.stringWidth(run, _cjk() if cjk else font, size))
            for run, cjk in cjk_runs(visual(s))]


def add_label(d: Drawing, x: float, y: float, s: str, font: str, size: float, anchor: str = "start",
              **kw: Any) -> None:
    """A chart label at (x, y), anchored at its start, middle or end, one String per font run."""
    runs = label_runs(s, font, size)
    total = sum(w for _t, _f, w in runs)
    x0 = x - (total if anchor == "end" else total / 2 if anchor == "middle" else 0)
    for t, f, w in runs:
        d.add(String(x0, y, t, fontName=f, fontSize=size, **kw))
        x0 += w


def draw_label(c: Any, x: float, y: float, s: str, font: str, size: float, anchor: str = "start") -> None:
    """``add_label`` on a canvas (the footer and the confidentiality line)."""
    runs = label_runs(s, font, size)
    total = sum(w for _t, _f, w in runs)
    x0 = x - (total if anchor == "end" else total / 2 if anchor == "middle" else 0)
    for t, f, w in runs:
        c.setFont(f, size)
        c.drawString(x0, y, t)
        x0 += w


def cell(s: Any, limit: int = MAX_CELL) -> str:
    s = str(s)
    return text(s if len(s) <= limit else s[: limit - 1] + "…")


class _NumberedCanvas(rl_canvas.Canvas):
    """Two-pass page numbering: 'n / N' needs the page count."""

    footer_left = ""
    confidential = ""
    font = "Helvetica"

    def __init__(self, *args: Any, **kwargs: Any):
        # the font each page starts with (reportlab's default is Helvetica, which is not embedded): the report's own
        kwargs["initialFontName"] = kwargs.get("initialFontName") or self.font
        super().__init__(*args, **kwargs)
        self._saved: list[dict[str, Any]] = []
        self._marks: list[tuple[str, dict[str, Any]]] = []

    def bookmarkPage(self, key: str, **kw: Any) -> None:  # noqa: N802 (reportlab name)
        """Kept until the page is really written (save): a destination takes the page being written, and
        while pages are held back for numbering that would be the first page for every heading."""
        self._marks.append((key, kw))

    def showPage(self) -> None:  # noqa: N802 (reportlab name)
        self._saved.append(dict(self.__dict__))
        self._marks = []
        self._startPage()

    def save(self) -> None:
        n = len(self._saved)
        for state in self._saved:
            self.__dict__.update(state)
            for key, kw in state["_marks"]:
                rl_canvas.Canvas.bookmarkPage(self, key, **kw)
            if True:  # every page: page 1 holds the answers, no cover
                self.setFont(self.font, 8)
                self.setFillColor(colors.HexColor("#666666"))
                w, _h = self._pagesize
                self.drawRightString(w - 18 * mm, 10 * mm, f"{self._pageNumber} / {n}")
                draw_label(self, 18 * mm, 10 * mm, self.footer_left[:110], self.font, 8)
            if self.confidential:
                self.setFont(self.font, 8)
                self.setFillColor(colors.HexColor("#a00000"))
                w, _h = self._pagesize
                draw_label(self, w / 2, 5 * mm, self.confidential[:140], self.font, 8, "middle")
            super().showPage()
        self.showOutline()
        super().save()


class _Doc(BaseDocTemplate):
    """Headings become contents entries that link to them, and PDF bookmarks (the reader's outline)."""

    def afterFlowable(self, flowable: Any) -> None:  # noqa: N802 (reportlab name)
        level = getattr(flowable, "_toc_level", None)
        if isinstance(flowable, Paragraph) and level is not None:
            title = getattr(flowable, "_toc_title", None) or flowable.getPlainText()  # logical order
            key = f"s{getattr(flowable, '_toc_key', title)}"
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(title, key, level=level, closed=level > 0)
            self.notify("TOCEntry", (level, title, self.page, key))


def _styles(accent: str) -> dict[str, ParagraphStyle]:
    reg, bold = _fonts()
    base = getSampleStyleSheet()
    acc = colors.HexColor(accent)
    styles = {
        "body": ParagraphStyle("body", parent=base["BodyText"], fontName=reg, fontSize=9.5, leading=13,
                               splitLongWords=True),
        "small": ParagraphStyle("small", parent=base["BodyText"], fontName=reg, fontSize=7.5, leading=9.5,
                                textColor=colors.HexColor("#444444"), splitLongWords=True),
        "cell": ParagraphStyle("cell", fontName=reg, fontSize=7.5, leading=9, splitLongWords=True),
        "head": ParagraphStyle("head", fontName=bold, fontSize=7.5, leading=9, textColor=colors.white),
        "h1": ParagraphStyle("h1", fontName=bold, fontSize=15, leading=19, spaceBefore=6, spaceAfter=8,
                             textColor=acc, keepWithNext=1),
        "h2": ParagraphStyle("h2", fontName=bold, fontSize=10.5, leading=13, spaceBefore=8, spaceAfter=4,
                             textColor=acc, keepWithNext=1),
        "verdict": ParagraphStyle("verdict", parent=base["BodyText"], fontName=reg, fontSize=10.5, leading=15,
                                  leftIndent=10, bulletIndent=0, splitLongWords=True),
        "title": ParagraphStyle("title", fontName=bold, fontSize=20, leading=24, textColor=acc, spaceAfter=3,
                                splitLongWords=True),
        "subtitle": ParagraphStyle("subtitle", fontName=reg, fontSize=10, leading=13, spaceAfter=3,
                                   splitLongWords=True),
        "caption": ParagraphStyle("caption", fontName=reg, fontSize=7.5, leading=9, alignment=TA_CENTER,
                                  textColor=colors.HexColor("#555555")),
        "answer_q": ParagraphStyle("answer_q", fontName=bold, fontSize=10, leading=13, keepWithNext=1,
                                   splitLongWords=True),
        "answer": ParagraphStyle("answer", parent=base["BodyText"], fontName=reg, fontSize=9, leading=12,
                                 leftIndent=12, splitLongWords=True),
        "conclusion": ParagraphStyle("conclusion", parent=base["BodyText"], fontName=reg, fontSize=9, leading=12,
                                     leftIndent=12, bulletIndent=2, splitLongWords=True, spaceAfter=2),
    }
    for style in styles.values():  # a bullet is in the paragraph's font (reportlab's default: Helvetica, not embedded)
        style.bulletFontName = style.fontName
    return styles


def _heading(txt: str, style: ParagraphStyle, level: int, key: str = "") -> Paragraph:
    p = Paragraph(text(txt), style)
    p._toc_title = for_terminal(str(txt))  # the outline gets the text as written: a PDF reader orders it
    p._toc_level = level  # read by the report's table of contents (reportlab is untyped: no ignore needed)
    p._toc_key = key or txt
    return p


CELL_PAD = 3.0  # left and right padding of a table cell (points)
CELL_SIZES = (7.5, 7.0, 6.5, 6.0)  # font sizes a table may shrink to before names break at _ / . -
BREAK = re.compile(r"(?<=[_/])|(?<=[.-])(?=[A-Za-z])")  # where a name may wrap: after _ and /, after . and - before
#                                                    a letter (never inside a number: 36,340.0 stays whole)


def _tokens(s: str) -> list[str]:
    """The words of a cell as the PDF wraps it: a number and its unit stay one word (see ``text``)."""
    return [t for t in UNIT_SPACE.sub("\u00a0", s).split(" ") if t]


def _segments(tok: str) -> list[str]:
    return [p for p in BREAK.split(tok) if p]


def _break_long(s: str, room: float, font: str, size: float) -> str:
    """Escaped cell text; a token wider than ``room`` is broken (line breaks) at _ / . - only."""
    out = []
    for tok in UNIT_SPACE.sub("\u00a0", s).split(" "):
        if not tok or text_width(tok, font, size) <= room:
            out.append(text(tok, bidi=False))
            continue
        lines, cur = [], ""
        for seg in _segments(tok):
            if cur and text_width(cur + seg, font, size) > room:
                lines.append(cur)
                cur = seg
            else:
                cur += seg
        lines.append(cur)
        out.append("<br/>".join(text(x, bidi=False) for x in lines))
    return " ".join(out)


def _min_widths(cols: list[list[str]], size: float, split: bool, fonts: tuple[str, str]
                ) -> tuple[list[float], list[float]]:
    """Each column's narrowest width (its widest token, names broken at _ / . - when ``split``) and natural
    width (its longest cell on one line), padding included."""
    reg, bold = fonts
    mins: list[float] = []
    nats: list[float] = []
    for cells in cols:
        m = nat = 0.0
        for k, v in enumerate(cells):
            f = bold if k == 0 else reg
            toks = [x for tok in _tokens(v) for x in (_segments(tok) if split else [tok])]
            m = max([m] + [text_width(x, f, size) for x in toks])
            nat = max(nat, text_width(v, f, size))
        mins.append(m + 2 * CELL_PAD + 0.5)
        nats.append(max(nat + 2 * CELL_PAD + 0.5, mins[-1]))
    return mins, nats


MIN_COLUMN = 2 * CELL_PAD + 12.0  # the narrowest a column may get: a few characters beside its padding


def column_groups(header: list[str], rows: list[list[str]], width: float, fonts: tuple[str, str],
                  keep: int) -> list[list[int]]:
    """The columns of a table in groups that each fit the width at the smallest font: one group when the table
    fits; else the first ``keep`` columns (what a row is: a figure and its unit) repeated in every group and the
    others shared out in order (a comparison of 40 runs becomes several tables side by side, never columns too
    narrow to hold a character)."""
    n = len(header)
    cols = [[header[c]] + [r[c] for r in rows] for c in range(n)]
    mins, _nats = _min_widths(cols, CELL_SIZES[-1], True, fonts)
    mins = [max(min(m, 0.45 * width), MIN_COLUMN) for m in mins]
    keep = max(0, min(keep, n - 1))
    if sum(mins) <= width or n <= keep + 1:
        return [list(range(n))]
    base = sum(mins[:keep])
    if base > 0.6 * width:  # the repeated columns themselves take most of the width: repeat only the first
        keep, base = 1, mins[0]
    groups: list[list[int]] = []
    cur: list[int] = []
    used = base
    for c in range(keep, n):
        if cur and used + mins[c] > width:
            groups.append(list(range(keep)) + cur)
            cur, used = [], base
        cur.append(c)
        used += mins[c]
    groups.append(list(range(keep)) + cur)
    return groups


def fit_columns(header: list[str], rows: list[list[str]], width: float, fonts: tuple[str, str],
                given: list[float] | None = None, sizes: tuple[float, ...] = CELL_SIZES
                ) -> tuple[list[float], float, bool | None]:
    """Column widths (points), font size and whether names must break at _ / . - so that no cell splits a
    number or a word: every column is at least as wide as its widest token; the rest of the width goes to
    the columns with the most text. The font shrinks (down to 6 pt) before names are broken. The flag is
    None when even that does not fit: then over-long tokens are split where they must be. No column is ever
    narrower than ``MIN_COLUMN`` (a table with more columns than that allows is split by ``column_groups``
    first)."""
    n = len(header)
    cols = [[header[c]] + [r[c] for r in rows] for c in range(n)]
    mins: list[float] = []
    nats: list[float] = []
    for size in sizes:
        for split in (False, True):
            mins, nats = _min_widths(cols, size, split, fonts)
            if sum(mins) <= width:
                if given and len(given) == n and all(g * width >= m for g, m in zip(given, mins)):
                    return [g * width for g in given], size, split
                if sum(nats) <= width:
                    extra = width - sum(nats)
                    return [x + extra * x / sum(nats) for x in nats], size, split
                return _share(mins, nats, width), size, split
    # a token with nowhere to break wider than the page allows (a 90-character host name): its column gets
    # at most 45 % of the width and such tokens are cut where they must be (the only case); the others keep
    # their whole tokens when they can
    capped = [max(min(m, 0.45 * width), MIN_COLUMN) for m in mins]
    if sum(capped) <= width:
        return _share(capped, nats, width), CELL_SIZES[-1], None
    return _floor([m * width / sum(capped) for m in capped], width), CELL_SIZES[-1], None


def _floor(widths: list[float], width: float) -> list[float]:
    """Widths raised to ``MIN_COLUMN`` where they fall below it, taken from the widest columns; a table whose
    every column cannot get that much (more columns than the width holds) keeps equal shares."""
    if len(widths) * MIN_COLUMN > width:
        return [width / len(widths)] * len(widths)
    out = list(widths)
    for i, w in enumerate(out):
        if w < MIN_COLUMN:
            need = MIN_COLUMN - w
            out[i] = MIN_COLUMN
            while need > 1e-9:
                j = max(range(len(out)), key=lambda k: out[k] if k != i else -1.0)
                take = min(need, out[j] - MIN_COLUMN)
                if take <= 0:
                    break
                out[j] -= take
                need -= take
    return out


def _share(mins: list[float], nats: list[float], width: float) -> list[float]:
    """The width beyond every column's minimum, shared fairly: equal shares, a column taking no more than it
    needs to print on one line, so short columns (a RAID level, a date) are not wrapped to feed a long one."""
    widths = list(mins)
    need = [max(x - m, 0.0) for x, m in zip(nats, mins)]
    left = width - sum(mins)
    open_ = [i for i, x in enumerate(need) if x > 0]
    while left > 1e-6 and open_:
        share = left / len(open_)
        for i in list(open_):
            add = min(share, need[i])
            widths[i] += add
            need[i] -= add
            left -= add
            if need[i] <= 1e-6:
                open_.remove(i)
    return widths


def _table(t: ContentTable, st: dict[str, ParagraphStyle], width: float, accent: str) -> list[Any]:
    out: list[Any] = []
    if t.title:
        out.append(Paragraph(text(t.title), st["h2"]))
    if not t.rows:
        return out
    n = len(t.header)
    vis = (lambda x: x) if t.visual else visual  # right to left in visual order, once (a part is already)
    header = [vis(_cut(h, 100)) for h in t.header]  # wrapped at _ / . - : long run names stay told apart
    rows = [[vis(_cut(v, t.max_cell)) for v in (row + [""] * n)[:n]] for row in t.rows]
    fonts = (st["cell"].fontName, st["head"].fontName)
    groups = column_groups(header, rows, width, fonts, t.key_cols)
    if len(groups) > 1:  # too many columns for the page: parts side by side, each repeating the row's key
        for cols in groups:
            part = ContentTable("", [header[c] for c in cols], [[r[c] for c in cols] for r in rows],
                                max_cell=t.max_cell, key_cols=0, small=t.small, visual=True)
            out += _table(part, st, width, accent)
        keys = ", ".join(header[c] for c in groups[0] if c in groups[1])
        out.append(Paragraph(text(f"The table is printed in {len(groups)} parts, one under the other, each "
                                  f"repeating {keys or 'its first column'}." + (f" {t.note}" if t.note else "")),
                             st["small"]))
        out.append(Spacer(1, 4 * mm))
        return out
    fonts = (st["cell"].fontName, st["head"].fontName)
    widths, size, split = fit_columns(header, rows, width, fonts, t.widths, CELL_SIZES[2:] if t.small else CELL_SIZES)
    hard = split is None
    cs = ParagraphStyle("cellfit", parent=st["cell"], fontSize=size, leading=size + 1.5, splitLongWords=hard)
    hs = ParagraphStyle("headfit", parent=st["head"], fontSize=size, leading=size + 1.5, splitLongWords=hard)
    room = [1e9 if hard else w - 2 * CELL_PAD for w in widths]  # hard: reportlab cuts what cannot fit
    data = [[Paragraph(_break_long(h, r, fonts[1], size), hs) for h, r in zip(header, room)]]
    for row in rows:
        data.append([Paragraph(_break_long(v, r, fonts[0], size), cs) for v, r in zip(row, room)])
    tbl = Table(data, colWidths=widths, repeatRows=1)
    tbl.setStyle(TableStyle([
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor(accent)),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f2f5f9")]),
        ("GRID", (0, 0), (-1, -1), 0.25, colors.HexColor("#c8d0da")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("FONTNAME", (0, 0), (-1, -1), fonts[0]),  # set on each cell before its paragraph: not Helvetica
        ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD), ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
        ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]))
    out.append(tbl)
    if t.note:
        out.append(Paragraph(text(t.note), st["small"]))
    if len(rows) <= KEEP_ROWS:  # title, table and note on one page: no heading or note left alone at a page end
        out = [KeepTogether(out)]
    return [*out, Spacer(1, 4 * mm)]


KEEP_ROWS = 30  # a table this short moves whole to the next page rather than split from its title or note


def _cut(s: Any, limit: int) -> str:
    s = for_terminal(str(s)[: limit + 1])  # a chart label: one line, bidi controls visible
    return s if len(s) <= limit else s[: limit - 1] + "…"


def decimate(t: list[float], y: list[float], columns: int) -> tuple[list[float], list[float]]:
    """Keep the min and max of every one of ``columns`` time columns (in time order): no peak is lost."""
    if len(t) <= 2 * columns:
        return t, y
    t0, t1 = t[0], t[-1]
    span = (t1 - t0) or 1.0
    out_t: list[float] = []
    out_y: list[float] = []
    col = -1
    lo: tuple[float, float] | None = None
    hi: tuple[float, float] | None = None
    for x, v in zip(t, y):
        c = min(columns - 1, int((x - t0) / span * columns))
        if c != col:
            if lo is not None and hi is not None:
                for p in sorted({lo, hi}):
                    out_t.append(p[0])
                    out_y.append(p[1])
            col, lo, hi = c, (x, v), (x, v)
        else:
            # set at the column's first point
            assert lo is not None
            assert hi is not None
            if v < lo[1]:
                lo = (x, v)
            if v > hi[1]:
                hi = (x, v)
    if lo is not None and hi is not None:
        for p in sorted({lo, hi}):
            out_t.append(p[0])
            out_y.append(p[1])
    return out_t, out_y


def _nice(vmax: float) -> tuple[float, float]:
    if vmax <= 0:
        return 1.0, 0.25

    exp = 10 ** math.floor(math.log10(vmax))
    for step in (0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10):
        if vmax / (step * exp) <= 6:
            s = step * exp
            return s * math.ceil(vmax / s), s
    return vmax, vmax / 5


def _legend_rows(labels: list[str], width: float, font: str) -> list[list[tuple[int, str, float]]]:
    """Legend entries (index, label, x) wrapped into rows that fit the chart's width; past MAX_LEGEND_ROWS the
    remaining runs are counted in one last entry (index -1: no colour sample), so that any number of runs fits
    on a page."""
    rows: list[list[tuple[int, str, float]]] = [[]]
    x = 4.0
    for i, lab in enumerate(labels):
        w = 14 + text_width(lab, font, 6.5)
        if rows[-1] and x + w > width - 4:
            if len(rows) == MAX_LEGEND_ROWS:  # no room: the row's last entry makes way for the count of the rest
                left = len(labels) - i
                if len(rows[-1]) > 1:
                    x = rows[-1].pop()[2]
                    left += 1
                rows[-1].append((-1, f"+ {left} more (colours repeat)", x))
                return rows
            rows.append([])
            x = 4.0
        rows[-1].append((i, lab, x))
        x += w
    return rows


class _Axes:
    """The plot area of a line chart and its value and time scales (linear from ``ymin``, or logarithmic)."""

    def __init__(self, chart: Chart, lines: list[dict[str, Any]], bands: list[dict[str, Any]], levels: list[float],
                 box: tuple[float, float, float, float]):
        self.left, self.bottom, self.pw, self.ph = box
        self.log = bool(chart.data.get("log"))
        self.ymin = float(chart.data.get("ymin") or 0.0) if not self.log else 0.0
        self.tmin = min([min(ln["t0"] or ln["t"]) for ln in lines] + [float(b["t0"]) for b in bands])
        self.tmax = max([max(ln["t"]) for ln in lines] + [float(b["t1"]) for b in bands])
        self.tspan = (self.tmax - self.tmin) or 1.0
        vals = [v for ln in lines for v in ln["y"] if v is not None]  # plot_lines: numbers or None
        top = max(vals + levels + [0]) or 1.0  # an empty chart still gets a scale
        if self.log:
            pos = [v for v in vals + levels if v > 0] or [1.0]
            self.lo = math.floor(math.log10(min(pos) / 2))  # room below the lowest level (a cap is not the axis)
            self.hi = max(self.lo + 1, math.ceil(math.log10(max(pos) * 1.05)))
            self.ymax = 10.0 ** self.hi
            self.ticks = [10.0 ** e for e in range(self.lo, self.hi + 1)]
            return
        if chart.data.get("ymax"):  # a fixed scale (a share: up to 100 %, from ymin)
            self.ymax = max(float(chart.data["ymax"]), top)
            step = _nice(self.ymax - self.ymin)[1]
        else:
            self.ymax, step = _nice(top * 1.05)
        self.ticks = [self.ymin + k * step for k in range(int(round((self.ymax - self.ymin) / step)) + 1)]

    def x(self, t: float) -> float:
        return self.left + (t - self.tmin) / self.tspan * self.pw

    def y(self, v: float) -> float:
        if self.log:
            f = (math.log10(max(v, 10.0 ** self.lo)) - self.lo) / (self.hi - self.lo)
            return self.bottom + f * self.ph
        return self.bottom + (max(v, self.ymin) - self.ymin) / (self.ymax - self.ymin) * self.ph


PLOT_LIMIT = 1e15  # a value beyond this is no measurement a chart can scale to (a received workspace may hold 1e308)
MAX_LEGEND_ROWS = 4  # more runs than fit in four rows: the rest are counted, not listed (colours repeat anyway)


def plot_value(v: Any) -> float | None:
    """A number a chart can draw, or None: missing, not a number, infinite or beyond any scale -- drawn as a gap,
    never as 0 (missing is not zero)."""
    if v is None or isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    f = float(v)
    return f if math.isfinite(f) and abs(f) <= PLOT_LIMIT else None


def plot_lines(chart: Chart) -> list[dict[str, Any]]:
    """The chart's lines as drawn: the points with a usable time (end, and start where the line has one), each
    value a number or None (a gap). Lines without any such point are left out."""
    out = []
    for ln in chart.data.get("lines") or []:
        t = [plot_value(x) for x in ln.get("t") or []]
        y = [plot_value(x) for x in ln.get("y") or []]
        t0 = [plot_value(x) for x in ln["t0"]] if ln.get("t0") else None
        n = min(len(t), len(y), len(t0) if t0 is not None else len(t))
        keep = [i for i in range(n) if t[i] is not None and (t0 is None or t0[i] is not None)]
        if not keep:
            continue
        out.append({"label": str(ln.get("label", "")), "t": [t[i] for i in keep], "y": [y[i] for i in keep],
                    "t0": [t0[i] for i in keep] if t0 is not None else None,
                    # how it is drawn (the load limit's measured points, the replay's dashed storm)
                    **{k: ln[k] for k in ("colour", "dash", "markers", "connect") if k in ln}})
    return out


def line_chart(chart: Chart, width: float, font: str) -> tuple[Drawing | None, bool]:
    """Runs on one time axis: each interval a step over the seconds it covers (min/max per point column for
    long series), an optional logarithmic value axis, reference lines (``refs``: value, label, style cap | limit |
    level) and highlighted time ranges (``bands``: t0, t1, label, style worst | over | phase). A line with
    ``markers`` has a dot at each point (and no line with ``connect`` False), one with ``dash`` is dashed, one with
    ``colour`` is drawn in it; the x axis is whatever ``x`` names (a load in IOPS for the load limit).

    Whatever the lines hold, the drawing is made of finite numbers: a value that is missing, not a number or
    infinite is a gap in its line. Returns (None, _) when no line has a value to draw, and whether a line has
    gaps."""
    lines = plot_lines(chart)
    if not any(v is not None for ln in lines for v in ln["y"]):
        return None, False
    gaps = any(v is None for ln in lines for v in ln["y"])
    legend = _legend_rows([ln["label"][:60] for ln in lines], width, font)
    top = 9 * mm + 3.2 * mm * len(legend)
    h = 58 * mm + 3.2 * mm * (len(legend) - 1)
    d = Drawing(width, h, initialFontName=font)  # the chart's starting font (reportlab's default: Helvetica)
    left, bottom, right = 18 * mm, 12 * mm, 4 * mm
    refs = [r for r in chart.data.get("refs") or [] if (plot_value(r.get("value")) or 0) > 0]
    bands = [b for b in chart.data.get("bands") or []
             if plot_value(b.get("t0")) is not None and plot_value(b.get("t1")) is not None]
    ax = _Axes(chart, lines, bands, [r["value"] for r in refs], (left, bottom, width - left - right, h - bottom - top))
    _bands(d, ax, bands, font)  # under the grid and the lines
    _grid(d, ax, chart, font)
    _ref_lines(d, ax, refs)  # under the curves: a workload running at the cap shows on top of the cap's line
    _curves(d, ax, lines)
    _ref_labels(d, ax, refs, font)  # over everything, on a light box: no line strikes a label through
    for r, row in enumerate(legend):
        yy = h - 4 * mm - r * 3.2 * mm
        for i, lab, x in row:
            if i >= 0:
                col = _line_colour(lines[i], i)
                d.add(Line(x, yy, x + 8, yy, strokeColor=col, strokeWidth=1.5))
            add_label(d, x + 10, yy - 2.5, lab, font, 6.5)
    return d, gaps


def strip_chart(chart: Chart, width: float, font: str) -> Drawing | None:
    """One horizontal strip per figure (``strips``: label, value, peers, text): the peers as grey ticks, the value as
    a red marker, the strip from the lowest to the highest of them (the library comparison's distribution)."""
    strips = [s for s in chart.data.get("strips") or []
              if any(plot_value(v) is not None for v in [*s["peers"], s.get("value")])]
    if not strips:
        return None
    row = 11 * mm
    h = row * len(strips) + 4 * mm
    d = Drawing(width, h, initialFontName=font)
    left, right = 46 * mm, 30 * mm
    pw = width - left - right
    for i, s in enumerate(strips):
        vals = [v for v in (plot_value(x) for x in [*s["peers"], s.get("value")]) if v is not None]
        lo, hi = min(vals), max(vals)
        span = (hi - lo) or 1.0
        y = h - 4 * mm - i * row - row / 2

        def x(v: float, lo: float = lo, span: float = span) -> float:
            return left + (v - lo) / span * pw

        add_label(d, 0, y - 2.5, _cut(s["label"], 34), font, 7)
        d.add(Line(left, y, left + pw, y, strokeColor=colors.HexColor("#bbbbbb"), strokeWidth=0.6))
        for v in s["peers"]:
            pv = plot_value(v)
            if pv is not None:
                d.add(Line(x(pv), y - 3, x(pv), y + 3, strokeColor=colors.HexColor("#777777"), strokeWidth=0.6))
        add_label(d, left, y - 9, _axis_number(lo, s.get("unit")), font, 5.5)
        add_label(d, left + pw, y - 9, _axis_number(hi, s.get("unit")), font, 5.5, anchor="end")
        v = plot_value(s.get("value"))
        if v is not None:
            d.add(Circle(x(v), y, 2.6, fillColor=colors.HexColor("#c00000"), strokeColor=None))
        add_label(d, left + pw + 3 * mm, y - 2.5, _cut(s.get("text") or "", 30), font, 6.5)
    return d


def _axis_number(v: float, unit: str | None = None) -> str:
    if unit == "fraction":
        return f"{100 * v:.1f} %"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _line_colour(ln: dict[str, Any], i: int) -> Any:
    """A line's own ``colour`` (a meaning the window draws in the same colour: within the goal green), else the
    palette's i-th."""
    return colors.HexColor(ln.get("colour") or PALETTE[i % len(PALETTE)])


def _bands(d: Drawing, ax: _Axes, bands: list[dict[str, Any]], font: str) -> None:
    phase_n = 0
    for b in bands:
        x0, x1 = ax.x(b["t0"]), max(ax.x(b["t1"]), ax.x(b["t0"]) + 0.8)
        style = b.get("style", "phase")
        fill = BAND_FILLS.get(style, BAND_FILLS["phase"])
        if style == "phase":
            fill = BAND_FILLS["phase"] if phase_n % 2 == 0 else BAND_FILLS["phase2"]
            phase_n += 1
        d.add(Rect(x0, ax.bottom, x1 - x0, ax.ph, fillColor=fill, strokeColor=None))
        if style in ("worst", "phase") and b.get("label"):
            add_label(d, x0 + 1, ax.bottom + ax.ph - 7 - (8 if style == "worst" else 0), _cut(b["label"], 28), font,
                      6, fillColor=colors.HexColor("#333333"))


def _grid(d: Drawing, ax: _Axes, chart: Chart, font: str) -> None:
    grid = colors.HexColor("#dddddd")
    left, bottom, pw, ph = ax.left, ax.bottom, ax.pw, ax.ph
    for k in ax.ticks:
        d.add(Line(left, ax.y(k), left + pw, ax.y(k), strokeColor=grid, strokeWidth=0.4))
        label = f"{k:,.0f}" if k >= 1 or k == 0 else f"{k:g}"
        d.add(String(left - 2, ax.y(k) - 2.5, label, fontName=font, fontSize=6.5, textAnchor="end"))
    tstep = _nice(ax.tspan)[1]
    k = math.ceil(ax.tmin / tstep) * tstep
    while k <= ax.tmax + 1e-9:
        d.add(Line(ax.x(k), bottom, ax.x(k), bottom - 2, strokeColor=colors.black, strokeWidth=0.4))
        tick = f"{k:,.0f}" if float(tstep).is_integer() else f"{k:,.1f}".rstrip("0").rstrip(".")
        d.add(String(ax.x(k), bottom - 9, tick, fontName=font, fontSize=6.5, textAnchor="middle"))
        k += tstep
    d.add(Line(left, bottom, left + pw, bottom, strokeColor=colors.black, strokeWidth=0.6))
    d.add(Line(left, bottom, left, bottom + ph, strokeColor=colors.black, strokeWidth=0.6))
    d.add(String(left + pw / 2, 1.5 * mm, chart.data.get("x", ""), fontName=font, fontSize=7, textAnchor="middle"))
    d.add(String(2, bottom + ph + 2 * mm, chart.data.get("y", "") + (" (log scale)" if ax.log else ""),
                 fontName=font, fontSize=7))


def _curves(d: Drawing, ax: _Axes, lines: list[dict[str, Any]]) -> None:
    """Each line as polylines over its runs of consecutive values (a missing value breaks the line)."""
    for i, ln in enumerate(lines):
        col = _line_colour(ln, i)
        for seg in _runs_of_values(ln["y"]):
            t1 = [ln["t"][k] for k in seg]
            y = [ln["y"][k] for k in seg]
            # one point column per PDF point of the segment's width
            columns = max(1, int(ax.pw * max(t1[-1] - t1[0], 0.0) / ax.tspan))
            pts: list[float] = []
            if ln["t0"] and len(seg) <= max(columns, int(ax.pw)):  # steps: each interval over the seconds it covers
                for k, v in zip(seg, y):
                    pts += [ax.x(ln["t0"][k]), ax.y(v), ax.x(ln["t"][k]), ax.y(v)]
            else:
                t, yy = decimate(t1, y, columns)
                for a, b in zip(t, yy):
                    pts += [ax.x(a), ax.y(b)]
            if len(pts) == 2:  # one point alone: a short tick, so that it shows
                pts += [pts[0] + 0.8, pts[1]]
            if ln.get("connect", True):
                d.add(PolyLine(pts, strokeColor=col, strokeWidth=0.9, strokeDashArray=ln.get("dash")))
            if ln.get("markers"):  # measured points drawn as dots (separate measurements: ``connect`` False)
                for a, v in zip(t1, y):
                    d.add(Circle(ax.x(a), ax.y(v), 1.8, fillColor=col, strokeColor=None))


def _runs_of_values(y: list[float | None]) -> list[list[int]]:
    """The index runs of consecutive values that are not None."""
    out: list[list[int]] = []
    cur: list[int] = []
    for k, v in enumerate(y):
        if v is None:
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(k)
    if cur:
        out.append(cur)
    return out


def _ref_lines(d: Drawing, ax: _Axes, refs: list[dict[str, Any]]) -> None:
    for r in refs:
        colour, dash = REF_STYLES.get(r.get("style", "cap"), REF_STYLES["cap"])
        y = ax.y(r["value"])
        d.add(Line(ax.left, y, ax.left + ax.pw, y, strokeColor=colors.HexColor(colour), strokeWidth=1,
                   strokeDashArray=dash))


LABEL_H = 6.5  # a reference label's height (its font size)


def ref_label_ys(line_ys: list[float], top: float, bottom: float) -> list[float]:
    """The baseline of each reference line's label (lines in ascending order): just above its line, or just below
    it when another line would cross the label there, and never on a label placed before -- no line strikes a
    label through and close lines' labels do not overlap."""
    out: list[float] = []
    for y in line_ys:
        def clear(ty: float) -> bool:
            crossed = any(ty - 1 < other < ty + LABEL_H + 1 for other in line_ys)
            overlaps = any(abs(ty - prev) < LABEL_H + 1.5 for prev in out)
            return not crossed and not overlaps and bottom <= ty <= top - LABEL_H
        candidates = [y + 2, y - LABEL_H - 2] + [y + 2 + k * (LABEL_H + 2) for k in range(1, 6)]
        out.append(next((ty for ty in candidates if clear(ty)), candidates[0]))
    return out


def _ref_labels(d: Drawing, ax: _Axes, refs: list[dict[str, Any]], font: str) -> None:
    order = sorted(refs, key=lambda r: r["value"])
    ys = ref_label_ys([ax.y(r["value"]) for r in order], ax.bottom + ax.ph, ax.bottom)
    for r, ty in zip(order, ys):
        colour, _dash = REF_STYLES.get(r.get("style", "cap"), REF_STYLES["cap"])
        s = r.get("label", "")
        w = sum(wd for _t, _f, wd in label_runs(s, font, 6.5))
        x = ax.left + ax.pw - 2
        d.add(Rect(x - w - 1, ty - 1.5, w + 2, LABEL_H + 1.5, fillColor=colors.Color(1, 1, 1, alpha=0.85),
                   strokeColor=None))
        add_label(d, x, ty, s, font, 6.5, "end", fillColor=colors.HexColor(colour))


REF_STYLES = {"cap": ("#c00000", [4, 2]), "limit": ("#e07000", [1, 2]), "level": ("#555555", [3, 2])}
BAND_FILLS = {"worst": colors.Color(0.75, 0.1, 0.1, alpha=0.28), "over": colors.Color(0.9, 0.3, 0.3, alpha=0.12),
              "phase": colors.Color(0.2, 0.4, 0.7, alpha=0.07), "phase2": colors.Color(0.2, 0.4, 0.7, alpha=0.14)}


MISSING_CELL = colors.HexColor("#bbbbbb")


def _viridis(f: float) -> colors.Color:
    stops = [(0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)), (0.75, (94, 201, 98)),
             (1.0, (253, 231, 37))]
    for (a, ca), (b, cb) in zip(stops, stops[1:]):
        if f <= b:
            u = (f - a) / (b - a) if b > a else 0
            return colors.Color(*[(x + (y - x) * u) / 255 for x, y in zip(ca, cb)])
    return colors.Color(*[c / 255 for c in stops[-1][1]])


def heatmap(chart: Chart, width: float, font: str) -> Drawing:
    panels = chart.data["panels"]
    h = 58 * mm
    d = Drawing(width, h, initialFontName=font)  # the chart's starting font (reportlab's default: Helvetica)
    pw_all = width / max(1, len(panels))
    for k, p in enumerate(panels):
        grid = p["grid"]
        labels = p["labels"]
        x0 = k * pw_all + 18 * mm
        pw = pw_all - 32 * mm
        y0, ph = 14 * mm, h - 22 * mm
        ns, nb = len(grid), len(labels)
        counts = [[c if (c := plot_value(v)) is not None and c >= 0 else None for v in r] for r in grid]
        vmax = max((v for r in counts for v in r if v is not None), default=0) or 1
        cw, ch = pw / max(1, ns), ph / max(1, nb)
        for i, row in enumerate(counts):
            for j, v in enumerate(row):
                # colour on a log scale: a few hundred slow I/Os beside 30,000 fast ones stay visible; a count
                # that is no count (missing, negative, not a number) is grey
                fill = MISSING_CELL if v is None else _viridis(math.log1p(v) / math.log1p(vmax))
                d.add(Rect(x0 + i * cw, y0 + j * ch, cw, ch, fillColor=fill, strokeColor=None))
        for j, lab in enumerate(labels):
            d.add(String(x0 - 2, y0 + j * ch + ch / 2 - 2, lab, fontName=font, fontSize=5.5, textAnchor="end"))
        step = chart.data.get("interval_s")
        if step:  # time axis in minutes (or seconds for short collections) from the start of the first one
            span = ns * step
            unit, div = ("min", 60.0) if span >= 120 else ("s", 1.0)
            tick = _nice(span / div)[1]
            tk = 0.0
            while tk <= span / div + 1e-9:
                x = x0 + tk * div / span * pw
                d.add(Line(x, y0, x, y0 - 2, strokeColor=colors.black, strokeWidth=0.4))
                d.add(String(x, y0 - 8, f"{tk:,.1f}".rstrip("0").rstrip("."), fontName=font, fontSize=5.5,
                             textAnchor="middle"))
                tk += tick
            many = "s" if ns != 1 else ""
            d.add(String(x0 + pw / 2, y0 - 15, f"{'minutes' if unit == 'min' else 'seconds'} from the start of the "
                         f"first collection ({ns:,} collection{many} of {step:g} s)", fontName=font, fontSize=6,
                         textAnchor="middle"))
        else:
            d.add(String(x0 + pw / 2, y0 - 9, f"collections 1–{ns} (interval unknown)", fontName=font, fontSize=6,
                         textAnchor="middle"))
        add_label(d, x0, h - 5 * mm, p["label"][:50], font, 7)
        # colour scale: 0 to the largest count of one cell
        bx = x0 + pw + 1.5 * mm
        for q in range(20):
            d.add(Rect(bx, y0 + q * ph / 20, 2 * mm, ph / 20 + 0.2, fillColor=_viridis(q / 19), strokeColor=None))
        d.add(String(bx + 2.5 * mm, y0, "0", fontName=font, fontSize=5.5))
        d.add(String(bx + 2.5 * mm, y0 + ph - 4, f"{vmax:,.0f}", fontName=font, fontSize=5.5))
        mid = round(math.expm1(math.log1p(vmax) / 2))
        d.add(String(bx + 2.5 * mm, y0 + ph / 2 - 2, f"{mid:,}", fontName=font, fontSize=5.5))
        d.add(String(bx + 2.5 * mm, y0 + ph * 0.75 - 2, "I/Os (log)", fontName=font, fontSize=5.5))
    return d


def _chart(ch: Chart, width: float, font: str, st: dict[str, ParagraphStyle]) -> list[Any]:
    """A chart with its caption; a chart with nothing to draw says so in its place (the rest of the section and
    of the report stay)."""
    if ch.kind == "lines":
        drawing, gaps = line_chart(ch, width, font)
    elif ch.kind == "strips":
        drawing, gaps = strip_chart(ch, width, font), False
    else:
        drawing, gaps = heatmap(ch, width, font), False
    if drawing is None:
        return [Paragraph(text(f"Chart not drawn — {ch.title}: the runs have no value to plot (every interval is "
                               "empty or holds no number)."), st["small"]), Spacer(1, 3 * mm)]
    caption = ch.title + (f"{'' if ch.title.endswith('.') else '.'} Gaps in a line: intervals without a value "
                          "(missing is not zero)." if gaps else "")
    return [KeepTogether([drawing, Paragraph(text(caption), st["caption"]), Spacer(1, 4 * mm)])]


def _box(sec: Any, n_sec: int, st: dict[str, ParagraphStyle], width: float) -> list[Any]:
    """A section drawn as a framed box (its heading, then its paragraphs), kept on one page."""
    cells = [[Paragraph(text(p), st["body"])] for p in sec.paragraphs]
    box = Table(cells, colWidths=[width])
    box.setStyle(TableStyle([
        ("BOX", (0, 0), (-1, -1), 0.8, colors.HexColor("#a06000")),
        ("BACKGROUND", (0, 0), (-1, -1), colors.HexColor("#fff8ec")),
        ("LEFTPADDING", (0, 0), (-1, -1), 8), ("RIGHTPADDING", (0, 0), (-1, -1), 8),
        ("TOPPADDING", (0, 0), (-1, -1), 3), ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
    ]))
    return [KeepTogether([_heading(sec.title, st["h2"], 0, f"{n_sec}"), box]), Spacer(1, 5 * mm)]


VERDICT_COLOURS = {"Met": "#1a7f37", "Held": "#1a7f37", "Not met": "#c00000", "Not held": "#c00000",
                   "Not capped": "#a05a00", "Not reached": "#a05a00"}


def _answer(item: dict[str, Any], st: dict[str, ParagraphStyle], index: dict[str, int], accent: str) -> Any:
    """One question on page 1: its title, then the verdict (coloured), the deciding figure, the answer in words
    and a link to the section with the evidence."""
    colour = VERDICT_COLOURS.get(item["verdict_words"], "#555555")
    body = f'<font color="{colour}"><b>{text(item["verdict_words"])}</b></font>'
    body += f" · <b>{text(item['number'])}</b>. {text(item['reason'])}" if item["number"] else \
        f" · {text(item['reason'])}"
    if item.get("section") in index:
        link = f"Evidence: {item['section_title']}".replace(" ", "\u00a0")  # one link: never split over two lines
        body += f' <a href="#s{index[item["section"]]}" color="{accent}"><u>{text(link)}</u></a>'
    return KeepTogether([Paragraph(f"<b>{item['n']}. {text(item['title'])}</b>", st["answer_q"]),
                         Paragraph(body, st["answer"]), Spacer(1, 1 * mm)])


def _header(opt: Any, logo: bytes | None, st: dict[str, ParagraphStyle], width: float) -> list[Any]:
    """Page 1's head instead of a cover page: the title, who it is for and by whom, the date, the logo at the
    right (``logo``: read and checked by build_report, reports.logo: a plain image of sensible size); a rule under
    it."""
    lines = [Paragraph(text(opt.title), st["title"])]
    by = " · ".join(x for x in (opt.consultant, opt.company) if x)
    said = [x for x in (("Prepared for " + opt.customer) if opt.customer else "", ("By " + by) if by else "",
                        opt.date) if x]
    if said:
        lines.append(Paragraph(text(" · ".join(said)), st["subtitle"]))
    head: Any = lines
    if logo:
        img = Image(io.BytesIO(logo))
        scale = min(45 * mm / img.drawWidth, 18 * mm / img.drawHeight, 1.0)
        img.drawWidth *= scale
        img.drawHeight *= scale
        t = Table([[lines, img]], colWidths=[width - 50 * mm, 50 * mm])
        t.setStyle(TableStyle([("VALIGN", (0, 0), (-1, -1), "TOP"), ("ALIGN", (1, 0), (1, 0), "RIGHT"),
                               ("FONTNAME", (0, 0), (-1, -1), st["subtitle"].fontName),
                               ("LEFTPADDING", (0, 0), (-1, -1), 0), ("RIGHTPADDING", (0, 0), (-1, -1), 0)]))
        head = [t]
    rule = Table([[""]], colWidths=[width], rowHeights=[2])
    rule.setStyle(TableStyle([("LINEBELOW", (0, 0), (-1, -1), 1.2, colors.HexColor(opt.accent)),
                              # its empty cell is set in a font too (reportlab's default: Helvetica, not embedded)
                              ("FONTNAME", (0, 0), (-1, -1), st["subtitle"].fontName)]))
    return [*head, rule, Spacer(1, 4 * mm)]


def _glue_heading(story: list[Any], start: int) -> None:
    """A section's heading and its first block on one page: never a heading alone at the foot of a page (a
    KeepTogether after a heading can move to the next page without it)."""
    if len(story) > start + 1 and not isinstance(story[start + 1], (PageBreak, Spacer)):
        first = story[start + 1]
        inner = list(first._content) if isinstance(first, KeepTogether) else [first]
        story[start: start + 2] = [KeepTogether([story[start], *inner])]


def _page_one_end(sec: Any, st: dict[str, ParagraphStyle]) -> list[Any]:
    """After the answers (or the summary): the results no question asked for, then the conclusions."""
    out: list[Any] = []
    if sec.findings:
        out.append(Paragraph("Other results", st["h2"]))
        for what, t in sec.findings:
            out.append(Paragraph(f"<b>{text(what)}:</b> {text(t)}", st["answer"]))
            out.append(Spacer(1, 1 * mm))
    if sec.conclusions:
        out.append(Paragraph("Conclusions and recommendations", st["h2"]))
        for c in sec.conclusions:
            out.append(Paragraph(text(c), st["conclusion"], bulletText="•"))
    return out


def render(content: ReportContent, path: str) -> None:
    """Write ``content`` as a PDF at ``path``."""
    opt = content.options
    rl_config.invariant = 1  # same content -> byte-identical file
    reg, bold = _fonts()
    st = _styles(opt.accent)
    size = letter if opt.page_size.lower() == "letter" else A4
    margin = 18 * mm
    doc = _Doc(path, pagesize=size, leftMargin=margin, rightMargin=margin, topMargin=16 * mm, bottomMargin=18 * mm,
               title=opt.title, author=" · ".join(x for x in (opt.consultant, opt.company) if x) or "StormScope",
               subject="Storage performance report" + (f" for {opt.customer}" if opt.customer else ""),
               creator=f"StormScope {version()}", producer=f"StormScope {version()} (ReportLab)")
    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body")
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame])])
    width = doc.width

    story: list[Any] = _header(opt, content.logo, st, width)
    index = {sec.key: n for n, sec in enumerate(content.sections)}  # a section's bookmark: s<n>
    for n_sec, sec in enumerate(content.sections):
        if sec.key == "not_included":  # a box: what the report leaves out, never a silent gap
            story += _box(sec, n_sec, st, width)
            continue
        start = len(story)
        story.append(_heading(sec.title, st["h1"], 0, f"{n_sec}"))
        for kind, i in sec.order:
            if kind == "a":
                story.append(_answer(sec.answers[i], st, index, opt.accent))
            elif kind == "p":
                style = st["answer"] if sec.key == "summary" else (st["small"] if sec.key == "appendix"
                                                                      else st["body"])
                bullet = "•" if sec.key == "summary" else None
                story.append(Paragraph(text(sec.paragraphs[i]), style, bulletText=bullet))
                story.append(Spacer(1, 1.5 * mm))
            elif kind == "t":
                story += _table(sec.tables[i], st, width, opt.accent)
            else:
                ch = sec.charts[i]
                story += _chart(ch, width, reg, st)
        _glue_heading(story, start)
        if sec.key in ("answers", "summary"):  # page 1: the answers, then what they lead to; the evidence after
            # the evidence on a page of its own, unless page 1 ran over onto a page it leaves mostly empty
            story += [*_page_one_end(sec, st), CondPageBreak(0.6 * doc.height)]
        else:
            story.append(Spacer(1, 4 * mm))

    while story and isinstance(story[-1], Spacer):  # space after the last line: on a full page, a blank page
        story.pop()
    footer = " · ".join(x for x in (opt.title, opt.customer) if x)

    class Canvas(_NumberedCanvas):
        footer_left = footer
        confidential = opt.confidential
        font = reg

    doc.multiBuild(story, canvasmaker=Canvas)


# ---- the capture plan: a document for the customer -----------------------------------------------------------------
def render_plan(plan: Any, path: str, customer: str | None = None, consultant: str | None = None,
                accent: str = "#1f4e79") -> None:
    """Write the capture plan (app.analysis.capture_plan.CapturePlan) as a PDF for the customer at ``path``: what
    to capture and why, per system the commands to paste, and what to send back."""
    from app.analysis.capture_plan import CHECKLIST, PERFMON_COUNTERS, SYSTEM_KINDS
    from app.analysis.numbers import fmt_value

    rl_config.invariant = 1
    reg, bold = _fonts()
    st = _styles(accent)
    mono = ParagraphStyle("cmd", parent=st["cell"], fontSize=8.5, leading=11)
    margin = 18 * mm
    title = "Capture plan" + (f" for {customer}" if customer else "")
    doc = _Doc(path, pagesize=A4, leftMargin=margin, rightMargin=margin, topMargin=16 * mm, bottomMargin=18 * mm,
               title=title, author=consultant or "StormScope", subject="What to capture, and how",
               creator=f"StormScope {version()}", producer=f"StormScope {version()} (ReportLab)")
    doc.addPageTemplates([PageTemplate(id="page", frames=[Frame(doc.leftMargin, doc.bottomMargin, doc.width,
                                                                 doc.height, id="body")])])
    width = doc.width
    acc = colors.HexColor(accent)

    def box(lines: list[str]) -> Any:
        t = Table([[Paragraph("<br/>".join(text(x) for x in lines), mono)]], colWidths=[width])
        t.setStyle(TableStyle([("BACKGROUND", (0, 0), (-1, -1), colors.HexColor("#f2f2f2")),
                               ("BOX", (0, 0), (-1, -1), 0.5, colors.HexColor("#bbbbbb")),
                               ("LEFTPADDING", (0, 0), (-1, -1), 6), ("TOPPADDING", (0, 0), (-1, -1), 4),
                               ("BOTTOMPADDING", (0, 0), (-1, -1), 5)]))
        return t

    n, i = plan.count, plan.interval_s
    story: list[Any] = [Paragraph(text(title), st["title"])]
    if consultant:
        story.append(Paragraph(text(f"Prepared by {consultant}"), st["subtitle"]))
    story.append(Spacer(1, 3 * mm))
    story.append(_heading("What to capture", st["h1"], 0, "what"))
    when = (f"Start every capture at {plan.capture_start:%Y-%m-%d %H:%M:%S} on the systems' clocks — "
            f"{fmt_value(plan.lead_min, 'min')} before the storm expected at {plan.storm_start:%H:%M:%S} — on every "
            "system at the same time." if plan.storm_start is not None else
            f"Start every capture together, at least {fmt_value(plan.lead_min, 'min')} before the storm.")
    for p in (f"Every capture takes a report every {i} s, {n:,} reports: {fmt_value(plan.duration_s / 60, 'min')} "
              f"({fmt_value(plan.lead_min, 'min')} before the storm, the storm of about "
              f"{fmt_value(plan.storm_min, 'min')}, {fmt_value(plan.tail_min, 'min')} after it). The commands stop "
              "by themselves.", when):
        story += [Paragraph(text(p), st["body"]), Spacer(1, 1.5 * mm)]
    story.append(Paragraph(text("Why: " + " ".join(plan.reasons)), st["small"]))
    if plan.questions:
        story.append(Spacer(1, 1.5 * mm))
        story.append(Paragraph(text("The questions this capture answers:"), st["small"]))
        for q in plan.questions:
            story.append(Paragraph(text(q), st["small"], bulletText="•"))
    for s in plan.systems:
        story.append(_heading(f"{SYSTEM_KINDS[s.kind]} {s.host}", st["h1"], 0, f"sys-{s.host}"))
        if s.kind == "linux":
            pre = ("As root, in a folder with room for the files. The tools come with sysstat (install it with "
                   "'apt-get install sysstat' or 'yum install sysstat'). Paste the commands together: both captures "
                   "run at once and end together.")
        elif s.kind == "esxi":
            pre = ("In an SSH session on the host, in a folder on a datastore (not /tmp: it is small)."
                   + (" The first command starts the latency histograms of every virtual disk; the two after the "
                      "capture print them and stop them." if plan.histograms else ""))
        else:
            pre = (f"In a command prompt. First save this list of counters as {s.host}_counters.txt, one counter a "
                   "line:")
        story += [Paragraph(text(pre), st["body"]), Spacer(1, 1.5 * mm)]
        if s.kind == "windows":
            story += [box(list(PERFMON_COUNTERS)), Spacer(1, 2 * mm),
                      Paragraph(text("Then run:"), st["body"]), Spacer(1, 1.5 * mm)]
        story += [box(plan.commands(s)), Spacer(1, 2 * mm)]
        files = [f for f in plan.files() if f.host == s.host]
        story.append(Paragraph(text("It writes " + "; ".join(f"{f.name} ({f.what})" for f in files) + "."),
                               st["body"]))
    story.append(_heading("What to send back", st["h1"], 0, "send"))
    rows = [["☐", f.name, f"{SYSTEM_KINDS[f.system]} {f.host}: {f.what}"] for f in plan.files()]
    rows += [["☐", c[0].upper() + c[1:], ""] for c in CHECKLIST]
    t = Table([[Paragraph(text(c), st["cell"]) for c in r] for r in rows],
                colWidths=[8 * mm, 0.38 * (width - 8 * mm), 0.62 * (width - 8 * mm)])
    t.setStyle(TableStyle([("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#cccccc")),
                           ("VALIGN", (0, 0), (-1, -1), "TOP"), ("TEXTCOLOR", (0, 0), (0, -1), acc)]))
    story.append(t)
    if plan.notes:
        story.append(Spacer(1, 3 * mm))
        for x in plan.notes:
            story.append(Paragraph(text(x), st["small"], bulletText="•"))

    class Canvas(_NumberedCanvas):
        footer_left = title
        font = reg

    doc.multiBuild(story, canvasmaker=Canvas)
