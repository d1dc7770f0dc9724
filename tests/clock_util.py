"""Copies of real captures with their clocks shifted by a known amount, for the clock-offset tests.

The captures in tests/corpus/clock/ were made on one disk at once (see MANIFEST.md): on one clock. A copy whose
every printed time is ``shift_s`` later is the same capture made by a host whose clock runs ``shift_s`` ahead;
StormScope must then find an offset of ``-shift_s`` (seconds to add to the copy's clock to put it back).

Only the time stamps change, character for character in the tool's own layout; every other byte is kept.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})([+-]\d{4})$")  # iostat -t with S_TIME_FORMAT=ISO
_SAR = re.compile(r"^(\d{2}:\d{2}:\d{2})( .*)$")  # sar's 24-hour time at the start of a header or sample line


def shift_iostat_iso(text: str, shift_s: float) -> str:
    """Every ``YYYY-MM-DDTHH:MM:SS+zzzz`` stamp line of an iostat ``-t`` log, ``shift_s`` later."""
    out = []
    for line in text.splitlines(keepends=True):
        m = _ISO.match(line.rstrip("\n"))
        if m:
            t = datetime.fromisoformat(m.group(1)) + timedelta(seconds=shift_s)
            line = f"{t:%Y-%m-%dT%H:%M:%S}{m.group(2)}\n"
        out.append(line)
    return "".join(out)


def shift_sar(text: str, shift_s: float) -> str:
    """Every time of a live ``sar -d`` text report (24-hour clock), ``shift_s`` later; the banner's date stays (the
    shifts used here never cross midnight, which the test checks)."""
    out = []
    for line in text.splitlines(keepends=True):
        m = _SAR.match(line.rstrip("\n"))
        if m:
            t = datetime.strptime(m.group(1), "%H:%M:%S")
            moved = t + timedelta(seconds=shift_s)
            assert moved.date() == t.date(), "a shift across midnight would need the banner's date changed too"
            line = f"{moved:%H:%M:%S}{m.group(2)}\n"
        out.append(line)
    return "".join(out)


def shifted_copy(src: Path, dst_dir: Path, shift_s: float) -> Path:
    """A copy of an iostat (ISO stamps) or sar capture with its clock ``shift_s`` ahead, in ``dst_dir``."""
    text = src.read_text()
    shifted = shift_sar(text, shift_s) if "_sar-" in src.name else shift_iostat_iso(text, shift_s)
    assert shifted != text, f"no time stamp shifted in {src.name}"
    dst = dst_dir / f"{src.stem}_clock{shift_s:+g}s{src.suffix}"
    dst.write_text(shifted)
    return dst


def later_start(src: Path, dst_dir: Path, reports: int) -> Path:
    """A copy of an iostat log without time stamps whose first ``reports`` reports are left out: the same capture
    started that many intervals later (the banner kept)."""
    lines = src.read_text().splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("Device")]
    assert len(starts) > reports, f"{src.name} has {len(starts)} reports"
    dst = dst_dir / f"{src.stem}_from-report-{reports + 1}{src.suffix}"
    dst.write_text("".join(lines[:starts[0]] + lines[starts[reports]:]))
    return dst
