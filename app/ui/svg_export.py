"""Vector (SVG) export of a view as it is on screen, drawing what the PNG export draws.

Qt's SVG generator (``QSvgGenerator``) ignores every clip: a chart zoomed in drew its curves across the axes and
the neighbouring charts (bars ran across the heatmaps, the curves of a zoomed overlay past its axes); it scales the
text by 72/96 against the curves unless told the screen's resolution; and it writes a chart's curves with their data
transform and ``vector-effect="non-scaling-stroke"``, which librsvg (rsvg-convert, Inkscape's import, many
converters) does not know: a 2-pixel riser became a 26-pixel bar. So here:

* every widget and every chart item is painted on its own (as Qt paints them: stacking order, transform, opacity)
  into an SVG fragment, at the widget's resolution;
* what a widget or a chart's plot area clips on screen is masked to that rectangle (``<mask>``: honoured by Qt SVG
  and by librsvg, where ``<clipPath>`` is not by Qt SVG);
* the data transform of cosmetic strokes is applied to their coordinates, so that no renderer needs
  ``non-scaling-stroke``.

``export_svg(widget, path, extra=...)`` writes the file; ``extra(painter)`` paints more below the widget (the results
table under the overlay chart) and ``height`` makes room for it.
"""

from __future__ import annotations

import base64
import itertools
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QPoint, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QImageWriter, QPainter, QRegion, QTransform
from PySide6.QtSvg import QSvgGenerator, QSvgRenderer
from PySide6.QtWidgets import QGraphicsItem, QGraphicsView, QStyleOptionGraphicsItem, QWidget

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
ET.register_namespace("", SVG)
ET.register_namespace("xlink", XLINK)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
SHAPES = ("polyline", "polygon", "path", "rect", "line")
DEFAULTS = {"fill": "none", "stroke": "black", "stroke-width": "1", "fill-rule": "evenodd",
            "stroke-linecap": "square", "stroke-linejoin": "bevel"}


def _tag(e: ET.Element) -> str:
    return e.tag.rsplit("}", 1)[-1]


class _Document:
    """The SVG being assembled: fragments appended in painting order, each masked to its clip when it has one."""

    def __init__(self, width: int, height: int, title: str):
        self.width, self.height = width, height
        self.root = ET.Element(f"{{{SVG}}}svg", {"width": f"{width}px", "height": f"{height}px",
                                                 "viewBox": f"0 0 {width} {height}", "version": "1.1"})
        ET.SubElement(self.root, f"{{{SVG}}}title").text = title
        self.defs = ET.SubElement(self.root, f"{{{SVG}}}defs")
        self.body = ET.SubElement(self.root, f"{{{SVG}}}g", DEFAULTS)
        self.masks: dict[tuple[float, float, float, float], str] = {}
        self._ids = itertools.count(1)
        self._last: tuple[tuple[float, float, float, float] | None, ET.Element] | None = None

    def _mask(self, r: tuple[float, float, float, float]) -> str:
        if r not in self.masks:
            name = f"clip{len(self.masks) + 1}"
            # the mask's own area is the clip (Qt SVG ignores a mask whose buffer, the page at a print scale, is
            # too big)
            m = ET.SubElement(self.defs, f"{{{SVG}}}mask", {"id": name, "maskUnits": "userSpaceOnUse",
                                                            "x": _fmt(r[0]), "y": _fmt(r[1]), "width": _fmt(r[2]),
                                                            "height": _fmt(r[3])})
            ET.SubElement(m, f"{{{SVG}}}rect", {"x": _fmt(r[0]), "y": _fmt(r[1]), "width": _fmt(r[2]),
                                                "height": _fmt(r[3]), "fill": "white"})
            self.masks[r] = name
        return self.masks[r]

    def add(self, svg: bytes, clip: QRectF | None) -> None:
        """The groups of one fragment (the output of one QSvgGenerator), masked to ``clip`` (None: no clip)."""
        root = ET.fromstring(svg)
        prefix = f"f{next(self._ids)}_"
        defs = root.find(f"{{{SVG}}}defs")
        renames: dict[str, str] = {}
        if defs is not None:
            for d in list(defs):
                ident = d.get("id")
                if ident:
                    renames[ident] = prefix + ident
                    d.set("id", renames[ident])
                self.defs.append(d)
        top = root.find(f"{{{SVG}}}g")
        if top is None or not len(top):
            return
        elements = list(top)
        if renames:
            for e in elements:
                _rename(e, renames)
        for e in elements:
            _bake(e)
        if clip is not None:  # what lies outside is cut off, the mask then only smooths the edge: a renderer that
            for e in elements:  # masks through a buffer of the masked part's size (Qt SVG) gets a small one
                _cut(e, clip)
        # groups that draw nothing (a state change Qt wrote) are left out: Qt SVG refuses to mask an empty group
        elements = [e for e in elements if not _empty(e)]
        if not elements:
            return
        key = None if clip is None else (round(clip.x(), 3), round(clip.y(), 3), round(clip.width(), 3),
                                         round(clip.height(), 3))
        if self._last is not None and self._last[0] == key:  # the same clip as the fragment before: one group
            parent = self._last[1]
        elif key is None:
            parent = self.body
        else:
            parent = ET.SubElement(self.body, f"{{{SVG}}}g", {"mask": f"url(#{self._mask(key)})"})
        self._last = (key, parent)
        parent.extend(elements)

    def write(self, path: str) -> None:
        ET.ElementTree(self.root).write(path, encoding="utf-8", xml_declaration=True)


def _empty(e: ET.Element) -> bool:
    if _tag(e) != "g":
        return False
    for k in list(e):
        if _empty(k):
            e.remove(k)
    return not len(e)


def _fmt(v: float) -> str:
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _rename(e: ET.Element, renames: dict[str, str]) -> None:
    for k, v in list(e.attrib.items()):
        if "url(#" in v:
            e.set(k, re.sub(r"url\(#([^)]+)\)", lambda m: f"url(#{renames.get(m.group(1), m.group(1))})", v))
    for c in e:
        _rename(c, renames)


def _matrix(text: str | None) -> QTransform | None:
    if not text or not text.startswith("matrix("):
        return None
    a, b, c, d, e, f = (float(x) for x in NUMBER.findall(text))
    return QTransform(a, b, c, d, e, f)


def _bake(group: ET.Element) -> None:
    """A group drawn through a data transform, made renderer-independent: cosmetic strokes get the transform applied
    to their coordinates (they keep their width in pixels without ``non-scaling-stroke``, which librsvg ignores: a
    2-pixel riser became a 26-pixel bar), and images are resampled to their place on the page, cell by cell (a
    renderer that smooths a 3 x 11-pixel heatmap stretched to 300 pixels blurred its cells; a flip through the
    transform is done in the image)."""
    if _tag(group) != "g":
        return
    t = _matrix(group.get("transform"))
    kids = list(group)
    if t is None or t.isIdentity() or not kids:
        return
    if all(_tag(k) == "image" for k in kids):
        if t.isRotating():
            return
        for k in kids:
            _bake_image(k, t)
        del group.attrib["transform"]
        return
    if not all(_tag(k) in SHAPES for k in kids) or not any(k.get("vector-effect") == "non-scaling-stroke"
                                                           for k in kids):
        return
    for k in kids:
        tag = _tag(k)
        if tag in ("polyline", "polygon"):
            k.set("points", _points(_map(t, NUMBER.findall(k.get("points", "")))))
        elif tag == "path":
            k.set("d", _map_path(t, k.get("d", "")))
        elif tag == "line":
            (x1, y1), (x2, y2) = _map(t, [k.get("x1", "0"), k.get("y1", "0"), k.get("x2", "0"), k.get("y2", "0")])
            k.attrib.update({"x1": _fmt(x1), "y1": _fmt(y1), "x2": _fmt(x2), "y2": _fmt(y2)})
        elif tag == "rect":
            x, y = float(k.get("x", "0")), float(k.get("y", "0"))
            w, h = float(k.get("width", "0")), float(k.get("height", "0"))
            if t.isRotating():  # a rectangle turned by the transform: the polygon of its corners
                k.tag = f"{{{SVG}}}polygon"
                for a in ("x", "y", "width", "height"):
                    k.attrib.pop(a, None)
                k.set("points", _points([_map_xy(t, px, py) for px, py in ((x, y), (x + w, y), (x + w, y + h),
                                                                        (x, y + h))]))
            else:
                r = t.mapRect(QRectF(x, y, w, h))
                k.attrib.update({"x": _fmt(r.x()), "y": _fmt(r.y()), "width": _fmt(r.width()),
                                 "height": _fmt(r.height())})
        k.attrib.pop("vector-effect", None)
    del group.attrib["transform"]


def _cut(group: ET.Element, r: QRectF) -> None:
    """The baked shapes of ``group`` (device coordinates, no transform) cut to the rectangle ``r``: lines and
    strokes split where they leave it, filled shapes and images cropped. Groups with a transform (text) and curved
    paths are left to the mask."""
    if _tag(group) != "g" or group.get("transform"):
        return
    x0, y0, x1, y1 = r.left() - 1, r.top() - 1, r.right() + 1, r.bottom() + 1  # (a pen's half width beyond)
    for k in list(group):
        tag = _tag(k)
        new: list[ET.Element] = []
        if tag == "g":
            _cut(k, r)
            continue
        if tag == "polyline":
            pts = [(float(a), float(b)) for a, b in zip(*[iter(NUMBER.findall(k.get("points", "")))] * 2)]
            for run in _cut_line(pts, x0, y0, x1, y1):
                e = ET.Element(k.tag, dict(k.attrib))
                e.set("points", _points(run))
                new.append(e)
        elif tag == "polygon":
            pts = [(float(a), float(b)) for a, b in zip(*[iter(NUMBER.findall(k.get("points", "")))] * 2)]
            poly = _cut_polygon(pts, x0, y0, x1, y1)
            if len(poly) >= 3:
                k.set("points", _points(poly))
                new.append(k)
        elif tag == "rect":
            box = QRectF(float(k.get("x", "0")), float(k.get("y", "0")), float(k.get("width", "0")),
                         float(k.get("height", "0"))).intersected(QRectF(x0, y0, x1 - x0, y1 - y0))
            if not box.isEmpty():
                k.attrib.update({"x": _fmt(box.x()), "y": _fmt(box.y()), "width": _fmt(box.width()),
                                 "height": _fmt(box.height())})
                new.append(k)
        elif tag == "path" and not re.search(r"[^MLZmlz\d\s.,eE+-]", k.get("d", "")):
            new += _cut_path(k, x0, y0, x1, y1)
        elif tag == "image":
            if _crop_image(k, QRectF(x0, y0, x1 - x0, y1 - y0)):
                new.append(k)
        else:
            continue
        i = list(group).index(k)
        group.remove(k)
        for j, e in enumerate(new):
            group.insert(i + j, e)


def _cut_segment(a: tuple[float, float], b: tuple[float, float], x0: float, y0: float, x1: float, y1: float
                 ) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """Liang-Barsky: the part of the segment a-b inside the rectangle, or None."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    t0, t1 = 0.0, 1.0
    for p, q in ((-dx, a[0] - x0), (dx, x1 - a[0]), (-dy, a[1] - y0), (dy, y1 - a[1])):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return (a[0] + t0 * dx, a[1] + t0 * dy), (a[0] + t1 * dx, a[1] + t1 * dy)


def _cut_line(pts: list[tuple[float, float]], x0: float, y0: float, x1: float, y1: float
              ) -> list[list[tuple[float, float]]]:
    """A polyline's parts inside the rectangle, each a polyline of its own."""
    runs: list[list[tuple[float, float]]] = []
    for a, b in zip(pts, pts[1:]):
        seg = _cut_segment(a, b, x0, y0, x1, y1)
        if seg is None:
            continue
        if runs and runs[-1][-1] == seg[0]:
            runs[-1].append(seg[1])
        else:
            runs.append([seg[0], seg[1]])
    if len(pts) == 1 and x0 <= pts[0][0] <= x1 and y0 <= pts[0][1] <= y1:
        runs.append(pts)
    return runs


def _cut_polygon(pts: list[tuple[float, float]], x0: float, y0: float, x1: float, y1: float
                 ) -> list[tuple[float, float]]:
    """Sutherland-Hodgman: a filled polygon cut to the rectangle."""
    def cut(poly: list[tuple[float, float]], inside: Callable[[tuple[float, float]], bool],
            cross: Callable[[tuple[float, float], tuple[float, float]], tuple[float, float]]
            ) -> list[tuple[float, float]]:
        out: list[tuple[float, float]] = []
        for i, cur in enumerate(poly):
            prev = poly[i - 1]
            if inside(cur):
                if not inside(prev):
                    out.append(cross(prev, cur))
                out.append(cur)
            elif inside(prev):
                out.append(cross(prev, cur))
        return out

    def at_x(x: float) -> Callable[[tuple[float, float], tuple[float, float]], tuple[float, float]]:
        return lambda a, b: (x, a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0]))

    def at_y(y: float) -> Callable[[tuple[float, float], tuple[float, float]], tuple[float, float]]:
        return lambda a, b: (a[0] + (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]), y)

    for inside, cross in ((lambda p: p[0] >= x0, at_x(x0)), (lambda p: p[0] <= x1, at_x(x1)),
                          (lambda p: p[1] >= y0, at_y(y0)), (lambda p: p[1] <= y1, at_y(y1))):
        if not pts:
            break
        pts = cut(pts, inside, cross)
    return pts


def _cut_path(k: ET.Element, x0: float, y0: float, x1: float, y1: float) -> list[ET.Element]:
    """A path of straight lines cut to the rectangle: its closed subpaths as filled polygons, its open ones as
    lines (in one path element)."""
    parts: list[list[tuple[float, float]]] = []  # the subpaths' points
    shut: list[bool] = []  # whether each is closed
    for cmd, args in re.findall(r"([MLZmlz])([^MLZmlz]*)", k.get("d", "")):
        pts = [(float(a), float(b)) for a, b in zip(*[iter(NUMBER.findall(args))] * 2)]
        if cmd in "Mm":
            parts.append(pts)
            shut.append(False)
        elif cmd in "Ll" and parts:
            parts[-1] += pts
        elif cmd in "Zz" and parts:
            shut[-1] = True
    d = []
    for pts, closed in zip(parts, shut):
        if closed:
            poly = _cut_polygon(pts, x0, y0, x1, y1)
            if len(poly) >= 3:
                d.append("M" + " L".join(f"{_fmt(x)},{_fmt(y)}" for x, y in poly) + " Z")
        else:
            for run in _cut_line(pts, x0, y0, x1, y1):
                d.append("M" + " L".join(f"{_fmt(x)},{_fmt(y)}" for x, y in run))
    if not d:
        return []
    k.set("d", " ".join(d))
    return [k]


def _crop_image(k: ET.Element, r: QRectF) -> bool:
    """An image at its place on the page (baked) cropped to the rectangle; False when none of it is inside."""
    box = QRectF(float(k.get("x", "0")), float(k.get("y", "0")), float(k.get("width", "0")),
                 float(k.get("height", "0")))
    keep = box.intersected(r)
    if keep.isEmpty():
        return False
    if keep == box or k.get("transform"):
        return True
    href = k.get(f"{{{XLINK}}}href") or ""
    if not href.startswith("data:image/"):
        return True
    img = QImage.fromData(base64.b64decode(href.split(",", 1)[1]))
    sx, sy = img.width() / box.width(), img.height() / box.height()
    px = QRect(int((keep.x() - box.x()) * sx), int((keep.y() - box.y()) * sy), max(1, int(keep.width() * sx)),
               max(1, int(keep.height() * sy)))
    img = img.copy(px)
    buf = _png(img)
    k.set(f"{{{XLINK}}}href", "data:image/png;base64," + base64.b64encode(bytes(buf.data().data())).decode("ascii"))
    k.attrib.update({"x": _fmt(box.x() + px.x() / sx), "y": _fmt(box.y() + px.y() / sy),
                     "width": _fmt(px.width() / sx), "height": _fmt(px.height() / sy)})
    return True


def _points(pts: list[tuple[float, float]]) -> str:
    return " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in pts)


def _bake_image(k: ET.Element, t: QTransform) -> None:
    href = k.get(f"{{{XLINK}}}href") or k.get("href") or ""
    if not href.startswith("data:image/"):
        return
    img = QImage.fromData(base64.b64decode(href.split(",", 1)[1]))
    if img.isNull():
        return
    # (Qt scales an indexed image's columns unevenly: 3 columns to 647 pixels came out 228, 227 and 192 wide)
    img = img.convertToFormat(QImage.Format.Format_ARGB32)
    x, y = float(k.get("x", "0")), float(k.get("y", "0"))
    r = t.mapRect(QRectF(x, y, float(k.get("width", "0")), float(k.get("height", "0"))))
    flip_x, flip_y = t.m11() < 0, t.m22() < 0
    if flip_x and flip_y:
        img = img.flipped(Qt.Orientation.Horizontal | Qt.Orientation.Vertical)
    elif flip_x or flip_y:
        img = img.flipped(Qt.Orientation.Horizontal if flip_x else Qt.Orientation.Vertical)
    w, h = max(1, math.ceil(r.width() * 2)), max(1, math.ceil(r.height() * 2))
    if w * h <= 16_000_000:  # at twice the page's resolution, each cell a block of its own colour
        img = img.scaled(w, h, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.FastTransformation)
    buf = _png(img)
    data = base64.b64encode(bytes(buf.data().data())).decode("ascii")
    k.attrib.pop("href", None)
    k.set(f"{{{XLINK}}}href", f"data:image/png;base64,{data}")
    k.attrib.update({"x": _fmt(r.x()), "y": _fmt(r.y()), "width": _fmt(r.width()), "height": _fmt(r.height()),
                     "preserveAspectRatio": "none", "image-rendering": "optimizeSpeed"})


def _map(t: QTransform, numbers: list[str]) -> list[tuple[float, float]]:
    vals = [float(v) for v in numbers]
    return [_map_xy(t, vals[i], vals[i + 1]) for i in range(0, len(vals) - 1, 2)]


def _png(img: QImage) -> QBuffer:
    """``img`` encoded as PNG in a buffer. (QImage.save's stubs want the format as bytes, PySide6 takes only a
    str there; QImageWriter takes bytes in both.)"""
    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not QImageWriter(buf, QByteArray(b"PNG")).write(img):
        raise OSError(f"a {img.width()} x {img.height()} image could not be encoded as PNG")
    return buf


def _map_xy(t: QTransform, x: float, y: float) -> tuple[float, float]:
    p = t.map(QPointF(x, y))
    return p.x(), p.y()


def _map_path(t: QTransform, d: str) -> str:
    """An SVG path's absolute coordinates (Qt writes M, L, C and Z with absolute x,y pairs) through ``t``."""
    out = []
    for cmd, args in re.findall(r"([MLCQZmlcqz])([^MLCQZmlcqz]*)", d):
        if cmd not in "MLCQZ":
            return d  # a relative command: not what Qt writes; left as it is
        pts = _map(t, NUMBER.findall(args))
        out.append(cmd + " ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in pts))
    return " ".join(out)


# ---- painting the parts ------------------------------------------------------------------------------------------
def _fragment(size: QSize, dpi: int, paint: Callable[[QPainter], None]) -> bytes:
    buf = QBuffer()
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    gen = QSvgGenerator()
    gen.setOutputDevice(buf)
    gen.setResolution(dpi)  # one unit per pixel: text, axes and curves at one scale
    gen.setSize(size)
    gen.setViewBox(QRect(QPoint(0, 0), size))
    p = QPainter(gen)
    try:
        paint(p)
    finally:
        p.end()
    data: QByteArray = buf.data()
    return bytes(data.data())


def _drawn(svg: bytes, page: QSize, offset: QPoint, size: QSize) -> QImage:
    """The part of a fragment at ``offset`` of ``size``, as Qt's SVG renderer draws it."""
    img = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    p = QPainter(img)
    try:
        QSvgRenderer(QByteArray(svg)).render(p, QRectF(-offset.x(), -offset.y(), page.width(), page.height()))
    finally:
        p.end()
    return img


def _same(a: QImage, b: QImage) -> bool:
    """Two drawings of one widget agree: seen at half the resolution (the glyphs of a text fall a fraction of a pixel
    apart between the two painters), at most 1 % of the pixels (and a few) differ by more than a quarter of the range
    in a channel -- a style's own clip (a slider's filled groove) differs in a whole area."""
    if a.size() != b.size():
        return False
    import numpy as np

    def arr(img: QImage) -> Any:
        img = img.convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
        raw = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine())
        px = raw[:, :img.width() * 4].reshape(img.height(), img.width(), 4).astype(np.float32)
        h, w = (img.height() // 2) * 2, (img.width() // 2) * 2
        if h and w:  # 2 x 2 blocks averaged
            px = px[:h, :w].reshape(h // 2, 2, w // 2, 2, 4).mean(axis=(1, 3))
        return px

    diff = np.abs(arr(a) - arr(b)).max(axis=2)
    return int((diff > 64).sum()) <= 4 + diff.size // 100


def _picture(w: QWidget, offset: QPoint, page: QSize) -> bytes:
    """A widget as a picture at twice the resolution, in an SVG fragment at its place."""
    img = QImage(w.size() * 2, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(0)
    p = QPainter(img)
    try:
        p.scale(2, 2)
        QWidget.render(w, p, QPoint(0, 0), QRegion(w.rect()), QWidget.RenderFlag.DrawWindowBackground)
    finally:
        p.end()
    buf = _png(img)
    data = base64.b64encode(bytes(buf.data().data())).decode("ascii")
    return (f'<svg xmlns="{SVG}" xmlns:xlink="{XLINK}" width="{page.width()}" height="{page.height()}"><g>'
            f'<image x="{offset.x()}" y="{offset.y()}" width="{w.width()}" height="{w.height()}" '
            f'preserveAspectRatio="none" xlink:href="data:image/png;base64,{data}"/></g></svg>').encode()


class _Exporter:
    def __init__(self, doc: _Document, dpi: int):
        self.doc, self.dpi = doc, dpi
        self.size = QSize(doc.width, doc.height)

    def widget(self, w: QWidget, offset: QPoint, clip: QRectF) -> None:
        """The widget, then its visible children, each masked to what its parents leave visible."""
        rect = QRectF(offset.x(), offset.y(), w.width(), w.height())
        here = clip.intersected(rect)
        if here.isEmpty():
            return
        mask = None if clip.contains(rect) else here
        self.doc.add(self.own(w, offset), mask)
        if isinstance(w, QGraphicsView) and w.scene() is not None:
            vp = w.viewport()
            self.scene(w, offset + vp.mapTo(w, QPoint(0, 0)), here)
            return
        for child in w.children():
            if isinstance(child, QWidget) and not child.isWindow() and child.isVisible():
                self.widget(child, offset + child.pos(), here)

    def own(self, w: QWidget, offset: QPoint) -> bytes:
        """The widget's own painting (its children apart) as an SVG fragment; when Qt's SVG generator cannot draw it as
        the screen does -- a style that clips inside the widget, as a slider's groove or a progress bar -- the widget
        as a picture at twice the resolution instead (checked: the fragment drawn back against the widget painted)."""

        def paint(p: QPainter, at: QPoint = offset) -> None:
            # QWidget's render (a chart's QGraphicsView overrides it with the scene's): the widget alone, no children
            QWidget.render(w, p, at, QRegion(w.rect()), QWidget.RenderFlag.DrawWindowBackground)

        svg = _fragment(self.size, self.dpi, paint)
        want = QImage(w.size(), QImage.Format.Format_ARGB32_Premultiplied)
        want.fill(0)
        p = QPainter(want)
        try:
            paint(p, QPoint(0, 0))
        finally:
            p.end()
        if _same(want, _drawn(svg, self.size, offset, w.size())):
            return svg
        return _picture(w, offset, self.size)

    def scene(self, view: QGraphicsView, offset: QPoint, clip: QRectF) -> None:
        """A chart (a QGraphicsView): its background, then each item as the view paints it, masked to the plot area
        of a clipping parent (a chart's view box) and to the view."""
        vp = view.viewport()
        area = clip.intersected(QRectF(offset.x(), offset.y(), vp.width(), vp.height()))
        if area.isEmpty():
            return
        brush = view.backgroundBrush()

        def background(p: QPainter) -> None:
            if brush.style() != Qt.BrushStyle.NoBrush:
                p.fillRect(area, brush)

        self.doc.add(_fragment(self.size, self.dpi, background), None)
        to_device = view.viewportTransform() * QTransform.fromTranslate(offset.x(), offset.y())
        for item in view.scene().items(Qt.SortOrder.AscendingOrder):
            if not item.isVisible() or item.flags() & QGraphicsItem.GraphicsItemFlag.ItemHasNoContents:
                continue
            if item.effectiveOpacity() <= 0:
                continue
            t = item.deviceTransform(to_device)
            box = t.mapRect(item.boundingRect())
            mask = area
            parent: QGraphicsItem | None = item.parentItem()  # None at the top (the stubs do not say so)
            while parent is not None:  # a chart's view box clips the curves it holds
                if parent.flags() & QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape:
                    mask = mask.intersected(parent.deviceTransform(to_device).mapRect(parent.boundingRect()))
                parent = parent.parentItem()
            if mask.isEmpty() or not mask.intersects(box) and not box.isEmpty():
                continue

            def paint(p: QPainter, item: Any = item, t: QTransform = t) -> None:
                p.setTransform(t)
                p.setOpacity(item.effectiveOpacity())
                opt = QStyleOptionGraphicsItem()
                opt.exposedRect = item.boundingRect()
                item.paint(p, opt, vp)

            self.doc.add(_fragment(self.size, self.dpi, paint), None if mask.contains(box) else mask)


def export_svg(widget: QWidget, path: str, title: str = "StormScope", height: int | None = None,
               extra: Callable[[QPainter], None] | None = None, background: QColor | None = None) -> None:
    """``widget`` as on screen, as SVG at ``path``, on ``background`` (None: transparent, as the widget leaves it);
    ``height`` (default the widget's) makes room below it for what ``extra(painter)`` paints there."""
    w = widget.width()
    h = height if height is not None else widget.height()
    doc = _Document(w, h, title)
    ex = _Exporter(doc, int(round(widget.logicalDpiX())) or 96)
    if background is not None:
        doc.add(_fragment(QSize(w, h), ex.dpi, lambda p: p.fillRect(QRectF(0, 0, w, h), background)), None)
    ex.widget(widget, QPoint(0, 0), QRectF(0, 0, widget.width(), widget.height()))
    if extra is not None:
        doc.add(_fragment(QSize(w, h), ex.dpi, extra), None)
    doc.write(path)
