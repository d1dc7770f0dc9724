"""One registry idiom (parsers.plugins.Registry) for what a capability contributes: formats, run kinds, question
kinds and their answers, report builders, view tabs. Each is added where it is defined, under a unique key; the
sniffing tie-break is the format's own priority, never the order the modules happened to be imported."""

from __future__ import annotations

import pytest

from app.analysis import questions
from parsers import registry
from parsers.plugins import Registry
from parsers.semantics import REFUSED
from reports import builders


class _Fmt:
    kind, label, tables, semantics = "iostat", "Tie", (), REFUSED

    def __init__(self, fmt_id: str, priority: int, score: float = 0.9):
        self.id, self.priority, self._score = fmt_id, priority, score

    def sniff(self, head: bytes) -> float:
        return self._score if head.startswith(b"#tie") else 0.0

    def parse(self, *a):  # pragma: no cover - never imported
        raise AssertionError


def test_every_format_has_a_priority_of_its_own():
    """4 pairs of formats shared a priority (fio-json and iostat-aix, esxtop and Iometer, IOmark and perfmon
    CSV, hdparm and perfmon's .blg): a tie between them went to whichever module was imported first."""
    prios = [f.priority for f in registry.formats()]
    assert len(prios) == len(set(prios))


def test_a_format_with_a_taken_priority_is_refused():
    taken = registry.by_id("iostat-text").priority
    with pytest.raises(ValueError, match="already iostat-text's"):
        registry.register(_Fmt("tie-a", taken))
    assert "tie-a" not in registry.FORMATS


@pytest.mark.parametrize("order", [("tie-lo", "tie-hi"), ("tie-hi", "tie-lo")])
def test_a_tie_goes_to_the_higher_priority_whatever_the_registration_order(order, tmp_path):
    made = {"tie-lo": _Fmt("tie-lo", 9901), "tie-hi": _Fmt("tie-hi", 9902)}
    try:
        for fid in order:
            registry.register(made[fid])
        path = tmp_path / "x.txt"
        path.write_bytes(b"#tie\n1 2 3\n")
        assert registry.detect(str(path)).id == "tie-hi"
    finally:
        for fid in made:
            registry.unregister(fid)


def test_a_registry_refuses_a_second_different_contribution_under_one_key():
    r: Registry[str] = Registry("thing")
    r.add("a", "one", order=2)
    r.add("a", "one", order=2)  # the same declaration again (a module imported twice) is harmless
    r.add("b", "two", order=1)
    with pytest.raises(ValueError, match="thing 'a' is registered twice, differently"):
        r.add("a", "other")
    assert r.keys() == ["b", "a"]  # declared order, then key: never the import order
    with pytest.raises(KeyError, match="no thing 'c' \\(registered: b, a\\)"):
        r["c"]


def test_every_question_kind_has_its_label_answer_and_evidence_section():
    """A question kind is one class (@question_kind), one answer (@answers) and one evidence builder
    (@question_section): the three registries name the same kinds."""
    kinds = set(questions.KINDS.keys())
    assert kinds == {"compare", "cap", "response_time", "sizing", "storm_profile", "latency_source", "vm_load", "knee",
                     "replay", "latency_path", "library"}
    assert set(questions.ANSWERS.keys()) == kinds
    assert set(builders.QUESTION_BUILDERS.keys()) == kinds
    assert all(questions.KINDS[k].LABEL for k in kinds)
    assert list(questions.KIND_LABELS) == ["compare", "cap", "response_time", "sizing", "storm_profile",
                                           "latency_source", "latency_path", "vm_load", "knee", "replay", "library"]


def test_the_report_sections_are_found_without_a_list():
    assert set(builders.SECTION_BUILDERS.keys()) == {
        "runs", "overlay", "storm", "cap", "latency", "jobs", "iozone", "iometer_iomark", "sizing", "compare",
        "crosscheck", "appendix"}
