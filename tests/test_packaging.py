"""What the installers are made of: pyproject.toml lists every package and every file read at run time, the
Linux desktop entry starts the installed window program and offers the types its MIME hints declare. (The
installs themselves -- pip/pipx from /, the PyInstaller build -- run in .ci/run and `make dist`.)"""

import configparser
import fnmatch
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import CORPUS, ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
MIME_NS = "{http://www.freedesktop.org/standards/shared-mime-info}"


def _packages() -> list[str]:
    return sorted(str(p.parent.relative_to(ROOT)).replace("/", ".") for top in ("app", "parsers", "reports")
                  for p in (ROOT / top).rglob("__init__.py"))


def _pins(text: str) -> list[str]:
    return sorted(line.split("#")[0].strip() for line in text.splitlines() if line.split("#")[0].strip()
                  and not line.lstrip().startswith("-r"))


def test_every_package_is_installed_inside_one_folder_of_its_own():
    """The wheel claims no generic top-level name (app, parsers, reports, main): the checkout's root is the package
    ``stormscope`` (its folders inside), and every package of app/, parsers/, reports/ is listed."""
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert setuptools["package-dir"] == {"stormscope": "."}
    assert setuptools["packages"] == ["stormscope", *(f"stormscope.{p}" for p in _packages())]
    assert "py-modules" not in setuptools
    assert "find" not in setuptools.get("packages", {})


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
            patterns = data.get(f"stormscope.{owner}", [])
            assert any(fnmatch.fnmatch(rel, pat) for pat in patterns), f"{f} is not package data"


def test_the_user_guide_ships_where_help_user_guide_reads_it():
    from app.ui.guide import GUIDE

    rel = GUIDE.relative_to(ROOT).as_posix()  # docs/user-guide.md beside the packages, in the wheel as in a checkout
    assert rel in PYPROJECT["tool"]["setuptools"]["package-data"]["stormscope"]
    image = ROOT / "docs" / "images" / "window-overlay.png"
    assert image.relative_to(ROOT).as_posix() in PYPROJECT["tool"]["setuptools"]["package-data"]["stormscope"]
    assert "images/window-overlay.png" in GUIDE.read_text()


def test_entry_points_run_main():
    assert PYPROJECT["project"]["scripts"] == {"stormscope": "stormscope.main:run"}
    assert PYPROJECT["project"]["gui-scripts"] == {"stormscope-gui": "stormscope.main:run"}


def test_installed_main_finds_its_own_modules_and_not_another_projects(tmp_path):
    """site-packages as pip lays it out (stormscope/ holding main.py, app/...), with another project's ``app``
    beside it: ``stormscope.main`` -- the commands' entry point -- imports StormScope's own."""
    site = tmp_path / "site-packages"
    (site / "app").mkdir(parents=True)
    (site / "app" / "__init__.py").write_text("raise ImportError('another project')\n")
    (site / "stormscope").symlink_to(ROOT, target_is_directory=True)
    code = "import stormscope.main, app.workspace as w, reports.options as o; print(o.version()); print(w.__file__)"
    p = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); {code}"],
                       cwd="/", capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    version, where = p.stdout.splitlines()
    assert version == PYPROJECT["project"]["version"]
    assert where == str(site / "stormscope" / "app" / "workspace.py")


def test_pip_installs_the_versions_the_tests_ran_on():
    """pyproject.toml's dependencies are requirements.txt's pins, which hold every package the pinned ones need
    (read from the installed packages' metadata): a pip install chooses no version the tests did not run."""
    pins = _pins((ROOT / "requirements.txt").read_text())
    assert sorted(PYPROJECT["project"]["dependencies"]) == pins
    pinned = {canonicalize_name(p.split("==")[0]): p.split("==")[1] for p in pins}
    for name, version in pinned.items():
        dist = metadata.distribution(name)
        assert dist.version == version, name  # the test environment is the pinned one
        for r in dist.requires or []:
            req = Requirement(r)
            if req.marker is not None and "extra" in str(req.marker):
                continue
            assert canonicalize_name(req.name) in pinned, f"{name} brings in {req.name}, which is not pinned"
            assert req.specifier.contains(pinned[canonicalize_name(req.name)]), r


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
    assert declared == ["application/x-nmon", "application/x-duckdb"]
    assert set(declared) <= set(offered)


def test_the_nmon_hint_matches_real_nmon_captures():
    hints = ET.parse(ROOT / "packaging" / "stormscope-mime.xml").getroot()
    glob = hints.find(f"{MIME_NS}mime-type/{MIME_NS}glob").get("pattern")
    magic = hints.find(f"{MIME_NS}mime-type/{MIME_NS}magic/{MIME_NS}match").get("value").encode()
    captures = sorted((CORPUS / "nmon").iterdir())
    assert [f.name for f in captures if fnmatch.fnmatch(f.name, glob)]
    assert all(f.read_bytes().startswith(magic) for f in captures if fnmatch.fnmatch(f.name, glob))


def test_the_workspace_hint_matches_a_real_workspace(tmp_path):
    from app.workspace import Workspace

    hints = ET.parse(ROOT / "packaging" / "stormscope-mime.xml").getroot()
    duckdb = next(t for t in hints.iter(f"{MIME_NS}mime-type") if t.get("type") == "application/x-duckdb")
    match = duckdb.find(f"{MIME_NS}magic/{MIME_NS}match")
    Workspace(tmp_path / "engagement.duckdb").close()
    start = int(match.get("offset"))
    data = (tmp_path / "engagement.duckdb").read_bytes()
    assert data[start:start + len(match.get("value"))] == match.get("value").encode()
    assert fnmatch.fnmatch("engagement.duckdb", duckdb.find(f"{MIME_NS}glob").get("pattern"))


def test_make_clean_removes_what_the_tools_leave_behind(tmp_path):
    """`make clean` on a copy of the Makefile: the caches of hypothesis and import-linter, egg-info and __pycache__
    went along with the rest (they stayed before); the sources stay."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    left = [".venv/bin", ".hypothesis/examples", ".import_linter_cache", "stormscope.egg-info", "app/__pycache__",
            "app/ui/__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "build/pyinstaller", "dist/StormScope"]
    for d in left:
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "app" / "workspace.py").write_text("# source\n")
    p = subprocess.run(["make", "clean"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert sorted(str(f.relative_to(tmp_path)) for f in tmp_path.rglob("*")) == ["Makefile", "app", "app/ui",
                                                                              "app/workspace.py"]
