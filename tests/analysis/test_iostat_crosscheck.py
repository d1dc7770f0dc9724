"""Values equal to the file: an independent, deliberately naive line-by-line reading of every
corpus iostat text file is compared with what the (vectorised, streaming) importer stored."""

import math

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from parsers.iostat_columns import COLUMNS, KB_COLUMNS
from tests.conftest import corpus_files

# (sysstat's iostat_2019 test file is refused: it prints a counter that went back as 5.9e17 tps)
FILES = corpus_files("iostat", keep=lambda p: not p.read_bytes().lstrip().startswith(b"{")
                     and p.name != "sysstat-tests_iostat_2019-cbe5da01.txt")
NO_DEVICE_LINES = {"sysstat-tests_iostat-ct.txt", "sysstat-tests_iostat-foo.txt"}
SUFFIX = {"k": 1, "M": 2, "G": 3, "T": 4, "P": 5}


def naive_rows(path):
    """[(report number, device, {canonical: value})] by reading the file line by line. A header whose columns the
    report has not given yet is another section of that report (--pretty -x): its values join the device's row."""
    out = []
    header = None
    report = -1
    report_cols: set = set()
    rows_of_report: dict = {}
    for raw in path.read_text().splitlines():
        toks = raw.split()
        if not toks:
            header = None
            continue
        if toks[0] in ("Device", "Device:") or toks[-1] in ("Device", "Device:"):
            header = toks
            cols = {COLUMNS[n][0] for n in toks if n not in ("Device", "Device:")}
            if not report_cols or cols & report_cols:
                report += 1
                report_cols = set()
                rows_of_report = {}
            report_cols |= cols
            continue
        if header is None:
            continue
        last = header[-1].startswith("Device")
        dev = toks[-1] if last else toks[0]
        vals = toks[:-1] if last else toks[1:]
        names = header[:-1] if last else header[1:]
        assert len(vals) == len(names), raw
        rec = {}
        for name, v in zip(names, vals):
            canon, factor = COLUMNS[name]
            v = v.replace(",", ".")
            if name.startswith("%"):
                v = v.removesuffix("%")  # --human: 12.3%
            if v[-1] in SUFFIX:
                n = float(v[:-1])
                x = n * 1024.0 ** (SUFFIX[v[-1]] - 1) if canon in KB_COLUMNS else n * 1000.0 ** SUFFIX[v[-1]]
            else:
                x = float(v) * factor
            rec[canon] = x
        if dev in rows_of_report:
            rows_of_report[dev].update(rec)
        else:
            rows_of_report[dev] = rec
            out.append((report, dev, rec))
    return out


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_stored_values_equal_the_file(ws, path):
    res = import_file(ws, str(path), ImportOptions())
    assert res.status == "imported", res.error
    expected = naive_rows(path)
    # two captures have no device line (-c: CPU only; -d foo: a device that does not exist): nothing is stored
    assert bool(expected) == (path.name not in NO_DEVICE_LINES), path.name
    cols = ws.table_columns("iostat_samples")
    cur = ws.con.execute("SELECT * FROM iostat_samples ORDER BY sample_idx, device")
    stored = [dict(zip(cols, r)) for r in cur.fetchall()]
    assert len(stored) == len(expected)
    # reports without a device block (e.g. -y files start at report 0 anyway) keep their order
    samples = sorted({r["sample_idx"] for r in stored})
    by_key = {(samples.index(r["sample_idx"]), r["device"]): r for r in stored}
    for report, dev, rec in expected:
        row = by_key[(report, dev.strip())]
        for canon, x in rec.items():
            assert math.isclose(row[canon], x, rel_tol=1e-12, abs_tol=1e-12), (report, dev, canon, row[canon], x)
