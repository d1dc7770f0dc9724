"""Typed reads of the window's saved settings (QSettings gives back untyped values, and strings from an INI file)."""

from __future__ import annotations

from PySide6.QtCore import QSettings


def int_setting(settings: QSettings, key: str, default: int) -> int:
    """The whole number saved under ``key``; ``default`` when none is saved or what is saved is not one."""
    value = settings.value(key, default)
    if isinstance(value, bool):
        return default
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return default


def str_list_setting(settings: QSettings, key: str) -> list[str]:
    """The list of strings saved under ``key`` (empty when none is saved)."""
    value = settings.value(key, [], type=list)
    return [str(v) for v in value if isinstance(v, (str, int))] if isinstance(value, list) else []
