"""A read-only table of figures, as the result tabs show them (Qt widgets only)."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableWidget, QTableWidgetItem


def read_only_table(header: list[str], name: str, tips: dict[str, str] | None = None) -> QTableWidget:
    """An empty table with ``header`` (a column's tip from ``tips``), not editable, columns as wide as their
    contents, the last one stretched, no row numbers, no wrapping."""
    t = QTableWidget(0, len(header))
    t.setObjectName(name)
    t.setHorizontalHeaderLabels(header)
    for j, h in enumerate(header):
        item = t.horizontalHeaderItem(j)
        if item is not None and tips and h in tips:
            item.setToolTip(tips[h])
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.verticalHeader().setVisible(False)
    t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    t.horizontalHeader().setStretchLastSection(True)
    t.setWordWrap(False)
    return t


def cell(table: QTableWidget, row: int, col: int) -> QTableWidgetItem:
    """The item at ``row``, ``col`` of a table that gives every cell an item when it makes its rows (Qt's
    ``item`` answers None for a cell without one)."""
    item = table.item(row, col)
    assert item is not None, f"{table.objectName() or 'table'}: no item at row {row}, column {col}"
    return item
