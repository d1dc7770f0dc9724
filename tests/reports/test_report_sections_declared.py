"""A report section declares itself next to its code (reports.builders.section: title, order, whether a report of
answers has it): a section declared in a test is in the report in its declared place, among the choices of a
template and of the command line, and has its title -- no list names it (there were three: the options' section
list and titles, the default sections of a report of answers, the content's order)."""

from __future__ import annotations

import argparse

import pytest

from app.cli import report as cli_report
from app.importer import import_file
from parsers.base import ImportOptions
from reports import build_report
from reports.builders import SECTION_BUILDERS, answer_section_keys, section, section_keys, section_title
from reports.content import Section
from reports.options import ReportOptions, TemplateInvalid, check_field
from tests.conftest import SAMPLES


@pytest.fixture
def probe():
    """A section of the tour of the runs declared here, between the cross-check and the appendix."""
    @section("probe", title="Probe findings", order=115, in_answers=True)
    def build(ctx):
        sec = Section("probe", "Probe findings")
        sec.para(f"{len(ctx.runs)} run(s) probed.")
        return sec

    yield build
    SECTION_BUILDERS.remove("probe")


def test_the_declared_order_is_the_reports_order():
    assert section_keys() == ["summary", "runs", "overlay", "storm", "cap", "latency", "jobs", "iozone",
                              "iometer_iomark", "sizing", "compare", "crosscheck", "appendix"]
    assert answer_section_keys() == ["runs", "iozone", "iometer_iomark", "crosscheck", "appendix"]
    assert section_title("summary") == "Executive summary"
    assert section_title("appendix") == "Appendix: sources and methods"


def test_a_section_declared_in_a_test_is_in_the_report_in_its_place(probe, ws, tmp_path):
    assert section_keys()[-3:] == ["crosscheck", "probe", "appendix"]
    assert answer_section_keys()[-2:] == ["probe", "appendix"]
    assert section_title("probe") == "Probe findings"
    import_file(ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions(first_report="interval"))
    rep = build_report(ws, ReportOptions(date="x"), str(tmp_path / "r.pdf"))
    keys = [s.key for s in rep.sections]
    assert keys[-2:] == ["probe", "appendix"]
    assert rep.sections[-2].paragraphs == ["1 run(s) probed."]


def test_a_section_declared_in_a_test_is_a_choice_of_templates_and_of_the_command_line(probe):
    assert check_field("sections", ["runs", "probe"]) == ["runs", "probe"]
    with pytest.raises(TemplateInvalid):
        check_field("sections", ["no-such-section"])
    p = argparse.ArgumentParser()
    cli_report.arguments(p)
    assert p.parse_args(["-o", "x.pdf", "--sections", "probe", "appendix"]).sections == ["probe", "appendix"]
    assert "probe" in p.format_help()


def test_a_section_key_is_declared_once():
    def other(ctx):  # pragma: no cover - refused before it could run
        return None

    with pytest.raises(ValueError, match="report section 'storm' is registered twice, differently"):
        section("storm", title="Another storm", order=1)(other)
    assert SECTION_BUILDERS["storm"].title == "Storm metrics"
