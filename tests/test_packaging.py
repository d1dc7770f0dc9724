"""What the installers are made of: pyproject.toml lists every package and every file read at run time, the
Linux desktop entry starts the installed window program and offers the types its MIME hints declare. (The
installs themselves -- pip/pipx from /, the PyInstaller build -- run in .ci/run and `make dist`.)"""

import configparser
import fnmatch
import tomllib
import xml.etree.ElementTree as ET

from tests.conftest import CORPUS, ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"


def _packages() -> list[str]:
    return sorted(str(p.parent.relative_to(ROOT)).replace("/", ".") for top in ("app", "parsers", "reports")
                  for p in (ROOT / top).rglob("__init__.py"))


def test_every_package_is_installed():
    patterns = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    assert patterns == ["app*", "parsers*", "reports*"]
    assert all(any(fnmatch.fnmatch(p, pat) for pat in patterns) for p in _packages())
    assert PYPROJECT["tool"]["setuptools"]["py-modules"] == ["main"]


def test_every_file_read_at_run_time_is_package_data():
    """A file other than Python source inside a package ships only when package-data names it."""
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    for package in _packages():
        folder = ROOT / package.replace(".", "/")
        for f in folder.rglob("*"):
            if f.is_dir() or f.suffix in (".py", ".pyc") or "__pycache__" in f.parts or f.name == "README.md":
                continue
            owner = next(p for p in sorted(_packages(), key=len, reverse=True)
                         if f.is_relative_to(ROOT / p.replace(".", "/")))
            rel = str(f.relative_to(ROOT / owner.replace(".", "/")))
            assert any(fnmatch.fnmatch(rel, pat) for pat in data.get(owner, [])), f"{f} is not package data"


def test_entry_points_run_main():
    assert PYPROJECT["project"]["scripts"] == {"stormscope": "main:run"}
    assert PYPROJECT["project"]["gui-scripts"] == {"stormscope-gui": "main:run"}


def test_the_desktop_entry_starts_the_window_and_offers_the_hinted_types():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str
    entry.read(ROOT / "packaging" / "stormscope.desktop")
    d = entry["Desktop Entry"]
    assert d["Exec"] == "stormscope-gui %F"  # the gui-script: no terminal; %F: files and folders opened with it
    assert d["Icon"] == "stormscope"
    offered = d["MimeType"].rstrip(";").split(";")
    assert "inode/directory" in offered
    hints = ET.parse(ROOT / "packaging" / "stormscope-mime.xml").getroot()
    declared = [t.get("type") for t in hints.iter(f"{MIME_NS}mime-type")]
    assert declared == ["application/x-nmon"]
    assert set(declared) <= set(offered)


def test_the_nmon_hint_matches_real_nmon_captures():
    hints = ET.parse(ROOT / "packaging" / "stormscope-mime.xml").getroot()
    glob = hints.find(f"{MIME_NS}mime-type/{MIME_NS}glob").get("pattern")
    magic = hints.find(f"{MIME_NS}mime-type/{MIME_NS}magic/{MIME_NS}match").get("value").encode()
    captures = sorted((CORPUS / "nmon").iterdir())
    assert [f.name for f in captures if fnmatch.fnmatch(f.name, glob)]
    assert all(f.read_bytes().startswith(magic) for f in captures if fnmatch.fnmatch(f.name, glob))
