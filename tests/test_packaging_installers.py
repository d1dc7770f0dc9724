"""The installers' recipes, as far as they can be checked off their systems (.github/workflows/dist.yml runs them):
the Windows installer's entries (packaging/windows/stormscope.iss), the macOS signing order and .dmg
(packaging/macos/sign.py) on a mocked bundle with Qt frameworks, the release's files and checksums
(packaging/release.py). The Linux .deb is built and smoke-tested here by `make deb`."""

import os
import plistlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from main import workspace_argument
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "packaging"))
sys.path.insert(0, str(ROOT / "packaging" / "windows"))
sys.path.insert(0, str(ROOT / "packaging" / "macos"))
import installer_check  # noqa: E402
import release  # noqa: E402
import sign  # noqa: E402

ISS = (ROOT / "packaging" / "windows" / "stormscope.iss").read_text(encoding="utf-8")
WORKFLOW = (ROOT / ".github" / "workflows" / "dist.yml").read_text(encoding="utf-8")
APP = r"C:\Users\ana\AppData\Local\Programs\StormScope"


def _setup() -> dict[str, str]:
    return dict(line.split("=", 1) for line in installer_check.section(ISS, "Setup"))


def test_the_windows_installer_has_a_start_menu_entry_and_an_uninstaller():
    icons = installer_check.entries(ISS, "Icons")
    assert {"Name": r"{autoprograms}\StormScope", "Filename": r"{app}\StormScope.exe",
            "Comment": "Storage-performance trace analysis"} in icons
    setup = _setup()
    assert "Uninstallable" not in setup  # Inno Setup writes unins000.exe and the Settings > Apps entry
    assert setup["UninstallDisplayIcon"] == r"{app}\StormScope.exe"
    assert setup["PrivilegesRequired"] == "lowest"  # no administrator rights needed (a consultant's locked laptop)
    assert setup["AppVersion"] == "{#AppVersion}"  # given by the workflow from pyproject.toml
    files = installer_check.entries(ISS, "Files")
    assert files == [{"Source": r"{#SourceDir}\*", "DestDir": "{app}", "Flags": "ignoreversion recursesubdirs "
                      "createallsubdirs"}]


def test_the_windows_installer_opens_workspaces_with_the_window():
    values = installer_check.registry_entries(ISS, APP, {"associate"})
    classes = r"Software\Classes"
    assert ("HKCU", rf"{classes}\.duckdb", "", "StormScope.Workspace") in values
    assert ("HKCU", rf"{classes}\.duckdb\OpenWithProgids", "StormScope.Workspace", "") in values
    command = next(v[3] for v in values if v[1] == rf"{classes}\StormScope.Workspace\shell\open\command")
    assert command == rf'"{APP}\StormScope.exe" "%1"'
    # what Windows then starts: the window program with the file alone, which main.py opens as the workspace
    assert workspace_argument([r"D:\ACME\boot storm.duckdb"]) == ["-w", r"D:\ACME\boot storm.duckdb"]
    # the association is a task: without it, StormScope is only offered in "Open with"
    without = installer_check.registry_entries(ISS, APP, set())
    assert ("HKCU", rf"{classes}\.duckdb", "", "StormScope.Workspace") not in without
    assert _setup()["ChangesAssociations"] == "yes"


def _macho(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xcf\xfa\xed\xfe" + b"\0" * 12)


def _bundle(tmp_path: Path) -> Path:
    """A PyInstaller .app with Qt's frameworks as the PySide6 wheel ships them (Versions/A, Current links)."""
    app = tmp_path / "StormScope.app"
    c = app / "Contents"
    _macho(c / "MacOS" / "StormScope")
    _macho(c / "MacOS" / "stormscope-cli")
    (c / "Info.plist").parent.mkdir(parents=True, exist_ok=True)
    (c / "Info.plist").write_bytes(plistlib.dumps({"CFBundleExecutable": "StormScope"}))
    qt = c / "Frameworks" / "PySide6" / "Qt" / "lib"
    for fw in ("QtCore", "QtGui"):
        _macho(qt / f"{fw}.framework" / "Versions" / "A" / fw)
        (qt / f"{fw}.framework" / "Versions" / "A" / "Resources").mkdir()
        os.symlink("A", qt / f"{fw}.framework" / "Versions" / "Current")
        os.symlink(f"Versions/Current/{fw}", qt / f"{fw}.framework" / fw)
    _macho(c / "Frameworks" / "PySide6" / "Qt" / "plugins" / "platforms" / "libqcocoa.dylib")
    _macho(c / "Frameworks" / "libpython3.11.dylib")
    _macho(c / "Frameworks" / "_polars_runtime_32" / "_polars_runtime.abi3.so")
    (c / "Resources" / "docs").mkdir(parents=True)
    os.symlink("../Frameworks/libpython3.11.dylib", c / "Resources" / "libpython3.11.dylib")
    (c / "Resources" / "docs" / "user-guide.md").write_text("# guide\n")
    return app


def test_macos_signing_goes_inside_out(tmp_path):
    app = _bundle(tmp_path)
    order = sign.signing_order(app)
    rel = [str(p.relative_to(app.parent)) for p in order]
    fw = "StormScope.app/Contents/Frameworks/PySide6/Qt/lib"
    assert rel[-1] == "StormScope.app"  # the bundle last: it signs the window program and seals the resources
    assert rel[-2] == "StormScope.app/Contents/MacOS/stormscope-cli"
    for name in ("QtCore", "QtGui"):  # a framework's code before the framework, the framework before the app
        assert rel.index(f"{fw}/{name}.framework/Versions/A/{name}") < rel.index(f"{fw}/{name}.framework")
    assert "StormScope.app/Contents/Frameworks/libpython3.11.dylib" in rel
    assert "StormScope.app/Contents/Frameworks/_polars_runtime_32/_polars_runtime.abi3.so" in rel
    assert "StormScope.app/Contents/Frameworks/PySide6/Qt/plugins/platforms/libqcocoa.dylib" in rel
    assert not any(p.is_symlink() for p in order)  # links are not code: their targets are signed
    assert "StormScope.app/Contents/Resources/docs/user-guide.md" not in rel
    assert len(rel) == len(set(rel))


def test_macos_signing_uses_the_hardened_runtime_and_the_entitlements_on_the_programs(tmp_path):
    app = _bundle(tmp_path)
    cmds = sign.sign_commands(app, "Developer ID Application: ACME (TEAM123456)")
    for c in cmds[:-1]:
        assert c[:7] == ["codesign", "--force", "--timestamp", "--options", "runtime", "--sign",
                         "Developer ID Application: ACME (TEAM123456)"]
    entitled = [c[-1] for c in cmds if "--entitlements" in c]
    assert entitled == [str(app / "Contents" / "MacOS" / "stormscope-cli"), str(app)]
    assert cmds[-1] == ["codesign", "--verify", "--deep", "--strict", "--verbose=2", str(app)]
    ent = plistlib.loads(sign.ENTITLEMENTS.read_bytes())
    assert ent == {"com.apple.security.cs.allow-unsigned-executable-memory": True}


def test_the_dmg_holds_the_app_and_applications_and_is_notarised_then_stapled(tmp_path):
    app = _bundle(tmp_path)
    dmg = tmp_path / "StormScope-0.1.0-macos-arm64.dmg"
    cmds = sign.dmg_commands(app, dmg, tmp_path / "stage", "Developer ID Application: ACME (TEAM123456)")
    assert ["ln", "-s", "/Applications", str(tmp_path / "stage" / "Applications")] in cmds
    assert cmds[-1][:2] == ["codesign", "--force"]
    assert sign.dmg_commands(app, dmg, tmp_path / "stage", None)[-1][0] == "hdiutil"  # unsigned: no codesign
    env = {"APPLE_API_KEY_PATH": "/k.p8", "APPLE_API_KEY_ID": "ABC", "APPLE_API_ISSUER": "uuid"}
    steps = [c[:3] for c in sign.notarize_commands(dmg, env)]
    assert steps[:2] == [["xcrun", "notarytool", "submit"], ["xcrun", "stapler", "staple"]]


def test_a_release_needs_its_tag_to_be_the_version_and_writes_checksums(tmp_path):
    v = release.version()
    for name in release.installers(v):
        (tmp_path / name).write_bytes(name.encode())
    with pytest.raises(SystemExit, match=f"the tag v9.9.9 is not the version the installers carry .*{v}"):
        release.prepare("v9.9.9", tmp_path)
    (tmp_path / release.installers(v)[0]).unlink()
    with pytest.raises(SystemExit, match="missing from"):
        release.prepare(f"v{v}", tmp_path)
    (tmp_path / release.installers(v)[0]).write_bytes(b"setup")
    sums = release.prepare(f"v{v}", tmp_path)
    assert len(sums.read_text().splitlines()) == len(release.installers(v))
    check = subprocess.run(["sha256sum", "-c", sums.name], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.count(": OK") == len(release.installers(v))


def test_the_workflow_makes_the_files_the_release_ships():
    """The names the jobs give their installers are the ones the release checks for."""
    made = {"windows": "out/StormScope-${VERSION}-windows-x64-setup.exe",
            "dmg": "out/StormScope-${VERSION}-${{ matrix.name }}.dmg",
            "deb": "stormscope_${VERSION}_amd64.deb", "wheel": "stormscope-${VERSION}-py3-none-any.whl"}
    for name in made.values():
        assert name in WORKFLOW
    expected = {n.replace(release.version(), "${VERSION}") for n in release.installers(release.version())}
    assert expected == {"StormScope-${VERSION}-windows-x64-setup.exe", "StormScope-${VERSION}-macos-arm64.dmg",
                        "StormScope-${VERSION}-macos-x86_64.dmg", "stormscope_${VERSION}_amd64.deb",
                        "stormscope-${VERSION}-py3-none-any.whl"}
    assert "name: macos-arm64" in WORKFLOW
    assert "name: macos-x86_64" in WORKFLOW
    assert 'python3 packaging/release.py "$GITHUB_REF_NAME" out' in WORKFLOW
    assert "gh release create" in WORKFLOW
    assert 'tags: ["v*"]' in WORKFLOW
    # every smoke test is given the app itself (the .app on macOS), as the smoke test's layout expects
    assert "Contents/MacOS" not in WORKFLOW
    assert 'python packaging/smoke_test.py "$MNT/StormScope.app"' in WORKFLOW


def test_the_strip_leaves_auditwheels_libraries_alone():
    import slim

    assert not slim.strippable("numpy.libs/libscipy_openblas64_-32a4b2a6.so")
    assert not slim.strippable("pillow.libs/libjpeg-6dc8d115.so.62.4.0")
    assert slim.strippable("libpython3.11.so.1.0")
    assert slim.strippable("_polars_runtime_32/_polars_runtime.abi3.so")
    assert shutil.which("strip"), "binutils (strip) is needed by make dist"
