"""The workspace's capture plan as stored: save, read, clear (no Qt).

Table ``capture_plans(name, spec, created_at)`` (see docs/schema.md): the plan the customer was given, as a JSON
object (``app.analysis.capture_plan.CapturePlan.to_dict``), under the name ``plan``. Saving a new plan replaces
it. Making the plan, reading it back into its typed form and checking captures against it is analysis:
``app.analysis.capture_plan`` (``save``, ``stored``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from app.workspace import Workspace, has_table

NAME = "plan"


def save_spec(ws: Workspace, spec: dict[str, Any]) -> None:
    with ws.transaction():
        ws.con.execute("DELETE FROM capture_plans WHERE name = ?", [NAME])
        ws.con.execute("INSERT INTO capture_plans (name, spec, created_at) VALUES (?, ?, ?)",
                       [NAME, json.dumps(spec), datetime.now(UTC).replace(tzinfo=None)])


def get_spec(ws: Workspace) -> Any:
    """The stored plan's JSON, parsed; None when there is none (or the workspace predates the table)."""
    if not has_table(ws, "capture_plans"):
        return None
    rows = ws.con.execute("SELECT spec FROM capture_plans WHERE name = ?", [NAME]).fetchall()
    return json.loads(rows[0][0]) if rows else None


def clear_spec(ws: Workspace) -> bool:
    """Remove the stored plan; whether there was one."""
    if get_spec(ws) is None:
        return False
    with ws.transaction():
        ws.con.execute("DELETE FROM capture_plans WHERE name = ?", [NAME])
    return True
