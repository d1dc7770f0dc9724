"""Bad values named, never stored as truth (issue 30): a measurement that is negative, not a number or beyond any
scale fails its file's import with a line naming the column, the device or job and the value; nothing of the file
is stored and the other files of the drop import."""

from __future__ import annotations

import json

import pytest

from app.importer import import_file
from app.workspace import Workspace
from parsers.base import ImportOptions
from tests.conftest import SAMPLES


def _runs(ws: Workspace) -> int:
    return int(ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0])


def test_a_negative_fio_count_is_refused(tmp_path):
    """fio JSON ``total_ios: -5000``. Failed before: stored as a count of -5000 I/Os (NaN was refused)."""
    doc = json.loads((SAMPLES / "fio_randrw_jsonplus.json").read_text())
    doc["jobs"][0]["read"]["total_ios"] = -5000
    bad = tmp_path / "neg.json"
    bad.write_text(json.dumps(doc, indent=1))
    with Workspace(tmp_path / "ws.duckdb") as ws:
        r = import_file(ws, str(bad), ImportOptions())
        assert r.status == "failed"
        assert "ios (I/Os) of 'randrw" in r.error
        assert "is -5000: negative" in r.error
        assert _runs(ws) == 0
        assert import_file(ws, str(SAMPLES / "fio_randrw_jsonplus.json"), ImportOptions()).status == "imported"


@pytest.mark.parametrize(("value", "said"), [("1e308", "is 1e+308: beyond any measurement"),
                                         ("-3.5", "is -3.5: negative")])
def test_an_iostat_rate_beyond_any_measurement_is_named(tmp_path, value, said):
    """A rate of 1e308 in iostat's JSON. Failed before: 'could not cast value inf to DECIMAL(38,12)' from the stored
    sums, naming neither the file nor the value."""
    text = (SAMPLES / "storm_fast_iostat-json.json").read_text()
    first = text.index('"r/s": ') + len('"r/s": ')
    end = first + next(i for i, ch in enumerate(text[first:]) if ch in ",}")
    bad = tmp_path / "big.json"
    bad.write_text(text[:first] + value + text[end:])
    with Workspace(tmp_path / "ws.duckdb") as ws:
        r = import_file(ws, str(bad), ImportOptions())
        assert r.status == "failed", r
        assert "r_s (requests/s) of 'vda' in report 1 " + said in r.error
        assert _runs(ws) == 0
