"""Smoke test of the Windows installer (.github/workflows/dist.yml, on Windows): install silently for the current
user, run the desktop build's smoke test on what was installed, check the Start menu entry and the .duckdb
association in the registry, uninstall silently and check that the programs, the entry and the keys are gone.

    python packaging/windows/installer_check.py dist/StormScope-0.1.0-windows-x64-setup.exe

The registry entries expected are read from stormscope.iss itself (:func:`registry_entries`), which
tests/test_packaging_installers.py also checks on Linux: the association opens ``StormScope.exe "%1"``, which
main.py opens as the workspace.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ISS = HERE / "stormscope.iss"
ROOTS = {"HKA": "HKCU"}  # a per-user install: HKA (the install's root) is HKEY_CURRENT_USER
ENTRY = re.compile(r'(\w+): "((?:[^"]|"")*)"')


def section(text: str, name: str) -> list[str]:
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("["):
            inside = line.strip() == f"[{name}]"
        elif inside and line.strip() and not line.lstrip().startswith(";"):
            lines.append(line)
    return lines


def entries(text: str, name: str) -> list[dict[str, str]]:
    """The entries of an Inno Setup section, each as its parameters (quotes undone)."""
    out = []
    for line in section(text, name):
        params = {k: v.replace('""', '"') for k, v in ENTRY.findall(line)}
        params.update({k: v for k, v in re.findall(r"(\w+): ([^\";]+?)(?:;|$)", line)})
        out.append({k: v.strip() for k, v in params.items()})
    return out


def registry_entries(text: str, app: str, tasks: set[str]) -> list[tuple[str, str, str, str]]:
    """(root, key, value name, data) the installer writes for an install in ``app`` with ``tasks`` ticked."""
    out = []
    for e in entries(text, "Registry"):
        if "Tasks" in e and e["Tasks"] not in tasks:
            continue
        out.append((ROOTS.get(e["Root"], e["Root"]), e["Subkey"], e["ValueName"],
                    e["ValueData"].replace("{app}", app)))
    return out


def fail(message: str) -> None:
    raise SystemExit(f"installer check FAILED: {message}")


def read_value(root: str, key: str, name: str) -> str | None:
    import winreg  # Windows only

    hive = {"HKCU": winreg.HKEY_CURRENT_USER, "HKLM": winreg.HKEY_LOCAL_MACHINE}[root]
    try:
        with winreg.OpenKey(hive, key) as k:
            return str(winreg.QueryValueEx(k, name)[0])
    except FileNotFoundError:
        return None


def start_menu_entry() -> Path:
    return Path(os.environ["APPDATA"]) / "Microsoft" / "Windows" / "Start Menu" / "Programs" / "StormScope.lnk"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__)
        return 2
    setup = Path(argv[0]).resolve()
    text = ISS.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="stormscope-install-") as tmp:
        app = Path(tmp) / "StormScope"
        log = Path(tmp) / "setup.log"
        subprocess.run([str(setup), "/VERYSILENT", "/SUPPRESSMSGBOXES", "/NORESTART", "/CURRENTUSER",
                        f"/DIR={app}", "/TASKS=associate", f"/LOG={log}"], check=True, timeout=600)
        for exe in ("StormScope.exe", "stormscope-cli.exe", "unins000.exe"):
            if not (app / exe).is_file():
                fail(f"{exe} was not installed in {app}")
        if not start_menu_entry().is_file():
            fail(f"no Start menu entry at {start_menu_entry()}")
        expected = registry_entries(text, str(app), {"associate"})
        for root, key, name, data in expected:
            got = read_value(root, key, name)
            if got != data:
                fail(f"{root}\\{key} [{name or '(default)'}] is {got!r}, expected {data!r}")
        print(f"ok  installed in {app}: the Start menu entry, {len(expected)} registry values (.duckdb: StormScope)")
        p = subprocess.run([sys.executable, str(HERE.parent / "smoke_test.py"), str(app)], check=False)
        if p.returncode != 0:
            fail("the smoke test of the installed app failed")
        subprocess.run([str(app / "unins000.exe"), "/VERYSILENT", "/SUPPRESSMSGBOXES", "/NORESTART"], check=True,
                       timeout=600)
        deadline = time.monotonic() + 120  # the uninstaller runs on from a copy of itself, then removes the folder
        while (app / "StormScope.exe").exists() and time.monotonic() < deadline:
            time.sleep(1)
        if (app / "StormScope.exe").exists() or (app / "stormscope-cli.exe").exists():
            fail(f"the programs are still in {app} after uninstalling")
        if start_menu_entry().exists():
            fail("the Start menu entry is still there after uninstalling")
        for root, key, name, _data in expected:
            if read_value(root, key, name) is not None:
                fail(f"{root}\\{key} [{name or '(default)'}] is still there after uninstalling")
    print("installer check passed: installed, smoke-tested, uninstalled without a trace")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
