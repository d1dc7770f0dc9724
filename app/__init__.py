"""StormScope application: workspace, analysis, jobs, command line and (in app.ui) the Qt window."""

import os as _os
import sys as _sys


def command_name() -> str:
    """How the user starts the command line, for messages that tell them what to type: ``stormscope`` when it was
    installed (pip, pipx, the desktop build's ``stormscope-cli``), else ``main.py`` (a checkout)."""
    name = _os.path.basename(_sys.argv[0] if _sys.argv else "").lower()
    return "stormscope" if name.startswith("stormscope") else "main.py"
