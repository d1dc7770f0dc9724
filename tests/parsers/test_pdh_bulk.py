"""PDH-CSV rows read in bulk (polars, only the chosen columns) give exactly what Python's CSV reader gives: the
same events (frames, run metadata), the same warnings, the same error with the same line, on the corpus, the
esxtop fixtures, each case that sends rows back to the CSV reader (parsers/pdh.py ``plain_block``), and randomly
damaged copies of a fixture."""

import csv
import random
from pathlib import Path

import pytest

import parsers.pdh
from parsers import perfmon
from parsers.base import ImportOptions, JobState, ParseError, Rows
from parsers.pdh import PdhReader, plain_block
from parsers.registry import detect
from tests.conftest import CORPUS, ROOT, corpus_files

FIXTURES = sorted((ROOT / "tests" / "fixtures" / "esxtop").glob("*.csv"))
FILES = [*corpus_files("perfmon"), *FIXTURES]
THREE = ROOT / "tests" / "fixtures" / "esxtop" / "esxtop_gen_3vms.csv"
HDR = '"(PDH-CSV 4.0) (W. Europe Standard Time)(-60)"'
COLS = ["\\\\PC1\\PhysicalDisk(0 C:)\\Disk Reads/sec", "\\\\PC1\\PhysicalDisk(0 C:)\\Current Disk Queue Length",
        "\\\\PC1\\PhysicalDisk(0 C:)\\Avg. Disk sec/Read", "\\\\PC1\\PhysicalDisk(0 C:)\\Disk Writes/sec"]


def outcome(path, bulk: bool, monkeypatch) -> tuple:
    """What the format's parser makes of ``path``: its events (frames as rows; none when it fails), warnings and
    error."""
    monkeypatch.setattr(PdhReader, "bulk", bulk)
    warnings: list[tuple[str, int | None]] = []
    events: list = []
    error = None
    fmt = perfmon.CSV_FORMAT if Path(path).name == "odd.csv" else detect(str(path))  # a NUL would fail detection
    try:
        for e in fmt.parse(str(path), ImportOptions(), JobState(), lambda m, line: warnings.append((m, line))):
            events.append((e.key, e.table, e.frame.rows()) if isinstance(e, Rows) else e)
    except ParseError as e:
        error = (str(e), e.line)
        events = []  # the import stores nothing of a file that fails (the two readers stop a chunk apart)
    return events, warnings, error


def same_both_ways(path, monkeypatch) -> tuple:
    bulk = outcome(path, True, monkeypatch)
    assert bulk == outcome(path, False, monkeypatch)
    return bulk


def handed_over(path, monkeypatch) -> list[int]:
    """The lines below which the CSV reader took over (none: every row was read in bulk)."""
    monkeypatch.setattr(PdhReader, "bulk", True)
    seen: list[int] = []
    csv_rows = PdhReader._csv_rows

    def spy(self, raw, cols, per_chunk, size, line0, cut_tail):
        seen.append(line0)
        return csv_rows(self, raw, cols, per_chunk, size, line0, cut_tail)

    monkeypatch.setattr(PdhReader, "_csv_rows", spy)  # stays: it only records
    outcome(path, True, monkeypatch)
    return seen


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_corpus_and_fixtures_read_the_same_both_ways(path, monkeypatch):
    same_both_ways(path, monkeypatch)


@pytest.mark.parametrize("cells", [2000, 400_000])
def test_fixtures_in_small_chunks_read_the_same_both_ways(cells, monkeypatch):
    monkeypatch.setattr(parsers.pdh, "CHUNK_CELLS", cells)
    for path in FIXTURES:
        same_both_ways(path, monkeypatch)


def test_the_esxtop_fixtures_are_read_in_bulk(monkeypatch):
    """The bulk reader is the one that reads them (else the comparisons above compare the CSV reader with
    itself)."""
    for path in FIXTURES:
        assert handed_over(path, monkeypatch) == []


def _log(rows: list[str], header: str = HDR, cols: list[str] = COLS, end: str = "\n", sep: str = ",") -> str:
    return "\n".join([sep.join([header, *(f'"{c}"' for c in cols)]), *rows]) + end


def _row(*cells: str, sep: str = ",") -> str:
    return sep.join(f'"{c}"' for c in cells)


GOOD = [_row(f"04/22/2024 08:00:{s:02d}.000", "1.5", "0", "0.002", "3") for s in range(0, 60, 15)]


def _case(name: str, good: list[str] = GOOD) -> tuple[str, int | None]:
    """A log with one odd row (the third data line, line 4) and the line below which the CSV reader takes over
    (chunks of 2 rows: the odd row's chunk starts at line 4, below line 3), or None when all is bulk."""
    odd = {
        "blank line": ("", 3),
        "blank row": (_row("", "", "", "", ""), 3),
        "spaces in a blank row": (_row(" ", " ", " ", " ", " "), 3),
        "too few fields": (_row("04/22/2024 08:00:20.000", "1", "0", "0.002"), 3),
        "too many fields": (_row("04/22/2024 08:00:20.000", "1", "0", "0.002", "3", "4"), 3),
        "a trailing comma": (_row("04/22/2024 08:00:20.000", "1", "0", "0.002", "3") + ",", 3),
        "unquoted": ("04/22/2024 08:00:20.000,1,0,0.002,3", 3),
        "a space after a separator": ('"04/22/2024 08:00:20.000", "1","0","0.002","3"', 3),
        "a doubled quote inside": (_row("04/22/2024 08:00:20.000", 'x""y', "0", "0.002", "3"), 3),
        "a quote inside": ('"04/22/2024 08:00:20.000","1"x","0","0.002","3"', 3),
        "a separator pair inside": ('"04/22/2024 08:00:20.000","1","0",",","3"', None),  # plain: the field ","
        "a line break inside": (_row("04/22/2024 08:00:20.000", "1\n2", "0", "0.002", "3"), 3),
        "a lone CR": (_row("04/22/2024 08:00:20.000", "1\r2", "0", "0.002", "3"), 3),
        "a NUL": (_row("04/22/2024 08:00:20.000", "1\x002", "0", "0.002", "3"), 3),
        "not ASCII": (_row("04/22/2024 08:00:20.000", "1é", "0", "0.002", "3"), 3),
        "a blank time stamp": (_row(" ", "1", "0", "0.002", "3"), 3),
        "no number": (_row("04/22/2024 08:00:20.000", "abc", "0", "0.002", "3"), None),
        "a cut exponent": (_row("04/22/2024 08:00:20.000", "1", "0", "2e", "3"), None),
        "out of range": (_row("04/22/2024 08:00:20.000", "1e999", "0", "0.002", "3"), None),
        "two bad values": (_row("04/22/2024 08:00:20.000", "1", "0", "x", "y"), None),
        "no time stamp": (_row("yesterday", "1", "0", "0.002", "3"), None),
    }[name]
    return _log([*good[:2], odd[0], *good[2:]]), odd[1]


CASES = ["blank line", "blank row", "spaces in a blank row", "too few fields", "too many fields", "a trailing comma",
         "unquoted", "a space after a separator", "a doubled quote inside", "a quote inside",
         "a separator pair inside", "a line break inside", "a lone CR", "a NUL", "not ASCII", "a blank time stamp",
         "no number", "a cut exponent", "out of range", "two bad values", "no time stamp"]


@pytest.mark.parametrize("name", CASES)
def test_each_odd_row_reads_the_same_both_ways(name, write, monkeypatch):
    """Chunks of two rows: the first chunk is read in bulk, the odd row's chunk and the rest by the CSV reader
    (its checks and messages), or, for a plain row with a bad value, in bulk with the same error."""
    monkeypatch.setattr(parsers.pdh, "CHUNK_CELLS", 8)  # 4 columns read: 2 rows a chunk
    text, below = _case(name)
    path = write("odd.csv", text.encode("utf-8"))
    assert handed_over(path, monkeypatch) == ([] if below is None else [below])
    same_both_ways(path, monkeypatch)


def test_the_bad_values_report_the_first_in_the_files_order(write, monkeypatch):
    """Values in bulk are held column after column; the error still names the first bad cell row after row."""
    monkeypatch.setattr(parsers.pdh, "CHUNK_CELLS", 8)
    rows = [*GOOD[:2], _row("04/22/2024 08:00:20.000", "1", "0", "0.002", "y"),
            _row("04/22/2024 08:00:21.000", "x", "0", "0.002", "3")]
    path = write("bad.csv", _log(rows))
    error = same_both_ways(path, monkeypatch)[2]
    assert error[1] == 4
    assert error[0].startswith("'y' is not a number; column 5:")


@pytest.mark.parametrize("end", ["\r\n", "\n"])
def test_line_ends_and_tabs_stay_in_bulk(end, write, monkeypatch):
    tsv = _log([r.replace('","', '"\t"') for r in GOOD], header=HDR.replace("CSV", "TSV"), sep="\t")
    for name, text in (("crlf.csv", _log(GOOD).replace("\n", end)), ("tabs.tsv", tsv.replace("\n", end))):
        path = write(name, text.encode("ascii"))
        assert handed_over(path, monkeypatch) == []
        events = same_both_ways(path, monkeypatch)[0]
        assert sum(len(e[2]) for e in events if isinstance(e, tuple)) == 4


def test_a_cut_last_row_goes_to_the_csv_reader(write, monkeypatch):
    path = write("cut.csv", _log([*GOOD, _row("04/22/2024 08:01:00.000", "1", "0", "0.002", "3")[:-1]], end=""))
    assert handed_over(path, monkeypatch) == [1]  # one chunk: all of it
    _events, warnings, error = same_both_ways(path, monkeypatch)
    assert error is None
    assert any("ends in the middle of its last row" in w for w, _ in warnings)


def test_a_field_longer_than_the_csv_readers_limit(write, monkeypatch):
    monkeypatch.setattr(parsers.pdh, "CHUNK_CELLS", 8)
    long = "1" * (csv.field_size_limit() + 1)
    path = write("long.csv", _log([*GOOD[:2], _row("04/22/2024 08:00:20.000", long, "0", "0.002", "3")]))
    assert handed_over(path, monkeypatch) == [3]
    assert "field larger than field limit" in same_both_ways(path, monkeypatch)[2][0]


def test_another_encoding_reads_the_same_both_ways(write, monkeypatch):
    """A cp1252 log (German Windows) with plain ASCII rows stays in bulk; a value in cp1252 goes to the reader."""
    cols = ["\\\\PC1\\Physikalischer Datenträger(0 C:)\\Lesevorgänge/s"]
    rows = [_row("03.04.2024 09:00:00.000", "12,5"), _row("03.04.2024 09:00:15.000", "7,25")]
    path = write("de.csv", _log(rows, cols=cols).encode("cp1252"))
    assert handed_over(path, monkeypatch) == []
    assert same_both_ways(path, monkeypatch)[0]
    path = write("de2.csv", _log([*rows, _row("03.04.2024 09:00:30.000", "7,25µ")], cols=cols).encode("cp1252"))
    assert handed_over(path, monkeypatch) == [1]
    assert "not a number" in same_both_ways(path, monkeypatch)[2][0]


def test_the_decimal_comma_is_told_from_the_first_values_in_the_files_order(write, monkeypatch):
    """The first values, row after row, decide: here "1,5" and "2" (a comma, no dot), not "1,5" and "3.5" (the
    first two of the first column)."""
    monkeypatch.setattr(parsers.pdh, "COMMA_SAMPLE", 2)
    cols = [COLS[0], COLS[3]]
    path = write("comma.csv", _log([_row("04/22/2024 08:00:00.000", "1,5", "2"),
                                    _row("04/22/2024 08:00:15.000", "3.5", "4")], cols=cols))
    assert handed_over(path, monkeypatch) == []
    events = same_both_ways(path, monkeypatch)[0]
    assert events[-1].info.meta.get("decimal_comma") is True


def test_randomly_damaged_copies_read_the_same_both_ways(tmp_path, monkeypatch):
    """A byte of the file replaced, deleted or doubled (quotes, separators, line breaks, digits): whatever the
    CSV reader makes of the copy, the bulk reader makes too."""
    monkeypatch.setattr(parsers.pdh, "CHUNK_CELLS", 500)  # 155 columns read: chunks of 3 rows
    data = THREE.read_bytes()
    start = data.index(b"\n") + 1
    rng = random.Random(18)
    for i in range(60):
        pos = rng.randrange(start, len(data))
        byte = bytes([rng.choice(b'",\n\r 0.9e-x\xe9')])
        how = rng.choice(("replace", "delete", "insert"))
        damaged = (data[:pos] + (byte if how != "delete" else b"") + data[pos + (how != "insert"):])
        path = tmp_path / f"damaged{i}.csv"
        path.write_bytes(damaged)
        same_both_ways(path, monkeypatch)


def test_plain_block_counts_what_a_csv_reader_would_split():
    """A plain block's rows split at their separators as a CSV reader splits them; a row that is not plain is
    refused (its quotes fooling a count of separators)."""
    assert plain_block([b'"a","b,c",""\n', b'"d"," ","e"\r\n'], 3, ",") == b'"a","b,c",""\n"d"," ","e"'
    for row in (b'","a"b"\n', b'"a","b"\n', b'"a",",","b"\n', b'"a","b","c"', b'"a","b"",""c"\n', b'"",",",""\n'):
        fields = next(csv.reader([row.decode().rstrip("\n")]))
        body = plain_block([row], 3, ",")
        assert body is None or body[1:-1].split(b'","') == [f.encode() for f in fields], row
    assert plain_block([b'"a","b","c"\n', b'"a","b"c","d"\n'], 3, ",") is None


def test_corpus_folder_is_there():
    assert (CORPUS / "perfmon").is_dir()
    assert Path(THREE).is_file()
