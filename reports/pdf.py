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
from reportlab.platypus.tableofcontents import TableOfContents

from app.safe_text import for_terminal
from reports.content import Chart, ReportContent
from reports.content import Table as ContentTable
from reports.options import version

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
MAX_TEXT = 20_000  # characters of one paragraph (the longest the report writes is about 2,000)
MAX_CELL = 90  # characters of untrusted text in a table cell (the appendix prints it in full)
FONT_FILES = {"SS-Regular": "DejaVuSans.ttf", "SS-Bold": "DejaVuSans-Bold.ttf"}  # shipped in reports/fonts/


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


UNIT_SPACE = re.compile(r"(?<=\d) (?=(?:%|IOPS|ms|s|kB/s|MB/s|I/Os|disks?|GB|min|users?)(?![\w/]))")


def text(s: Any) -> str:
    """Untrusted text for a Paragraph: escaped, so '<b>' prints as '<b>'; control and bidi characters written
    visibly (``<U+202E>``: a right-to-left override would reverse the text after it); at most MAX_TEXT characters
    (a name from a hostile file cannot stall the layout); a number and its unit are joined by a no-break space, so
    a line never ends between them ('95 %', '210 IOPS')."""
    s = str(s)
    if len(s) > MAX_TEXT:
        s = s[:MAX_TEXT] + f"… (cut: {len(s):,} characters)"
    return escape(UNIT_SPACE.sub("\u00a0", for_terminal(s, keep_lines=True)))


def cell(s: Any, limit: int = MAX_CELL) -> str:
    s = str(s)
    return text(s if len(s) <= limit else s[: limit - 1] + "…")


class _NumberedCanvas(rl_canvas.Canvas):
    """Two-pass page numbering: 'n / N' needs the page count."""

    footer_left = ""
    confidential = ""
    font = "Helvetica"

    def __init__(self, *args: Any, **kwargs: Any):
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
            if self._pageNumber > 1:
                self.setFont(self.font, 8)
                self.setFillColor(colors.HexColor("#666666"))
                w, _h = self._pagesize
                self.drawRightString(w - 18 * mm, 10 * mm, f"{self._pageNumber} / {n}")
                self.drawString(18 * mm, 10 * mm, self.footer_left[:110])
            if self.confidential:
                self.setFont(self.font, 8)
                self.setFillColor(colors.HexColor("#a00000"))
                w, _h = self._pagesize
                self.drawCentredString(w / 2, 5 * mm, self.confidential[:140])
            super().showPage()
        self.showOutline()
        super().save()


class _Doc(BaseDocTemplate):
    """Headings become contents entries that link to them, and PDF bookmarks (the reader's outline)."""

    def afterFlowable(self, flowable: Any) -> None:  # noqa: N802 (reportlab name)
        level = getattr(flowable, "_toc_level", None)
        if isinstance(flowable, Paragraph) and level is not None:
            title = flowable.getPlainText()
            key = f"s{getattr(flowable, '_toc_key', title)}"
            self.canv.bookmarkPage(key)
            self.canv.addOutlineEntry(title, key, level=level, closed=level > 0)
            self.notify("TOCEntry", (level, title, self.page, key))


def _styles(accent: str) -> dict[str, ParagraphStyle]:
    reg, bold = _fonts()
    base = getSampleStyleSheet()
    acc = colors.HexColor(accent)
    return {
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
        "title": ParagraphStyle("title", fontName=bold, fontSize=26, leading=32, textColor=acc, spaceAfter=14),
        "subtitle": ParagraphStyle("subtitle", fontName=reg, fontSize=13, leading=18, spaceAfter=6,
                                   splitLongWords=True),
        "caption": ParagraphStyle("caption", fontName=reg, fontSize=7.5, leading=9, alignment=TA_CENTER,
                                  textColor=colors.HexColor("#555555")),
        "answer_q": ParagraphStyle("answer_q", fontName=bold, fontSize=10.5, leading=14, keepWithNext=1,
                                   splitLongWords=True),
        "answer": ParagraphStyle("answer", parent=base["BodyText"], fontName=reg, fontSize=9.5, leading=13,
                                 leftIndent=12, splitLongWords=True),
        "toc1": ParagraphStyle("toc1", fontName=reg, fontSize=10, leading=15, leftIndent=6),
    }


def _heading(txt: str, style: ParagraphStyle, level: int, key: str = "") -> Paragraph:
    p = Paragraph(text(txt), style)
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
        if not tok or pdfmetrics.stringWidth(tok, font, size) <= room:
            out.append(text(tok))
            continue
        lines, cur = [], ""
        for seg in _segments(tok):
            if cur and pdfmetrics.stringWidth(cur + seg, font, size) > room:
                lines.append(cur)
                cur = seg
            else:
                cur += seg
        lines.append(cur)
        out.append("<br/>".join(text(x) for x in lines))
    return " ".join(out)


def fit_columns(header: list[str], rows: list[list[str]], width: float, fonts: tuple[str, str],
                given: list[float] | None = None) -> tuple[list[float], float, bool | None]:
    """Column widths (points), font size and whether names must break at _ / . - so that no cell splits a
    number or a word: every column is at least as wide as its widest token; the rest of the width goes to
    the columns with the most text. The font shrinks (down to 6 pt) before names are broken. The flag is
    None when even that does not fit: then over-long tokens are split where they must be."""
    reg, bold = fonts
    n = len(header)
    cols = [[header[c]] + [r[c] for r in rows] for c in range(n)]
    mins: list[float] = []
    nats: list[float] = []
    for size in CELL_SIZES:
        for split in (False, True):
            mins, nats = [], []
            for cells in cols:
                m = nat = 0.0
                for k, v in enumerate(cells):
                    f = bold if k == 0 else reg
                    toks = [x for tok in _tokens(v) for x in (_segments(tok) if split else [tok])]
                    m = max([m] + [pdfmetrics.stringWidth(x, f, size) for x in toks])
                    nat = max(nat, pdfmetrics.stringWidth(v, f, size))
                mins.append(m + 2 * CELL_PAD + 0.5)
                nats.append(max(nat + 2 * CELL_PAD + 0.5, mins[-1]))
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
    capped = [min(m, 0.45 * width) for m in mins]
    if sum(capped) <= width:
        return _share(capped, nats, width), CELL_SIZES[-1], None
    return [m * width / sum(capped) for m in capped], CELL_SIZES[-1], None


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
    header = [_cut(h, 40) for h in t.header]
    rows = [[_cut(v, t.max_cell) for v in (row + [""] * n)[:n]] for row in t.rows]
    fonts = (st["cell"].fontName, st["head"].fontName)
    widths, size, split = fit_columns(header, rows, width, fonts, t.widths)
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
        ("LEFTPADDING", (0, 0), (-1, -1), CELL_PAD), ("RIGHTPADDING", (0, 0), (-1, -1), CELL_PAD),
        ("TOPPADDING", (0, 0), (-1, -1), 2), ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
    ]))
    out.append(tbl)
    if t.note:
        out.append(Paragraph(text(t.note), st["small"]))
    out.append(Spacer(1, 4 * mm))
    return out


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
    """Legend entries (index, label, x) wrapped into rows that fit the chart's width."""
    rows: list[list[tuple[int, str, float]]] = [[]]
    x = 4.0
    for i, lab in enumerate(labels):
        w = 14 + pdfmetrics.stringWidth(lab, font, 6.5)
        if rows[-1] and x + w > width - 4:
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
        self.tmin = min([(ln.get("t0") or ln["t"])[0] for ln in lines] + [b["t0"] for b in bands])
        self.tmax = max([ln["t"][-1] for ln in lines] + [b["t1"] for b in bands])
        self.tspan = (self.tmax - self.tmin) or 1.0
        vals = [v for ln in lines for v in ln["y"] if v is not None and v == v]  # v == v: not NaN
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


def line_chart(chart: Chart, width: float, font: str) -> Drawing:
    """Runs on one time axis: each interval a step over the seconds it covers (min/max per point column for
    long series), an optional logarithmic value axis, reference lines (``refs``: value, label, style cap | limit |
    level) and highlighted time ranges (``bands``: t0, t1, label, style worst | over | phase). A line with
    ``markers`` has a dot at each point (and no line with ``connect`` False), one with ``dash`` is dashed, one with
    ``colour`` is drawn in it; the x axis is whatever ``x`` names (a load in IOPS for the load limit)."""
    lines = [ln for ln in chart.data["lines"] if ln["t"]]
    legend = _legend_rows([ln["label"][:60] for ln in lines], width, font)
    top = 9 * mm + 3.2 * mm * len(legend)
    h = 75 * mm + 3.2 * mm * (len(legend) - 1)
    d = Drawing(width, h)
    left, bottom, right = 18 * mm, 12 * mm, 4 * mm
    if not lines:
        return d
    refs = [r for r in chart.data.get("refs") or [] if r.get("value") and r["value"] > 0]
    bands = [b for b in chart.data.get("bands") or [] if b.get("t0") is not None and b.get("t1") is not None]
    ax = _Axes(chart, lines, bands, [r["value"] for r in refs], (left, bottom, width - left - right, h - bottom - top))
    _bands(d, ax, bands, font)  # under the grid and the lines
    _grid(d, ax, chart, font)
    _curves(d, ax, lines)
    _refs(d, ax, refs, font)
    for r, row in enumerate(legend):
        yy = h - 4 * mm - r * 3.2 * mm
        for i, lab, x in row:
            col = _line_colour(lines[i], i)
            d.add(Line(x, yy, x + 8, yy, strokeColor=col, strokeWidth=1.5))
            d.add(String(x + 10, yy - 2.5, lab, fontName=font, fontSize=6.5))
    return d


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
            d.add(String(x0 + 1, ax.bottom + ax.ph - 7 - (8 if style == "worst" else 0), _cut(b["label"], 28),
                         fontName=font, fontSize=6, fillColor=colors.HexColor("#333333")))


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
    columns = int(ax.pw)  # one point column per PDF point of width
    for i, ln in enumerate(lines):
        col = _line_colour(ln, i)
        y = [v if v is not None else 0.0 for v in ln["y"]]
        pts: list[float] = []
        if ln.get("t0") and len(ln["t"]) <= columns:  # steps: each interval over the seconds it covers
            for a, b, v in zip(ln["t0"], ln["t"], y):
                pts += [ax.x(a), ax.y(v), ax.x(b), ax.y(v)]
        else:
            t, yy = decimate(ln["t"], y, columns)
            for a, b in zip(t, yy):
                pts += [ax.x(a), ax.y(b)]
        if ln.get("connect", True):
            d.add(PolyLine(pts, strokeColor=col, strokeWidth=0.9, strokeDashArray=ln.get("dash")))
        if ln.get("markers"):  # measured points drawn as dots (separate measurements: ``connect`` False)
            for a, v in zip(ln["t"], y):
                d.add(Circle(ax.x(a), ax.y(v), 1.8, fillColor=col, strokeColor=None))


def _refs(d: Drawing, ax: _Axes, refs: list[dict[str, Any]], font: str) -> None:
    last_y = None
    for r in sorted(refs, key=lambda r: r["value"]):
        colour, dash = REF_STYLES.get(r.get("style", "cap"), REF_STYLES["cap"])
        y = ax.y(r["value"])
        d.add(Line(ax.left, y, ax.left + ax.pw, y, strokeColor=colors.HexColor(colour), strokeWidth=1,
                   strokeDashArray=dash))
        ty = y + 2 if last_y is None or y + 2 - last_y > 8 else last_y + 8  # labels of close lines do not overlap
        d.add(String(ax.left + ax.pw - 2, ty, r.get("label", ""), fontName=font, fontSize=6.5, textAnchor="end",
                     fillColor=colors.HexColor(colour)))
        last_y = ty


REF_STYLES = {"cap": ("#c00000", [4, 2]), "limit": ("#e07000", [1, 2]), "level": ("#555555", [3, 2])}
BAND_FILLS = {"worst": colors.Color(0.75, 0.1, 0.1, alpha=0.28), "over": colors.Color(0.9, 0.3, 0.3, alpha=0.12),
              "phase": colors.Color(0.2, 0.4, 0.7, alpha=0.07), "phase2": colors.Color(0.2, 0.4, 0.7, alpha=0.14)}


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
    h = 70 * mm
    d = Drawing(width, h)
    pw_all = width / max(1, len(panels))
    for k, p in enumerate(panels):
        grid = p["grid"]
        labels = p["labels"]
        x0 = k * pw_all + 18 * mm
        pw = pw_all - 32 * mm
        y0, ph = 14 * mm, h - 22 * mm
        ns, nb = len(grid), len(labels)
        vmax = max((max(r) for r in grid), default=0) or 1
        cw, ch = pw / max(1, ns), ph / max(1, nb)
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                # colour on a log scale: a few hundred slow I/Os beside 30,000 fast ones stay visible
                d.add(Rect(x0 + i * cw, y0 + j * ch, cw, ch, fillColor=_viridis(math.log1p(v) / math.log1p(vmax)),
                           strokeColor=None))
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
        d.add(String(x0, h - 5 * mm, p["label"][:50], fontName=font, fontSize=7))
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


VERDICT_COLOURS = {"met": "#1a7f37", "held": "#1a7f37", "not met": "#c00000", "not held": "#c00000"}


def _answer(item: dict[str, Any], st: dict[str, ParagraphStyle], index: dict[str, int], accent: str) -> Any:
    """One question on the Answers page: its title, then the verdict (coloured), the deciding figure, the reason
    and a link to the section with the evidence."""
    colour = VERDICT_COLOURS.get(item["verdict"], "#555555")
    body = f'<font color="{colour}"><b>{text(item["verdict_words"])}</b></font>'
    if item["number"]:
        body += f" · <b>{text(item['number'])}</b>."
    body += f" {text(item['reason'])}"
    if item.get("section") in index:
        body += (f' <a href="#s{index[item["section"]]}" color="{accent}"><u>Evidence: '
                 f'{text(item["section_title"])}</u></a>')
    return KeepTogether([Paragraph(f"<b>{item['n']}. {text(item['title'])}</b>", st["answer_q"]),
                         Paragraph(body, st["answer"]), Spacer(1, 2.5 * mm)])


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

    story: list[Any] = []
    if content.logo:  # read and checked by build_report (reports.logo): a plain image of sensible size
        img = Image(io.BytesIO(content.logo))
        scale = min(60 * mm / img.drawWidth, 25 * mm / img.drawHeight, 1.0)
        img.drawWidth *= scale
        img.drawHeight *= scale
        img.hAlign = "LEFT"
        story += [img, Spacer(1, 10 * mm)]
    else:
        story.append(Spacer(1, 30 * mm))
    story.append(Paragraph(text(opt.title), st["title"]))
    if opt.customer:
        story.append(Paragraph("Prepared for " + text(opt.customer), st["subtitle"]))
    by = " · ".join(x for x in (opt.consultant, opt.company) if x)
    if by:
        story.append(Paragraph("By " + text(by), st["subtitle"]))
    story.append(Paragraph(text(opt.date), st["subtitle"]))
    story.append(Spacer(1, 12 * mm))
    toc = TableOfContents()
    toc.levelStyles = [st["toc1"]]
    story += [Paragraph("Contents", st["h2"]), toc, PageBreak()]

    index = {sec.key: n for n, sec in enumerate(content.sections)}  # a section's bookmark: s<n>
    for n_sec, sec in enumerate(content.sections):
        story.append(_heading(sec.title, st["h1"], 0, f"{n_sec}"))
        for kind, i in sec.order:
            if kind == "a":
                story.append(_answer(sec.answers[i], st, index, opt.accent))
            elif kind == "p":
                style = st["verdict"] if sec.key == "summary" else (st["small"] if sec.key == "appendix"
                                                                       else st["body"])
                bullet = "•" if sec.key == "summary" else None
                story.append(Paragraph(text(sec.paragraphs[i]), style, bulletText=bullet))
                story.append(Spacer(1, 1.5 * mm))
            elif kind == "t":
                story += _table(sec.tables[i], st, width, opt.accent)
            else:
                ch = sec.charts[i]
                drawing = line_chart(ch, width, reg) if ch.kind == "lines" else heatmap(ch, width, reg)
                story.append(KeepTogether([drawing, Paragraph(text(ch.title), st["caption"]), Spacer(1, 4 * mm)]))
        story.append(PageBreak() if sec.key == "answers" else Spacer(1, 4 * mm))  # the answers: a page of their own

    while story and isinstance(story[-1], Spacer):  # space after the last line: on a full page, a blank page
        story.pop()
    footer = " · ".join(x for x in (opt.title, opt.customer) if x)

    class Canvas(_NumberedCanvas):
        footer_left = footer
        confidential = opt.confidential
        font = reg

    doc.multiBuild(story, canvasmaker=Canvas)
