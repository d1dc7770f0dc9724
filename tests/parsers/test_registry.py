"""The registry picks the parser from content, never from the name: which parser each corpus file gets."""

import shutil

import pytest

from parsers.registry import UnknownFormat, detect
from tests.conftest import CORPUS, corpus_files

IOSTAT = corpus_files("iostat")
JSON_IOSTAT = {p.name for p in IOSTAT if p.read_bytes().lstrip().startswith(b"{")}
# formats of other tools: each must be refused or read by its own parser, never mistaken for sysstat's iostat
# (iostat of other systems is read by parsers.iostat_other: tests/test_golden_iostat_other.py)
NOT_IOSTAT = corpus_files("sar") + corpus_files("nmon") + corpus_files("perfmon") + corpus_files("diskspd")


@pytest.mark.parametrize("path", IOSTAT, ids=[p.name for p in IOSTAT])
def test_iostat_corpus_files_choose_the_iostat_parser(path):
    expected = "iostat-json" if path.name in JSON_IOSTAT else "iostat-text"
    assert detect(str(path)).id == expected


def test_json_corpus_files_are_the_three_known_ones():
    assert JSON_IOSTAT == {  # noqa: SIM300 (not a Yoda condition: the constant is what is tested)
        "pkb_iostat_output.json", "sysstat-tests_iostat-g-JSON.txt", "sysstat-tests_iostat-x-p-ALL-JSON.txt"}


@pytest.mark.parametrize("path", NOT_IOSTAT, ids=[f"{p.parent.name}/{p.name}" for p in NOT_IOSTAT])
def test_other_tools_are_not_taken_for_iostat(path):
    try:
        fmt = detect(str(path))
    except UnknownFormat:
        return
    assert fmt.kind != "iostat", f"{path.name} mistaken for {fmt.id}"


def test_the_extension_does_not_matter(tmp_path):
    src = CORPUS / "iostat" / "sysstat-tests_iostat-x.txt"
    for name in ("trace.json", "trace.csv", "no_extension", "report.pdf"):
        dst = tmp_path / name
        shutil.copy(src, dst)
        assert detect(str(dst)).id == "iostat-text"
    js = CORPUS / "iostat" / "sysstat-tests_iostat-x-p-ALL-JSON.txt"
    shutil.copy(js, tmp_path / "iostat.txt")
    assert detect(str(tmp_path / "iostat.txt")).id == "iostat-json"


# ---- IOzone and hdparm (issue 4): every corpus file chooses its parser; the new parsers claim nothing else ----
IOZONE = corpus_files("iozone")
HDPARM = corpus_files("hdparm")
RESULT_FORMATS = {"iozone-text", "hdparm-text", "iometer-csv", "iomark-csv", "iomark-mapped"}


@pytest.mark.parametrize("path", IOZONE + HDPARM, ids=[f"{p.parent.name}/{p.name}" for p in IOZONE + HDPARM])
def test_iozone_and_hdparm_corpus_files_choose_their_parser(path):
    expected = "iozone-text" if path.parent.name == "iozone" else "hdparm-text"
    assert detect(str(path)).id == expected


def test_no_other_corpus_file_is_taken_for_a_results_format():
    others = [p for p in CORPUS.rglob("*") if p.is_file() and p.parent.name not in ("iozone", "hdparm")]
    assert len(others) > 50
    for path in others:
        try:
            fmt = detect(str(path))
        except UnknownFormat:
            continue
        assert fmt.id not in RESULT_FORMATS, f"{path.name} mistaken for {fmt.id}"


def test_the_mapped_csv_format_is_never_sniffed(tmp_path):
    p = tmp_path / "any.csv"
    p.write_text("Users,IOPS\n10,100\n")
    with pytest.raises(UnknownFormat):
        detect(str(p))
