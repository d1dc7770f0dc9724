"""hdparm ``-t`` / ``-T`` timing output, old and new wording, any number of runs and devices per file.

``hdparm -tT DEV...`` prints, per device, a ``DEV:`` line and one line per test::

    /dev/sda:
     Timing cached reads:   18706 MB in  1.98 seconds = 9423.90 MB/sec
     Timing buffered disk reads: 1178 MB in  3.00 seconds = 392.62 MB/sec

Older releases (2003) say ``Timing buffer-cache reads:`` and print ``=213.33 MB/sec`` without a
space; ``--direct`` says ``Timing O_DIRECT cached reads`` / ``Timing O_DIRECT disk reads``; a rate
under 1 MB/s is printed in ``kB/sec``. hdparm's MB is 2^20 bytes (its timing buffer is 2 MiB).

A failed read is a measurement too: ``read() failed: Input/output error`` (or ``read(N) returned M
bytes``, ``read() hit EOF - device too small``, ``lseek() failed``) is stored with ``ok = false``.
hdparm prints the disk test's label before reading, so its failure follows the label on the same
line; the cache test reads one block *before* printing its label, so a failure on a line of its
own, before any label, is the cache test's (hdparm's ``time_cache()``).

Shell prompts and commands pasted between runs (``~$ sudo hdparm -t /dev/sda``) are kept in
``runs.meta.commands``; other text is skipped with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn, read_text
from parsers.kinds import register_kind
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import INT, LIST, OBJ, TEXT, Counts, MetaKey, Semantics, Span

_LABEL = re.compile(r"^\s*Timing\s+(O_DIRECT\s+)?(cached|buffer-cache|buffered disk|disk)\s+reads:\s*(.*)$")
_MEASURE = re.compile(r"^(\d+(?:\.\d+)?)\s*MB\s+in\s+(\d+(?:\.\d+)?)\s+seconds\s*=\s*"
                      r"(\d+(?:\.\d+)?)\s*([kMG]B)/sec\s*$")
_FAIL = re.compile(r"^\s*(read\(\) failed:.*|read\(\d+\) returned \d+ bytes.*|read\(\) hit EOF.*"
                   r"|lseek\(\) failed:.*)$")
_DEVICE = re.compile(r"^(/\S+?):(?:\s+(.*))?$|^([\w.\-]+):$")
_COMMAND = re.compile(r"(^|\s)hdparm(\s|$)")

SCHEMA: dict[str, Any] = frame_schema("hdparm_results")
MAX_STRAY_WARNINGS = 5


KIND = register_kind("hdparm", "hdparm")



# what hdparm's timings mean (parsers.semantics)
SEMANTICS = Semantics(
    main_table="hdparm_results", span=Span.NONE, counts=Counts.TOTALS,
    wording={"test": "Timing cached reads (-T) / Timing buffered disk reads (-t)", "mb": "MB in", "seconds": "seconds",
             "mb_s": "MB/sec (kB/sec)"},
    meta=(MetaKey("devices", LIST, "the devices timed, in the file's order"),
          MetaKey("device_notes", OBJ, "what hdparm printed after a device's name"),
          MetaKey("commands", LIST, "the hdparm command lines in the file"),
          MetaKey("labels", LIST, "the timing labels as printed"),
          MetaKey("measurements", INT, "measurements read"), MetaKey("failed", INT, "failed measurements"),
          MetaKey("mb", TEXT, "what hdparm's MB is"),
          MetaKey("unlabelled_failure", TEXT, "how a read() failure on a line of its own was read")))


class HdparmFormat:
    id = "hdparm-text"
    kind = KIND.id
    label = "hdparm -t / -T timings"
    priority = 300
    tables = ("hdparm_results",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        text = head.decode("utf-8", errors="replace")
        if re.search(r"^\s*Timing\s+(O_DIRECT\s+)?(cached|buffer-cache|buffered disk|disk)\s+reads:", text,
                     re.MULTILINE):
            return 0.95
        return 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        yield from _parse(read_text(path, "hdparm output"), state, warn)


def _result(label: str, rest: str, ln: int) -> dict[str, Any]:
    """The figures after a timing line's label, or its read() error."""
    mm = _MEASURE.match(rest)
    if mm:
        mb, secs, rate, unit = float(mm.group(1)), float(mm.group(2)), float(mm.group(3)), mm.group(4)
        mb_s = rate / 1024 if unit == "kB" else rate * 1024 if unit == "GB" else rate
        return {"mb": mb, "seconds": secs, "mb_s": mb_s, "ok": True, "error": None}
    fm = _FAIL.match(rest)
    if fm:
        return {"mb": None, "seconds": None, "mb_s": None, "ok": False, "error": fm.group(1).strip()}
    if not rest:
        raise ParseError(f"{label!r} without a result: the output is cut off here", ln)
    raise ParseError(f"{label!r} result not understood: {rest[:60]!r} (expected 'N MB in S seconds = "
                     "R MB/sec' or a read() error)", ln)


def _parse(text: str, state: JobState, warn: WarnFn) -> Iterator[Event]:
    rows: list[dict[str, Any]] = []
    device: str | None = None
    device_notes: dict[str, str] = {}
    commands: list[str] = []
    stray: list[int] = []
    runs: dict[tuple[str, str, bool], int] = {}
    labels_seen: dict[str, int] = {}

    def add(ln: int, test: str, direct: bool, label: str | None, **vals: Any) -> None:
        if device is None:
            raise ParseError("hdparm timing before any device line ('/dev/...:'): which device was measured?", ln)
        key = (device, test, direct)
        idx = runs.get(key, 0)
        runs[key] = idx + 1
        rows.append({"device": device, "test": test, "direct": direct, "run_idx": idx, "label": label,
                     "line": ln, **vals})

    for i, raw in enumerate(text.splitlines()):
        ln = i + 1
        s = raw.strip()
        if not s:
            continue
        m = _LABEL.match(raw)
        if m:
            direct = bool(m.group(1))
            test = "cached" if m.group(2) in ("cached", "buffer-cache") else "disk"
            label = " ".join(s.split(":", 1)[0].split())
            labels_seen[label] = labels_seen.get(label, ln)
            add(ln, test, direct, label, **_result(label, m.group(3).strip(), ln))
            continue
        fm = _FAIL.match(raw)
        if fm:
            # the cache test (-T) reads a block before printing its label: its failure stands alone
            add(ln, "cached", False, None, mb=None, seconds=None, mb_s=None, ok=False, error=fm.group(1).strip())
            continue
        if re.match(r"Timing\b", s):
            raise ParseError(f"hdparm timing line not understood: {s[:80]!r}", ln)
        if _COMMAND.search(s):
            commands.append(s)
            continue
        m = _DEVICE.match(s)
        if m:
            device = m.group(1) or m.group(3)
            if m.group(2):
                device_notes[device] = m.group(2).strip()
            continue
        stray.append(ln)
    if stray:
        more = f" (and {len(stray) - 1} more such lines)" if len(stray) > 1 else ""
        warn(f"text that is not hdparm timing output ignored{more}", stray[0])
    if not rows:
        raise ParseError("no hdparm timing found (expected 'Timing cached reads:' or 'Timing buffered disk reads:' "
                         "lines)", None)
    devices = list(dict.fromkeys(r["device"] for r in rows))
    failed = [r for r in rows if not r["ok"]]
    info = RunInfo(kind="hdparm")
    info.meta.update({
        "devices": devices, "device_notes": device_notes, "commands": commands,
        "labels": list(labels_seen), "measurements": len(rows), "failed": len(failed),
        "mb": "hdparm's MB = 2^20 bytes",
    })
    if any(r["error"] and r["label"] is None for r in rows):
        info.meta["unlabelled_failure"] = ("a read() failure on a line of its own is hdparm's cache test (-T), "
                                           "which reads once before printing its label")
    for r in failed:
        warn(f"{r['device']}: {r['test']} read test failed: {r['error']}", r["line"])
    key = "hdparm"
    yield RunStart(key, info)
    yield Rows(key, "hdparm_results", pl.DataFrame([{c: r.get(c) for c in SCHEMA} for r in rows],
                                                   schema=SCHEMA, orient="row"))
    state.progress(1.0, "done")
    yield RunEnd(key, {"n_devices": len(devices), "n_samples": None}, info=info)


FORMAT = register(HdparmFormat())
