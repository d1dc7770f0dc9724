"""Saved column mappings: how to read a CSV/TSV of results whose columns have their own names.

A mapping is saved once per workspace (table ``mappings``: name, kind, spec JSON, created_at,
updated_at) and used by ``main.py import FILE --mapping NAME``. Its spec, checked by
:func:`parsers.iomark.validate_mapping`::

    {"kind": "iomark",                          # the target: rows land in iomark_results
     "columns": {"users": "Users", "iops": "Total IOPS", "resp_avg_ms": "Avg Resp (us)"},
     "scale": {"resp_avg_ms": 0.001},           # factor applied to the number (µs -> ms)
     "constants": {"workload": "IOmark-VM"},    # fixed values for columns the file lacks
     "delimiter": null, "decimal": ".", "skip_rows": 0, "description": "..."}

Column names in the file are matched without regard to case or surrounding spaces. The run keeps
the spec it was read with (``runs.meta.mapping``), so changing a mapping later does not change
what an imported run says. No Qt here.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from app.workspace import Workspace, has_table
from parsers.iomark import MappingError, validate_mapping
from parsers.kinds import IOMARK

__all__ = ["MappingError", "delete_mapping", "get_mapping", "list_mappings", "parse_pairs", "save_mapping",
           "format_id"]


def format_id(spec: dict[str, Any]) -> str:
    """The registry format that reads files through a mapping of this kind."""
    return f"{spec.get('kind') or IOMARK}-mapped"


def parse_pairs(items: list[str], what: str) -> dict[str, str]:
    """``["users=Users", "iops=Total IOPS"]`` -> ``{"users": "Users", "iops": "Total IOPS"}``."""
    out: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise MappingError(f"{what} wants TARGET=VALUE, got {item!r}")
        k, v = item.split("=", 1)
        k = k.strip()
        if k in out:
            raise MappingError(f"{what} {k!r} given twice")
        out[k] = v.strip()
    return out


def save_mapping(ws: Workspace, name: str, spec: dict[str, Any], replace: bool = False) -> dict[str, Any]:
    """Check ``spec`` and store it as ``name``.

    Raises :class:`MappingError` when the spec cannot work, or the name is taken and not ``replace``.
    """
    name = name.strip()
    if not name:
        raise MappingError("a mapping needs a name")
    clean = validate_mapping({**spec, "name": name})
    now = datetime.now(UTC).replace(tzinfo=None)
    exists = ws.con.execute("SELECT count(*) FROM mappings WHERE name = ?", [name]).fetchall()[0][0]
    if exists and not replace:
        raise MappingError(f"a mapping named {name!r} exists (use --replace to overwrite it)")
    if exists:
        ws.con.execute("UPDATE mappings SET kind = ?, spec = ?, updated_at = ? WHERE name = ?",
                       [clean["kind"], json.dumps(clean), now, name])
    else:
        ws.con.execute("INSERT INTO mappings VALUES (?, ?, ?, ?, ?)",
                       [name, clean["kind"], json.dumps(clean), now, now])
    return clean


def get_mapping(ws: Workspace, name: str) -> dict[str, Any] | None:
    """The saved mapping ``name``, checked as when it was saved (the workspace may come from someone else):
    :class:`MappingError` names it when it is damaged; None when there is none."""
    if not has_table(ws, "mappings"):
        return None
    rows = ws.con.execute("SELECT spec FROM mappings WHERE name = ?", [name]).fetchall()
    return _stored(name, rows[0][0]) if rows else None


def list_mappings(ws: Workspace) -> list[dict[str, Any]]:
    """Every saved mapping; a damaged one is listed with its problem (``error``) instead of its spec."""
    if not has_table(ws, "mappings"):
        return []
    cur = ws.con.execute("SELECT name, kind, spec, created_at, updated_at FROM mappings ORDER BY name")
    out = []
    for n, k, s, c, u in cur.fetchall():
        try:
            out.append({"name": n, "kind": k, "spec": _stored(n, s), "created_at": c, "updated_at": u})
        except MappingError as e:
            out.append({"name": n, "kind": k, "spec": None, "error": str(e), "created_at": c, "updated_at": u})
    return out


def _stored(name: str, text: Any) -> dict[str, Any]:
    """A stored spec read back through the same check as a new one (validate_mapping)."""
    try:
        spec = json.loads(text)
    except (TypeError, ValueError):
        raise MappingError(f"the saved mapping {name!r} is damaged (not a mapping StormScope wrote)") from None
    if not isinstance(spec, dict):
        raise MappingError(f"the saved mapping {name!r} is damaged (not a mapping StormScope wrote)")
    try:
        return validate_mapping({**spec, "name": name})
    except MappingError as e:
        raise MappingError(f"the saved mapping {name!r} is damaged: {e}") from None


def delete_mapping(ws: Workspace, name: str) -> bool:
    if not has_table(ws, "mappings"):
        return False
    n = ws.con.execute("SELECT count(*) FROM mappings WHERE name = ?", [name]).fetchall()[0][0]
    ws.con.execute("DELETE FROM mappings WHERE name = ?", [name])
    return bool(n)
