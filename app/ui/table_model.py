"""A lazy Qt table model over any DuckDB query: rows are fetched in pages as the view scrolls.

The query is wrapped (``SELECT * FROM (query) ORDER BY ... LIMIT n OFFSET k``) so sorting and
filtering happen in DuckDB, and only the visible pages ever reach Python. A 10-million-row run
opens as fast as a 10-row one: the model asks for ``count(*)`` and the first page only.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from datetime import date, datetime
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

PAGE = 500
MAX_PAGES = 40  # pages kept in memory (LRU)


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def format_value(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        return f"{v:.6g}" if abs(v) >= 1e-4 or v == 0 else f"{v:.3e}"
    if isinstance(v, datetime):
        return v.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, dict):
        return ", ".join(f"{k}={x}" for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return "; ".join(str(x) for x in v)
    return str(v)


class LazyQueryModel(QAbstractTableModel):
    """Pages of ``query`` from a DuckDB connection, sortable and filterable in SQL."""

    def __init__(self, con: Any, query: str, parent: Any = None):
        super().__init__(parent)
        self.con = con
        self.base_query = query.strip().rstrip(";")
        self.columns: list[str] = []
        self.types: list[str] = []
        self.sort_col: int | None = None
        self.sort_desc = False
        self.filters: dict[int, str] = {}
        self._rows = 0
        self._pages: OrderedDict[int, list[tuple]] = OrderedDict()
        self.error: str | None = None
        self.refresh()

    # ---- SQL -------------------------------------------------------------------------------
    def _where(self) -> tuple[str, list[Any]]:
        parts, params = [], []
        for col, text in self.filters.items():
            text = text.strip()
            if not text or col >= len(self.columns):
                continue
            ident = quote_ident(self.columns[col])
            op = next((o for o in (">=", "<=", "!=", ">", "<", "=") if text.startswith(o)), None)
            if op and self._numeric(col):
                try:
                    params.append(float(text[len(op):].strip()))
                except ValueError:
                    continue
                parts.append(f"{ident} {op} ?")
            else:
                parts.append(f"CAST({ident} AS VARCHAR) ILIKE ?")
                params.append(f"%{text}%")
        return (" WHERE " + " AND ".join(parts)) if parts else "", params

    def _numeric(self, col: int) -> bool:
        t = self.types[col].upper() if col < len(self.types) else ""
        return any(k in t for k in ("INT", "DOUBLE", "FLOAT", "DECIMAL", "REAL", "NUMERIC"))

    def filtered_query(self) -> tuple[str, list[Any]]:
        where, params = self._where()
        q = f"SELECT * FROM ({self.base_query}) AS _q{where}"
        if self.sort_col is not None and self.sort_col < len(self.columns):
            direction = "DESC" if self.sort_desc else "ASC"
            q += f" ORDER BY {quote_ident(self.columns[self.sort_col])} {direction} NULLS LAST"
        return q, params

    def refresh(self) -> None:
        self.beginResetModel()
        self._pages.clear()
        self.error = None
        try:
            cur = self.con.execute(f"DESCRIBE SELECT * FROM ({self.base_query}) AS _q")
            desc = cur.fetchall()
            self.columns = [r[0] for r in desc]
            self.types = [str(r[1]) for r in desc]
            q, params = self.filtered_query()
            self._rows = int(self.con.execute(f"SELECT count(*) FROM ({q}) AS _c", params).fetchall()[0][0])
        except Exception as e:  # an SQL error is shown inline by the view
            self.error = str(e)
            self._rows = 0
        self.endResetModel()

    def page(self, n: int) -> list[tuple]:
        if n in self._pages:
            self._pages.move_to_end(n)
            return self._pages[n]
        q, params = self.filtered_query()
        rows = self.con.execute(f"{q} LIMIT {PAGE} OFFSET {n * PAGE}", params).fetchall()
        self._pages[n] = rows
        if len(self._pages) > MAX_PAGES:
            self._pages.popitem(last=False)
        return rows

    def row(self, r: int) -> tuple:
        p = self.page(r // PAGE)
        i = r % PAGE
        return p[i] if i < len(p) else tuple(None for _ in self.columns)

    # ---- Qt model ------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return format_value(self.row(index.row())[index.column()])
        if role == Qt.ItemDataRole.UserRole:
            return self.row(index.row())[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and self._numeric(index.column()):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self.columns[section] if section < len(self.columns) else None
        return str(section + 1)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.sort_col = column
        self.sort_desc = order == Qt.SortOrder.DescendingOrder
        self.refresh()

    def set_filter(self, column: int, text: str) -> None:
        if text.strip():
            self.filters[column] = text
        else:
            self.filters.pop(column, None)
        self.refresh()

    # ---- helpers for the view --------------------------------------------------------------
    def column_stats(self, column: int) -> dict[str, Any]:
        """min / mean / max / p95 of a numeric column over the filtered rows (computed in DuckDB)."""
        if not self._numeric(column):
            return {}
        q, params = self.filtered_query()
        ident = quote_ident(self.columns[column])
        row = self.con.execute(
            f"SELECT min({ident}), avg({ident}), max({ident}), quantile_cont({ident}, 0.95), count({ident}) "
            f"FROM ({q}) AS _s", params).fetchall()[0]
        return dict(zip(("min", "mean", "max", "p95", "n"), row))

    def rows_as_tsv(self, rows: list[int], cols: list[int], header: bool = False) -> str:
        lines = ["\t".join(self.columns[c] for c in cols)] if header else []
        for r in rows:
            vals = self.row(r)
            lines.append("\t".join(format_value(vals[c]) for c in cols))
        return "\n".join(lines) + "\n"
