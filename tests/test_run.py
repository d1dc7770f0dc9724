"""A run as the workspace returns it (app.run): typed attributes, ``meta`` read by the keys the formats declare."""

from __future__ import annotations

import ast
from datetime import datetime
from pathlib import Path

import pytest

from app.importer import import_file
from app.run import Run, RunMeta, declared_meta
from app.store.clock import set_offset
from parsers.base import ImportOptions
from parsers.semantics import MetaType
from tests.conftest import SAMPLES

ROOT = Path(__file__).resolve().parent.parent
READERS = {"text": MetaType.TEXT, "integer": MetaType.INTEGER, "number": MetaType.NUMBER, "flag": MetaType.BOOLEAN,
           "items": MetaType.LIST, "obj": MetaType.OBJECT}


def test_meta_is_read_by_its_declared_type():
    m = RunMeta.parse('{"utc_offset": "+01:00", "segments": 2, "decimal_comma": true, '
                      '"date_reading": {"stored": "DMY"}}')
    assert m.text("utc_offset") == "+01:00"
    assert m.integer("segments") == 2
    assert m.flag("decimal_comma") is True
    assert m.obj("date_reading") == {"stored": "DMY"}
    assert m.text("date_order") is None  # missing is None, never "" or 0
    assert m.obj("job_times") == {}
    with pytest.raises(TypeError, match="declared text"):  # a programming error, caught here
        m.integer("utc_offset")
    with pytest.raises(TypeError, match="declared by no format"):
        m.text("no_such_key")


def test_an_older_or_newer_workspaces_meta_never_crashes():
    """A value of another type than declared reads as missing; a key no format declares stays readable."""
    m = RunMeta.parse('{"segments": "two", "from_release_99": [1, 2]}')
    assert m.integer("segments") is None
    assert m.raw("segments") == "two"
    assert m.raw("from_release_99") == [1, 2]
    assert m.unknown() == ["from_release_99"]
    assert RunMeta.parse("not json") == RunMeta()
    assert RunMeta.parse(None) == RunMeta()
    assert RunMeta.parse("[1, 2]") == RunMeta()


def test_a_row_of_a_newer_workspace_gives_a_run():
    run = Run.from_row({"run_id": 3, "name": "n", "kind": "iostat", "format": "iostat-text", "source_path": "/p",
                        "source_sha256": "0", "tags": '{"cap_iops": "200"}', "meta": None, "warnings": None,
                        "interval_s": 2, "column_of_release_99": 1})
    assert run.tags == {"cap_iops": "200"}
    assert run.tag_number("cap_iops") == 200.0
    assert run.warnings == ()
    assert run.interval_s == 2.0
    assert isinstance(run.interval_s, float)
    assert not run.meta


def test_the_workspace_returns_typed_runs_with_their_clock_offset(ws):
    r = import_file(ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions(first_report="interval"))
    rid = r.run_ids[0]
    run = ws.run(rid)
    assert isinstance(run, Run)
    assert (run.run_id, run.kind, run.format) == (rid, "iostat", "iostat-text")
    assert isinstance(run.started_at, datetime)
    assert run.clock_offset_s is None
    assert run.meta.text("first_report")
    set_offset(ws, rid, 37.0)
    assert ws.runs()[0].clock_offset_s == 37.0
    assert ws.run(rid + 1) is None
    assert ws.kind_of(rid) == "iostat"
    assert ws.kind_of(rid + 1) is None
    assert ws.name_of(rid + 1) == str(rid + 1)


def test_every_typed_meta_read_in_the_code_names_a_key_declared_with_that_type():
    """``meta.text("utc_ofset")`` would only fail when run; this finds it now, in every package."""
    declared = declared_meta()
    wrong = []
    for p in [*sorted((ROOT / "app").rglob("*.py")), *sorted((ROOT / "reports").rglob("*.py"))]:
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in READERS
                    and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str)
                    and "meta" in ast.unparse(n.func.value)):
                key = n.args[0].value
                if READERS[n.func.attr] not in declared.get(key, ()):
                    wrong.append(f"{p.relative_to(ROOT)}:{n.lineno}: {n.func.attr}({key!r})")
    assert not wrong
