"""House rule of the type-checked code (pyproject.toml [tool.mypy] files): a ``# type: ignore`` names its error
code and says why on the same line, e.g. ``# type: ignore[attr-defined]  # reportlab reads this attribute``.
(mypy itself checks that each one is still needed: warn_unused_ignores.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IGNORE = re.compile(r"#\s*type:\s*ignore(?P<codes>\[[^\]]*\])?(?P<rest>.*)$")


def _checked_files() -> list[Path]:
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    out: list[Path] = []
    for entry in cfg["files"]:
        p = ROOT / entry
        out.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    return out


def bare_ignores(text: str) -> list[tuple[int, str]]:
    """(line number, line) of each ``type: ignore`` without an error code or without a reason after it."""
    bad = []
    for n, line in enumerate(text.splitlines(), 1):
        m = IGNORE.search(line)
        if m is None:
            continue
        reason = re.match(r"\s*#\s*(\S.*)", m.group("rest"))
        if m.group("codes") is None or reason is None:
            bad.append((n, line.strip()))
    return bad


def test_the_rule_itself():
    assert bare_ignores("x = f()  # type: ignore[arg-type]  # f takes None too\n") == []
    assert bare_ignores("x = f()  # type: ignore[arg-type]\n") == [(1, "x = f()  # type: ignore[arg-type]")]
    assert bare_ignores("x = f()  # type: ignore  # why\n") == [(1, "x = f()  # type: ignore  # why")]
    assert bare_ignores("x = f()  # type: ignore[a]  #\n") == [(1, "x = f()  # type: ignore[a]  #")]


def test_every_type_ignore_in_the_checked_code_says_why():
    files = _checked_files()
    assert len(files) > 50  # the config's paths exist
    bad = [f"{p.relative_to(ROOT)}:{n}: {line}" for p in files
           for n, line in bare_ignores(p.read_text(encoding="utf-8"))]
    assert not bad, "a '# type: ignore[code]' needs '  # reason' on the same line:\n" + "\n".join(bad)
