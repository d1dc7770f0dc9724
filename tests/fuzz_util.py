"""The fuzzing half of the reliability suite (tests/test_reliability_fuzz.py, ``make stress``): mutations of real
files, the outcome of reading a file the way an import does, and the hypothesis settings chosen by environment.

Environment: ``STORMSCOPE_FUZZ_EXAMPLES`` (examples per fuzz test; default small, for ``make test``),
``STORMSCOPE_FUZZ_RANDOM=1`` (a fresh random draw each run instead of the suite's fixed one),
``STORMSCOPE_FUZZ_STATS=FILE`` (append one line per case: its outcome, for ``make stress``'s figures),
``STORMSCOPE_FUZZ_KEEP_GOING=1`` (count internal errors in the stats instead of failing at the first)."""

from __future__ import annotations

import json
import os
import traceback
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from parsers.base import ImportOptions, JobState, ParseError
from parsers.registry import UnknownFormat, detect
from tests.conftest import CORPUS, SAMPLES

SEED_MAX_BYTES = 120_000  # larger real files make each case slow; their formats have smaller files in the corpus
NOT_TRACES = {".md", ".sh", ".gz", ".duckdb"}


FIXTURES = Path(__file__).resolve().parent / "fixtures"  # esxtop's only files are here


def seed_files() -> list[Path]:
    """The real files a fuzz case starts from: the corpus, the sample captures and the test fixtures
    (documentation and workspaces left out)."""
    files = [p for root in (CORPUS, SAMPLES, FIXTURES) for p in sorted(root.rglob("*"))
             if p.is_file() and p.suffix not in NOT_TRACES and p.name != "SHA256SUMS"
             and p.stat().st_size <= SEED_MAX_BYTES]
    assert files, "no seed files"
    return files


def fuzz_settings(default_examples: int) -> settings:
    return settings(
        max_examples=int(os.environ.get("STORMSCOPE_FUZZ_EXAMPLES", default_examples)),
        deadline=None, database=None, derandomize=os.environ.get("STORMSCOPE_FUZZ_RANDOM") != "1",
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
        print_blob=True)


# ---- mutations ------------------------------------------------------------------------------------------------
TOKENS = [
    b"\n", b"\r\n", b"\r", b",", b";", b"\t", b" ", b'"', b"'", b"{", b"}", b"[", b"]", b":", b"=", b"-", b"-1", b"0",
    b"0.0", b"1e309", b"-1e309", b"nan", b"NaN", b"inf", b"Infinity", b"null", b"true", b"99999999999999999999999",
    b"1" * 400, b"-0", b"\x00", b"\xef\xbb\xbf", b"\xc3\xa9", b"\xff", b"\xe2\x80\xae", b"Device", b"Time",
    b"13/45/2024", b"25:61:61", b"02/30/2024", b"AM", b"PM", b"1,5", b"%", b"#", b"..", b"\xe2\x80\xa6", b"Linux",
    b"AAA", b"ZZZZ", b"T0001", b"\\", b"(", b")", b"1.#INF", b"-nan", b"1e-400",
]


def _span(data: bytes, at: float) -> int:
    return min(len(data), int(at * (len(data) + 1)))


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


def mutate(data: bytes, mutation: tuple) -> bytes:
    """One mutation of a file's bytes: a byte changed, a token inserted, a span or a line deleted, a line repeated,
    two lines swapped, a number replaced, the file cut."""
    kind, at, arg = mutation
    i = _span(data, at)
    if kind == "byte":
        return data[:i] + bytes([arg]) + data[i + 1:]
    if kind == "insert":
        return data[:i] + arg + data[i:]
    if kind == "delete":
        return data[:i] + data[i + arg:]
    if kind == "cut":
        return data[:i]
    lines = _lines(data)
    k = min(len(lines) - 1, int(at * len(lines)))
    if kind == "drop-line":
        return b"".join(lines[:k] + lines[k + 1:])
    if kind == "repeat-line":
        return b"".join(lines[:k + 1] + [lines[k]] * arg + lines[k + 1:])
    if kind == "swap-lines":
        j = min(len(lines) - 1, int(arg * len(lines)))
        lines[k], lines[j] = lines[j], lines[k]
        return b"".join(lines)
    if kind == "number":
        import re

        nums = list(re.finditer(rb"-?\d+(?:\.\d+)?", data))
        if not nums:
            return data
        m = nums[min(len(nums) - 1, int(at * len(nums)))]
        return data[:m.start()] + arg + data[m.end():]
    raise AssertionError(kind)


_at = st.floats(0, 1, allow_nan=False)
_payload = st.sampled_from(TOKENS) | st.binary(min_size=1, max_size=12)
MUTATION = st.one_of(
    st.tuples(st.just("byte"), _at, st.integers(0, 255)),
    st.tuples(st.just("insert"), _at, _payload),
    st.tuples(st.just("delete"), _at, st.integers(1, 400)),
    st.tuples(st.just("cut"), _at, st.none()),
    st.tuples(st.just("drop-line"), _at, st.none()),
    st.tuples(st.just("repeat-line"), _at, st.integers(1, 3)),
    st.tuples(st.just("swap-lines"), _at, _at),
    st.tuples(st.just("number"), _at, _payload),
)
MUTATIONS = st.lists(MUTATION, min_size=1, max_size=4)


# ---- outcomes -------------------------------------------------------------------------------------------------
def parse_outcome(path: str, options: ImportOptions | None = None) -> str:
    """Read ``path`` as an import reads it, without storing: ``refused`` (not a trace we read), ``error-line`` (a
    ParseError naming its line), ``error`` (a ParseError about the whole file), ``ok``; any other exception is
    raised (an internal error)."""
    try:
        fmt = detect(path)
    except UnknownFormat:
        return "refused"
    try:
        for _ in fmt.parse(path, options or ImportOptions(interval_s=60), JobState(), lambda msg, line: None):
            pass
    except ParseError as e:
        return "error-line" if e.line else "error"
    return "ok"


def record(outcome: str, case: dict | None = None) -> None:
    """One case's outcome into the stats file of ``make stress`` (when it asked for one)."""
    stats = os.environ.get("STORMSCOPE_FUZZ_STATS")
    if stats:
        with open(stats, "a") as fh:
            fh.write(json.dumps({"outcome": outcome, **(case or {})}) + "\n")


def checked(test: str, path: str, run, mutations: list | None = None) -> str:
    """``run()`` (an outcome), recorded; an exception that is no ParseError is an internal error: raised, or with
    STORMSCOPE_FUZZ_KEEP_GOING=1 only recorded (with where it came from) so a long run counts them all."""
    try:
        outcome = run()
    except Exception as e:
        where = traceback.extract_tb(e.__traceback__)[-1]
        record("internal", {"test": test, "seed": path, "error": f"{type(e).__name__}: {e}"[:300],
                            "at": f"{Path(where.filename).name}:{where.lineno}", "mutations": repr(mutations)})
        if os.environ.get("STORMSCOPE_FUZZ_KEEP_GOING") == "1":
            return "internal"
        raise
    record(outcome, {"test": test})
    return outcome
