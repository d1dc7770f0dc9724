"""The desktop build's smoke test and slimming, on the three systems' layouts (packaging/smoke_test.py,
packaging/slim.py). Windows and macOS builds run only in .github/workflows/dist.yml; their layouts are mocked here
as PyInstaller 6.22.3 lays them out (PyInstaller/building/osx.py, BUNDLE._process_bundle_toc): on Windows both .exe
beside ``_internal/``; on macOS the programs in Contents/MacOS, binaries in Contents/Frameworks (``sys._MEIPASS``),
data files in Contents/Resources, and a folder holding only data linked from Frameworks to Resources. The smoke
test once looked for the user guide in Contents/MacOS, where no data file is: both macOS jobs would have failed."""

import os
import plistlib
import shutil
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "packaging"))
import bundle_info  # noqa: E402
import slim  # noqa: E402
import smoke_test as smoke  # noqa: E402


def windows_build(dist: Path) -> Path:
    root = dist / "StormScope"
    for exe in ("StormScope.exe", "stormscope-cli.exe"):
        (root / exe).parent.mkdir(parents=True, exist_ok=True)
        (root / exe).write_bytes(b"MZ")
    for rel in smoke.DATA:
        (root / "_internal" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, root / "_internal" / rel)
    (root / "_internal" / "python311.dll").write_bytes(b"MZ")
    return root


def macos_build(dist: Path) -> Path:
    app = dist / "StormScope.app"
    c = app / "Contents"
    for exe in ("StormScope", "stormscope-cli"):
        (c / "MacOS").mkdir(parents=True, exist_ok=True)
        (c / "MacOS" / exe).write_bytes(b"\xcf\xfa\xed\xfe")
    (c / "Frameworks").mkdir()
    for rel in smoke.DATA:  # data: in Resources
        (c / "Resources" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / rel, c / "Resources" / rel)
    for top in sorted({Path(rel).parts[0] for rel in smoke.DATA}):  # cross-linked from Frameworks, at the top
        os.symlink(f"../Resources/{top}", c / "Frameworks" / top)
    (c / "Frameworks" / "libpython3.11.dylib").write_bytes(b"\xcf\xfa\xed\xfe")  # binaries: in Frameworks,
    os.symlink("../Frameworks/libpython3.11.dylib", c / "Resources" / "libpython3.11.dylib")  # linked from Resources
    info = {"CFBundleExecutable": "StormScope", "CFBundleIdentifier": "org.stormscope.StormScope",
            **bundle_info.info_plist("arm64")}
    (c / "Info.plist").write_bytes(plistlib.dumps(info))
    return app


def test_the_smoke_test_finds_a_windows_build_where_pyinstaller_puts_it(tmp_path, capsys):
    root = windows_build(tmp_path)
    layout = smoke.Layout.of(root, "windows")
    assert layout.program("stormscope-cli") == root / "stormscope-cli.exe"
    assert layout.program("StormScope") == root / "StormScope.exe"
    smoke.check_layout(layout)
    assert capsys.readouterr().out.startswith("ok  layout (windows): both programs in StormScope, 8 data files")


def test_the_smoke_test_finds_a_macos_bundle_where_pyinstaller_puts_it(tmp_path, capsys):
    app = macos_build(tmp_path)
    layout = smoke.Layout.of(app, "macos")
    assert layout.program("stormscope-cli") == app / "Contents" / "MacOS" / "stormscope-cli"
    assert layout.code == app / "Contents" / "Frameworks"  # sys._MEIPASS of a PyInstaller 6 bundle
    smoke.check_layout(layout)
    assert capsys.readouterr().out.startswith("ok  layout (macos): both programs in StormScope.app/Contents/MacOS")
    assert not (app / "Contents" / "MacOS" / "docs" / "user-guide.md").exists()  # where the old smoke test looked


def test_the_macos_bundle_is_given_as_the_app(tmp_path):
    app = macos_build(tmp_path)
    with pytest.raises(SystemExit, match="give the .app"):
        smoke.Layout.of(app / "Contents" / "MacOS", "macos")


@pytest.mark.parametrize(("system", "breaks", "said"), [
    ("windows", lambda root: (root / "stormscope-cli.exe").unlink(), "no .*stormscope-cli.exe: build first"),
    ("windows", lambda root: (root / "_internal" / "docs" / "user-guide.md").unlink(),
     "docs/user-guide.md is not where the frozen code reads it"),
    ("windows", lambda root: (root / "_internal" / "reports" / "fonts" / "DejaVuSans.ttf").write_bytes(b"x"),
     "the bundled reports/fonts/DejaVuSans.ttf differs"),
    ("macos", lambda app: (app / "Contents" / "Frameworks" / "docs").unlink(),
     "docs/user-guide.md is not where the frozen code reads it"),
    ("macos", lambda app: _data_in_frameworks(app, "docs"), "docs/user-guide.md is not a resource of the bundle"),
    ("macos", lambda app: _plist(app, CFBundleDocumentTypes=[]), "Info.plist does not declare StormScope workspaces"),
])
def test_the_smoke_test_fails_on_a_broken_layout(tmp_path, system, breaks, said):
    root = windows_build(tmp_path) if system == "windows" else macos_build(tmp_path)
    breaks(root)
    with pytest.raises(SystemExit, match=f"smoke test FAILED: {said}"):
        smoke.check_layout(smoke.Layout.of(root, system))


def _data_in_frameworks(app: Path, top: str) -> None:
    link = app / "Contents" / "Frameworks" / top
    link.unlink()
    shutil.copytree(app / "Contents" / "Resources" / top, link)


def _plist(app: Path, **entries) -> None:
    f = app / "Contents" / "Info.plist"
    f.write_bytes(plistlib.dumps({**plistlib.loads(f.read_bytes()), **entries}))


# ---- what the build leaves out (packaging/slim.py) -------------------------------------------------------------
KEPT = [
    "PySide6/Qt/plugins/platforms/libqxcb.so", "PySide6/Qt/plugins/platforms/libqwayland.so",
    "PySide6/Qt/plugins/platforms/libqoffscreen.so", "PySide6/plugins/platforms/qwindows.dll",
    "PySide6/Qt/plugins/platforms/libqcocoa.dylib", "PySide6/plugins/styles/qmodernwindowsstyle.dll",
    "PySide6/Qt/plugins/styles/libqmacstyle.dylib", "PySide6/Qt/plugins/imageformats/libqsvg.so",
    "PySide6/plugins/imageformats/qjpeg.dll", "PySide6/Qt/plugins/iconengines/libqsvgicon.so",
    "PySide6/Qt/plugins/xcbglintegrations/libqxcb-glx-integration.so",
    "PySide6/Qt/plugins/platforminputcontexts/libibusplatforminputcontextplugin.so",
    "PySide6/Qt/lib/libQt6Network.so.6", "pyarrow/libarrow_python.so.2600", "pyarrow/libparquet.so.2600",
    "_polars_runtime_32/_polars_runtime.abi3.so",
]
LEFT_OUT = [
    "PySide6/Qt/plugins/platformthemes/libqgtk3.so", "PySide6/Qt/plugins/platforms/libqeglfs.so",
    "PySide6/Qt/plugins/platforms/libqvnc.so", "PySide6/plugins/platforms/qdirect2d.dll",
    "PySide6/Qt/plugins/tls/libqopensslbackend.so", "PySide6/plugins/tls/qschannelbackend.dll",
    "PySide6/Qt/plugins/networkinformation/libqnetworkmanager.so", "PySide6/Qt/plugins/generic/libqevdevtouchplugin.so",
    "PySide6/Qt/plugins/imageformats/libqtiff.dylib", "pyarrow/libarrow_python.so",
    "pyarrow/libarrow_python.so.2600.1.0", "libarrow_flight.so.2600", "pyarrow/arrow_flight.dll",
]


@pytest.mark.parametrize("dest", KEPT)
def test_what_the_build_keeps(dest):
    assert slim.unused_binary(dest) is None
    assert slim.unused_binary(dest.replace("/", "\\")) is None  # Windows spells the paths so


@pytest.mark.parametrize("dest", LEFT_OUT)
def test_what_the_build_leaves_out(dest):
    assert slim.unused_binary(dest)


def test_data_left_out_are_translations_headers_and_sources():
    assert slim.unused_data("PySide6/Qt/translations/qt_de.qm")
    assert slim.unused_data("PySide6/translations/qtbase_fr.qm")
    assert slim.unused_data("pyarrow/include/arrow/api.h")
    assert slim.unused_data("reports/fonts/DejaVuSans.ttf") is None
    assert slim.unused_data("docs/user-guide.md") is None


def test_a_library_only_the_left_out_plugins_need_is_left_out():
    """GTK's theme plugin brings cairo and pango; Qt's own libraries need neither. A library that a kept one needs
    too stays; a kept library nothing links (loaded by name) is no orphan."""
    links = {"plugins/platformthemes/libqgtk3.so": ["libgtk-3.so.0", "libcairo.so.2", "libQt6Gui.so.6"],
             "libcairo.so.2": ["libpixman-1.so.0", "libpng16.so.16"], "libQt6Gui.so.6": ["libpng16.so.16"],
             "plugins/platforms/libqxcb.so": ["libQt6Gui.so.6"]}
    kept = ["libcairo.so.2", "libpixman-1.so.0", "libpng16.so.16", "libQt6Gui.so.6", "libdbus-1.so.3",
            "plugins/platforms/libqxcb.so"]
    assert slim.orphans(kept, ["plugins/platformthemes/libqgtk3.so"], lambda d: links.get(d, [])) == {
        "libcairo.so.2", "libpixman-1.so.0"}
