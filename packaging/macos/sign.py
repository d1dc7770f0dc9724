"""macOS: sign the bundle for notarisation, make the .dmg, sign, notarise and staple it (.github/workflows/dist.yml).

    python packaging/macos/sign.py sign  dist/StormScope.app "Developer ID Application: NAME (TEAMID)"
    python packaging/macos/sign.py dmg   dist/StormScope.app dist/StormScope-0.1.0-macos-arm64.dmg [IDENTITY]
    python packaging/macos/sign.py notarize dist/StormScope-0.1.0-macos-arm64.dmg     # then staples it
    python packaging/macos/sign.py sign dist/StormScope.app - --dry-run                # print the commands

Apple's notary service accepts a bundle only when every piece of code in it is signed with a Developer ID, with a
secure timestamp and the hardened runtime, inside out: each library and Python extension, each framework (Qt's
QtCore.framework ... in Contents/Frameworks) as a bundle after its contents, the command-line program, and the .app
last (which signs the window program and seals Contents/Resources). PyInstaller signs ad hoc; this signs again with
the identity. ``--options runtime`` turns on the hardened runtime, and entitlements.plist lists the one exception
Python needs (see the file). The .dmg holds the app and a link to /Applications, and is signed itself; notarytool
sends it to Apple (credentials: an App Store Connect API key, APPLE_API_KEY_PATH / APPLE_API_KEY_ID /
APPLE_API_ISSUER), then stapler attaches the ticket so Gatekeeper accepts it offline.

Without an identity (no secrets in the repository's settings) the workflow makes an unsigned .dmg: it opens with
right-click > Open. :func:`signing_order` and :func:`sign_commands` are tested on a mocked bundle in `make test`
(tests/test_packaging_installers.py); the rest runs only on macOS.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENTITLEMENTS = HERE / "entitlements.plist"
MACHO = (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe", b"\xfe\xed\xfa\xcf")  # 64/32-bit, universal


def is_macho(path: Path) -> bool:
    if path.is_symlink() or not path.is_file():
        return False
    with open(path, "rb") as f:
        return f.read(4) in MACHO


def signing_order(app: Path) -> list[Path]:
    """What to sign, inside out: the Mach-O files outside frameworks (deepest first), each framework bundle after its
    code (nested ones first), the programs in Contents/MacOS other than the main one, then the .app. Links are never
    signed (their targets are)."""
    contents = app / "Contents"
    frameworks = sorted({p for p in contents.rglob("*.framework") if p.is_dir() and not p.is_symlink()},
                        key=lambda p: (-len(p.parts), str(p)))
    files = [p for p in sorted(contents.rglob("*"), key=lambda p: (-len(p.parts), str(p)))
             if is_macho(p) and p.parent != contents / "MacOS"]
    loose = [p for p in files if not any(p.is_relative_to(f) for f in frameworks)]
    in_frameworks = [p for p in files if p not in loose]
    main = _main_program(app)
    programs = sorted(p for p in (contents / "MacOS").iterdir() if is_macho(p) and p.name != main)
    return [*in_frameworks, *loose, *frameworks, *programs, app]


def _main_program(app: Path) -> str:
    import plistlib

    return str(plistlib.loads((app / "Contents" / "Info.plist").read_bytes())["CFBundleExecutable"])


def sign_commands(app: Path, identity: str) -> list[list[str]]:
    """The codesign calls, in order, then the strict verification."""
    base = ["codesign", "--force", "--timestamp", "--options", "runtime", "--sign", identity]
    out = []
    for p in signing_order(app):
        entitled = p == app or p.parent.name == "MacOS"  # the programs run Python: they carry the entitlements
        out.append([*base, *(["--entitlements", str(ENTITLEMENTS)] if entitled else []), str(p)])
    out.append(["codesign", "--verify", "--deep", "--strict", "--verbose=2", str(app)])
    return out


def dmg_commands(app: Path, dmg: Path, staging: Path, identity: str | None) -> list[list[str]]:
    cmds = [["ditto", str(app), str(staging / app.name)], ["ln", "-s", "/Applications", str(staging / "Applications")],
            ["hdiutil", "create", "-volname", "StormScope", "-srcfolder", str(staging), "-fs", "HFS+", "-format",
             "UDZO", "-ov", str(dmg)]]
    if identity:
        cmds.append(["codesign", "--force", "--timestamp", "--sign", identity, str(dmg)])
    return cmds


def notarize_commands(dmg: Path, env: dict[str, str]) -> list[list[str]]:
    return [["xcrun", "notarytool", "submit", str(dmg), "--key", env["APPLE_API_KEY_PATH"], "--key-id",
             env["APPLE_API_KEY_ID"], "--issuer", env["APPLE_API_ISSUER"], "--wait"],
            ["xcrun", "stapler", "staple", str(dmg)],
            ["xcrun", "stapler", "validate", str(dmg)],
            ["spctl", "--assess", "--type", "open", "--context", "context:primary-signature", "-vv", str(dmg)]]


def run(cmds: list[list[str]], dry_run: bool) -> None:
    for c in cmds:
        print("+ " + shlex.join(c), flush=True)
        if not dry_run:
            subprocess.run(c, check=True)


def main(argv: list[str]) -> int:
    dry_run = "--dry-run" in argv
    args = [a for a in argv if a != "--dry-run"]
    if len(args) == 3 and args[0] == "sign":
        run(sign_commands(Path(args[1]), args[2]), dry_run)
    elif len(args) in (3, 4) and args[0] == "dmg":
        with tempfile.TemporaryDirectory(prefix="stormscope-dmg-") as tmp:
            run(dmg_commands(Path(args[1]), Path(args[2]), Path(tmp), args[3] if len(args) == 4 else None), dry_run)
    elif len(args) == 2 and args[0] == "notarize":
        run(notarize_commands(Path(args[1]), dict(os.environ)), dry_run)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
