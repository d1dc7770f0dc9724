"""The Linux installer: a .deb of the desktop build (`make deb`; .github/workflows/dist.yml on Ubuntu 22.04), then
its smoke test.

    python packaging/deb.py build dist/StormScope dist/        # -> dist/stormscope_VERSION_amd64.deb
    python packaging/deb.py check dist/stormscope_VERSION_amd64.deb

What it installs:
  /opt/stormscope/                      the one-folder build (both programs, _internal/)
  /usr/bin/stormscope, stormscope-gui   links to the command line and the window (as pipx names them)
  /usr/share/applications/stormscope.desktop, /usr/share/mime/packages/stormscope.xml
                                        the menu entry, "Open with" for traces, workspaces (.duckdb) opened with it
  /usr/share/icons/hicolor/.../stormscope.png|svg, /usr/share/doc/stormscope/copyright
Compressed with gzip, not xz: xz took 16 minutes for the 470 MB here (gzip one), and every dpkg reads gzip. The
menu, MIME and icon caches are refreshed by dpkg's triggers (desktop-file-utils, shared-mime-info,
hicolor-icon-theme): no maintainer scripts. Removing the package removes all of it; the user's workspaces, settings
and logs (in their home) are theirs and stay.

Depends: the packages of the system libraries the build links but does not carry (libc6, libGL, libEGL, the xcb
libraries Qt loads...), found as dpkg-shlibdeps would: ldd on every ELF file of the build, each library resolved
outside it owned by a package (dpkg -S). The check unpacks the .deb (dpkg-deb -x: no root, nothing installed), reads
its control data, validates the menu entry, checks that every library of every ELF file resolves (inside the build
or through Depends), and runs the desktop build's smoke test (packaging/smoke_test.py) on /opt/stormscope as
unpacked. Standard library only; needs dpkg-deb, ldd, dpkg (Debian / Ubuntu).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "opt/stormscope"
LINKS = {"usr/bin/stormscope": "stormscope-cli", "usr/bin/stormscope-gui": "StormScope"}
DESCRIPTION = """\
Storage-performance trace analysis and customer reports
 StormScope turns the traces of a storage test (iostat, sar, nmon, esxtop,
 vscsiStats, perfmon, fio, DiskSpd, IOzone, IOmark, Iometer, hdparm) into the
 figures a storage or VDI decision needs, and a PDF report that answers them."""
RESOLVED = re.compile(r"^\s*(\S+)\s+=>\s+(/\S+)", re.M)
NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.M)


def version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def elf_files(folder: Path) -> list[Path]:
    out = []
    for f in sorted(folder.rglob("*")):
        if f.is_file() and not f.is_symlink():
            with open(f, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    out.append(f)
    return out


def ldd(files: list[Path], folder: Path) -> str:
    """ldd's report on ``files``, the build's own folders on the search path (as its programs set it up)."""
    dirs = sorted({str(f.parent) for f in files} | {str(folder / "_internal")})
    env = dict(os.environ, LD_LIBRARY_PATH=":".join(dirs))
    out = []
    for f in files:
        p = subprocess.run(["ldd", str(f)], capture_output=True, text=True, env=env, check=False)
        out.append(p.stdout)
    return "\n".join(out)


def depends(folder: Path) -> list[str]:
    """The packages owning the libraries the build's ELF files load from the system."""
    report = ldd(elf_files(folder), folder)
    missing = sorted(set(NOT_FOUND.findall(report)))
    if missing:
        raise SystemExit(f"deb: libraries the build needs are not installed on this machine: {', '.join(missing)}")
    inside = str(folder.resolve())
    system = {path for _name, path in RESOLVED.findall(report) if not str(Path(path).resolve()).startswith(inside)}
    return sorted({owner(path) for path in system})


def owner(path: str) -> str:
    """The package that installed ``path`` (merged /usr: /lib/x is /usr/lib/x)."""
    for candidate in dict.fromkeys([path, str(Path(path).resolve()), path.replace("/usr/lib/", "/lib/", 1),
                                    path.replace("/lib/", "/usr/lib/", 1)]):
        p = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True, check=False)
        if p.returncode == 0:
            return p.stdout.split(":", 1)[0].strip()
    raise SystemExit(f"deb: no package owns {path}")


def build(app: Path, out_dir: Path) -> Path:
    if not (app / "stormscope-cli").is_file() or not (app / "StormScope").is_file():
        raise SystemExit(f"deb: {app} is not a desktop build (make dist)")
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
    deb = out_dir / f"stormscope_{version()}_{arch}.deb"
    with tempfile.TemporaryDirectory(prefix="stormscope-deb-") as tmp:
        stage = Path(tmp) / "root"
        shutil.copytree(app, stage / PREFIX, symlinks=True)
        for link, target in LINKS.items():
            (stage / link).parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.path.relpath(f"/{PREFIX}/{target}", f"/{Path(link).parent}"), stage / link)
        files = {
            "usr/share/applications/stormscope.desktop": ROOT / "packaging" / "stormscope.desktop",
            "usr/share/mime/packages/stormscope.xml": ROOT / "packaging" / "stormscope-mime.xml",
            "usr/share/icons/hicolor/512x512/apps/stormscope.png": ROOT / "app" / "ui" / "icons" / "stormscope.png",
            "usr/share/icons/hicolor/scalable/apps/stormscope.svg": ROOT / "app" / "ui" / "icons" / "stormscope.svg",
        }
        for dest, src in files.items():
            (stage / dest).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, stage / dest)
        doc = stage / "usr/share/doc/stormscope"
        doc.mkdir(parents=True)
        (doc / "copyright").write_text(
            "StormScope\n\n" + (ROOT / "LICENSE").read_text(encoding="utf-8") + "\n\nDejaVu fonts (reports/fonts):\n\n"
            + (ROOT / "reports" / "fonts" / "LICENSE-DejaVu.txt").read_text(encoding="utf-8"), encoding="utf-8")
        size_kb = sum(f.stat().st_size for f in stage.rglob("*") if f.is_file() and not f.is_symlink()) // 1024
        control = stage / "DEBIAN" / "control"
        control.parent.mkdir()
        control.write_text(
            f"Package: stormscope\nVersion: {version()}\nArchitecture: {arch}\n"
            "Maintainer: The StormScope authors <stormscope@localhost>\nSection: utils\nPriority: optional\n"
            f"Installed-Size: {size_kb}\nDepends: {', '.join(depends(app))}\n"
            "Recommends: libxcb-cursor0, shared-mime-info, desktop-file-utils\n"
            f"Description: {DESCRIPTION}\n", encoding="utf-8")
        for d in [stage, *stage.rglob("*")]:  # dpkg-deb wants 0755 folders and no group/other write bits
            if d.is_dir() and not d.is_symlink():
                d.chmod(0o755)
        subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-z6", "--build", str(stage), str(deb)],
                       check=True, stdout=subprocess.DEVNULL)
    print(f"deb: {deb} ({deb.stat().st_size / 2**20:.0f} MB; installed {size_kb / 1024:.0f} MB)")
    return deb


def fields(deb: Path) -> dict[str, str]:
    text = subprocess.run(["dpkg-deb", "--field", str(deb)], capture_output=True, text=True, check=True).stdout
    return dict(re.findall(r"^(\S+): (.*)$", text, re.M))


def fail(message: str) -> None:
    raise SystemExit(f"deb check FAILED: {message}")


def check(deb: Path) -> None:
    f = fields(deb)
    if (f.get("Package"), f.get("Version")) != ("stormscope", version()):
        fail(f"control names {f.get('Package')} {f.get('Version')}, not stormscope {version()}")
    wanted = [p.split()[0] for p in f.get("Depends", "").split(",") if p.strip()]
    if not wanted:
        fail("no Depends")
    for package in wanted:
        if subprocess.run(["dpkg-query", "-W", package], capture_output=True, check=False).returncode != 0:
            fail(f"Depends names {package}, which is not installed here (the smoke test ran without it?)")
    with tempfile.TemporaryDirectory(prefix="stormscope-deb-check-") as tmp:
        root = Path(tmp)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
        app = root / PREFIX
        for link, target in LINKS.items():
            if (root / link).resolve() != (app / target).resolve() or not (root / link).is_file():
                fail(f"/{link} does not lead to /{PREFIX}/{target}")
        desktop = root / "usr/share/applications/stormscope.desktop"
        if shutil.which("desktop-file-validate"):
            p = subprocess.run(["desktop-file-validate", str(desktop)], capture_output=True, text=True, check=False)
            if p.returncode != 0:
                fail(f"the menu entry does not validate:\n{p.stdout}{p.stderr}")
        exec_line = re.search(r"^Exec=(\S+)", desktop.read_text(encoding="utf-8"), re.M)
        if exec_line is None or f"usr/bin/{exec_line.group(1)}" not in LINKS:
            fail("the menu entry does not start /usr/bin/stormscope-gui")
        missing = sorted(set(NOT_FOUND.findall(ldd(elf_files(app), app))))
        if missing:
            fail(f"libraries not found for the unpacked build: {', '.join(missing)}")
        print(f"ok  {deb.name}: stormscope {f['Version']}, Depends {len(wanted)} packages (all installed here), "
              "/usr/bin links, menu entry valid, every library of the build resolves")
        p = subprocess.run([sys.executable, str(ROOT / "packaging" / "smoke_test.py"), str(app)], check=False)
        if p.returncode != 0:
            fail("the smoke test of the unpacked build failed")
    print(f"deb check passed: {deb}")


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "build":
        build(Path(argv[1]), Path(argv[2]))
        return 0
    if len(argv) == 2 and argv[0] == "check":
        check(Path(argv[1]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
