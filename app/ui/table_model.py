"""A lazy Qt table model over DuckDB: every query runs on a worker thread, never on the GUI thread.

Two sources:

* a **table** (a run's rows: ``iostat_samples WHERE run_id = 7``): the worker first fetches the
  row ids of the filtered, sorted view (a single column, fast even for 10 M rows), then each page
  is a lookup of 500 row ids -- the scroll bar can jump anywhere instantly;
* any **SQL query** (the SQL box): pages are ``LIMIT/OFFSET`` of the wrapped query.

Rows that are not fetched yet show "…" and fill in when their page arrives.

Every query the model runs -- describing the user's statement, counting, paging, statistics -- runs on the worker,
inside a read-only transaction (app.safe_open.read_only_transaction): the window's connection can write, so the
transaction, not a text check, is what keeps a query from changing the workspace. A query is bounded: Cancel
(:meth:`LazyQueryModel.cancel`) and the time limit interrupt DuckDB, and closing the model interrupts what runs.
"""

from __future__ import annotations

import math
import queue
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import duckdb
import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QThread, Signal

from app.safe_open import NO_FILES, SQLRefused, check_query, read_only_transaction, refusal, shown_query
from app.safe_text import for_display, shown

PAGE = 500
MAX_PAGES = 60  # pages kept in memory (LRU)
# rows a view shows at most: Qt's header and scroll bar count pixels in a 32-bit int (100 M rows x 22 px overflow
# it and the view never finishes laying out); past it the view says how many rows the query has, and Export writes
# them all
MAX_ROWS = 20_000_000
TIME_LIMIT_S = 300  # a query the SQL tab runs is stopped after this long, unless the user sets another limit
PENDING = "…"
FAILED = "(error)"  # a row whose page could not be fetched: the error line above the table says why
READ_ONLY = "The SQL tab is read-only: only SELECT queries (and WITH … SELECT) can be run here."
ONE_STATEMENT = "The SQL tab runs one query at a time: remove the other statements (or the ';' between them)."
EMPTY = "Type a SELECT query."
_WORDS = {"read_only": READ_ONLY, "one_statement": ONE_STATEMENT, "empty": EMPTY, "no_files": NO_FILES}
CANCELLED = "The query was cancelled."
# first words of statements that change the workspace (or reach outside it): refused even when misspelt further on
_WRITES = ("DELETE", "UPDATE", "INSERT", "CREATE", "COPY", "ATTACH", "DETACH", "DROP", "ALTER", "TRUNCATE",
           "MERGE", "INSTALL", "LOAD", "EXPORT", "IMPORT", "CHECKPOINT", "VACUUM")


def check_select(con: Any, sql: str) -> None:
    """Raise :class:`SQLRefused` unless ``sql`` is one read-only query (SELECT, WITH … SELECT, FROM …, VALUES,
    DESCRIBE/SHOW/SUMMARIZE) whose parse tree only reads -- app.safe_open.check_query, the one gate for SQL
    StormScope did not write, in the SQL tab's words -- and DuckDB's own error when it does not parse. It parses
    only: binding (DESCRIBE) runs on the model's worker, inside a read-only transaction."""
    try:
        check_query(con, sql)
    except SQLRefused as e:
        raise SQLRefused(_WORDS.get(e.reason, str(e)), e.reason) from None
    except duckdb.Error:
        if _first_word(sql) in _WRITES:
            raise SQLRefused(READ_ONLY, "read_only") from None
        raise


def _refused(e: BaseException) -> SQLRefused | None:
    """DuckDB refusing a query inside the read-only transaction (a write, a file), in the SQL tab's words."""
    r = refusal(e)
    return None if r is None else SQLRefused(_WORDS.get(r.reason, str(r)), r.reason)


def _first_word(sql: str) -> str:
    text = re.sub(r"(--[^\n]*|/\*.*?\*/)", " ", sql, flags=re.S).strip().lstrip("(").upper()
    return re.split(r"\W", text, maxsplit=1)[0] if text else ""


def user_error(message: str) -> str:
    """DuckDB's message without the "LINE n: …" excerpt of the query that failed: for an error raised by the
    model's wrapper (filters, sort, paging), that excerpt is SQL the user never wrote."""
    return re.split(r"\n\s*\nLINE \d+:", message, maxsplit=1)[0].strip()


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


CELL_LIMIT = 1000  # characters of one text cell the grid shows (copying takes them all)


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


@dataclass
class Source:
    """What the model shows: ``table`` + ``where`` (fast row-id paging) or a free ``sql`` query."""

    sql: str | None = None
    table: str | None = None
    where: str = "TRUE"
    order: str | None = None  # default order of a table source, e.g. "sample_idx, _rid" (_rid = rowid)
    computed: list[tuple[str, str]] = field(default_factory=list)  # (name, SQL expression) added columns

    def inner(self, and_where: str = "") -> str:
        """A table source's rows with their row id (``_rid``) and computed columns. ``and_where`` filters
        the table itself (on ``rowid``: DuckDB then reads only the row groups that hold those rows)."""
        extra = "".join(f", ({expr}) AS {quote_ident(name)}" for name, expr in self.computed)
        return f"SELECT rowid AS _rid, *{extra} FROM {self.table} WHERE ({self.where}) {and_where}"

    def select(self) -> str:
        if self.table:
            return f"SELECT * EXCLUDE (_rid) FROM ({self.inner()}) AS _t"
        return (self.sql or "SELECT 1").strip().rstrip(";")


class QueryStopped(Exception):
    """A query the user cancelled, or that ran past its time limit: ``str()`` says which, in the window's words."""


class _Worker(QThread):
    """Runs the model's queries in order on its own DuckDB connection (a cursor of the workspace), each inside a
    read-only transaction; :meth:`interrupt` stops the one running (DuckDB's ``interrupt``), the time limit too."""

    answered = Signal(int, str, object)  # generation, what, result (or Exception)

    def __init__(self, con: Any, time_limit_s: float = 0):
        super().__init__()
        self.con = con.cursor()
        self.time_limit_s = time_limit_s
        self.jobs: queue.Queue[tuple[int, str, Any] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._running: Any = None  # the cursor of the job running now
        self._stopped: str | None = None  # why the running job was interrupted

    def submit(self, generation: int, what: str, job: Any) -> None:
        self.jobs.put((generation, what, job))

    def interrupt(self, why: str) -> None:
        """Stop the query running now and drop the queued ones: each is answered with a :class:`QueryStopped`."""
        dropped = []
        with self._lock:
            while True:
                try:
                    item = self.jobs.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    dropped.append(item)
            if self._running is not None and self._stopped is None:
                self._stopped = why
                self._running.interrupt()
        for generation, what, _job in dropped:
            self.answered.emit(generation, what, QueryStopped(why))

    def stop(self) -> None:
        """End the thread promptly, whatever runs (a query is interrupted), then close the connection."""
        self.answered.disconnect()  # the model is going away: nothing more is answered
        self.interrupt(CANCELLED)
        self.jobs.put(None)
        self.wait()
        self.con.close()

    def run(self) -> None:
        while True:
            item = self.jobs.get()
            if item is None:
                return
            generation, what, job = item
            self.answered.emit(generation, what, self._run(job))

    def _run(self, job: Any) -> Any:
        timer = None
        try:
            with read_only_transaction(self.con) as cur:
                with self._lock:
                    self._running, self._stopped = cur, None
                if self.time_limit_s > 0:
                    timer = threading.Timer(self.time_limit_s, self.interrupt, [_too_long(self.time_limit_s)])
                    timer.daemon = True
                    timer.start()
                return job(cur)
        except Exception as e:  # shown inline by the view, in the window's words where it is a refusal or a stop
            with self._lock:
                stopped = self._stopped
            if stopped:
                return QueryStopped(stopped)
            if isinstance(e, duckdb.OutOfMemoryException):
                return QueryStopped(_too_big(self.con.execute("SELECT current_setting('memory_limit')").fetchone()))
            return _refused(e) or e
        finally:
            if timer is not None:
                timer.cancel()
            with self._lock:
                self._running = None


class _UserStatementError(Exception):
    """DuckDB's error binding the user's own statement: shown as DuckDB wrote it (its LINE excerpt is the user's)."""


def _too_big(in_force: tuple[Any, ...] | None) -> str:
    """The words for a query DuckDB stopped at the memory limit the workspace was opened with (app.ui.memory_limit;
    DuckDB prints it in binary units: "381.4 MiB")."""
    limit = str(in_force[0]) if in_force else "the limit"
    return (f"The query was stopped: it needs more memory than the workspace may use ({limit}, and as much again on "
            "disk). Set more beside the Run query button; a new value takes effect the next time the workspace is "
            "opened.")


def _too_long(limit_s: float) -> str:
    limit = f"{limit_s / 60:g} minutes" if limit_s >= 120 and limit_s % 60 == 0 else f"{limit_s:g} s"
    return (f"The query was stopped after {limit}, the SQL tab's time limit (set another beside the Run query "
            "button).")


class LazyQueryModel(QAbstractTableModel):
    """Pages of a DuckDB source, sortable and filterable in SQL, fetched off the GUI thread."""

    described = Signal()  # the columns are known (or the statement failed: ``error``)
    loading_changed = Signal()  # a query was submitted or answered: is_loading() may have changed
    ready = Signal()  # row count known (or an error)
    stats_ready = Signal(int, object)  # column, {min, mean, max, p95, n}

    def __init__(self, con: Any, query: str | Source, parent: Any = None, time_limit_s: float = 0):
        super().__init__(parent)
        self.con = con
        self.source = query if isinstance(query, Source) else Source(sql=query)
        self.columns: list[str] = []
        self.types: list[str] = []
        self.sort_col: int | None = None
        self.sort_desc = False
        self.filters: dict[int, str] = {}
        self.error: str | None = None
        self.refused = False  # the error is the SQL tab refusing the statement (not one SELECT), not DuckDB's
        self.stopped = False  # the error is the query cancelled or past its time limit, not DuckDB's
        self.dropped: list[str] = []  # computed columns left out: they could not be computed on this table
        self.columns_sized = False  # the grid fitted its columns to the first rows (once per model)
        self.more_rows = False  # the source has more rows than the view shows (MAX_ROWS) ...
        self.total_rows: int | None = None  # ... this many, when they were counted
        self._described = False
        self._shown_sql = ""  # the user's statement wrapped so that every value reaches Python
        self._rows = 0
        self._rowids: np.ndarray | None = None
        self._pages: OrderedDict[int, list[tuple]] = OrderedDict()
        self._requested: set[int] = set()
        self._failed: set[int] = set()  # pages whose query failed (the error is shown)
        self._generation = 0
        self._worker = _Worker(con, time_limit_s)
        self._worker.answered.connect(self._answered)
        self._worker.start()
        if not self.source.table:
            try:  # parsing only, on the GUI thread: a refusal is said at once
                check_select(con, self.source.select())
            except SQLRefused as e:
                self.error, self.refused = str(e), True
            except duckdb.Error as e:  # about the user's own statement: DuckDB's words, its LINE excerpt kept
                self.error = str(e).strip()
        if self.error:
            self._described = True
            return
        self._worker.submit(self._generation, "describe", self._describe)

    def close(self) -> None:
        """Stop the worker (the view calls this before dropping the model): a running query is interrupted."""
        self._worker.stop()

    def cancel(self) -> None:
        """Stop what the worker runs for this model (the SQL tab's Cancel): the error line says it was cancelled."""
        self._worker.interrupt(CANCELLED)

    def is_described(self) -> bool:
        return self._described

    # ---- SQL -------------------------------------------------------------------------------
    def _describe(self, con: Any) -> tuple[list[str], list[str], str, list[str]]:
        """On the worker: (columns, types, the statement as run, computed columns left out). Binding only."""
        if not self.source.table:
            try:
                sql, names, types = shown_query(con, self.source.select())
            except duckdb.Error as e:  # about the user's own statement: DuckDB's words, its LINE excerpt kept
                raise _UserStatementError(str(e).strip()) from None
            return names, types, sql, []
        dropped = []
        for name, expr in list(self.source.computed):  # a received or outdated definition: the run shown without it
            try:
                con.execute(f"DESCRIBE SELECT ({expr}) AS {quote_ident(name)} FROM {self.source.table} LIMIT 0")
            except duckdb.Error as e:
                if _refused(e) is not None or isinstance(e, duckdb.InterruptException):
                    raise
                dropped.append(f"{name} ({user_error(str(e)).splitlines()[0]})")
        if dropped:
            keep = {d.split(" (", 1)[0] for d in dropped}
            self.source.computed = [(n, e) for n, e in self.source.computed if n not in keep]
        desc = con.execute(f"DESCRIBE SELECT * FROM ({self.source.select()}) AS _q LIMIT 0").fetchall()
        return [r[0] for r in desc], [str(r[1]) for r in desc], self.source.select(), dropped

    def _where(self) -> tuple[str, list[Any]]:
        parts: list[str] = []
        params: list[float | str] = []
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
        return " AND ".join(parts) or "TRUE", params

    def _numeric(self, col: int) -> bool:
        t = self.types[col].upper() if col < len(self.types) else ""
        return any(k in t for k in ("INT", "DOUBLE", "FLOAT", "DECIMAL", "REAL", "NUMERIC"))

    def _order(self) -> str:
        if self.sort_col is not None and self.sort_col < len(self.columns):
            direction = "DESC" if self.sort_desc else "ASC"
            return f"{quote_ident(self.columns[self.sort_col])} {direction} NULLS LAST"
        return self.source.order or ""

    def filtered_query(self) -> tuple[str, list[Any]]:
        """The rows as shown (filtered and sorted), as SQL: for export and statistics."""
        where, params = self._where()
        if self.source.table:
            q = f"SELECT * EXCLUDE (_rid) FROM ({self.source.inner()}) AS _q WHERE {where}"
        else:
            q = f"SELECT * FROM ({self._shown_sql or self.source.select()}) AS _q WHERE {where}"
        order = self._order()
        if order:
            q += f" ORDER BY {order}"
        return q, params

    def refresh(self) -> None:
        """Start over (after a sort or filter change): count / index on the worker."""
        if not self._described:
            return  # the columns are not known yet: refreshed once they are
        self.beginResetModel()
        self._generation += 1
        self._pages.clear()
        self._requested.clear()
        self._failed.clear()
        self._rowids = None
        self._rows = 0
        self.more_rows, self.total_rows = False, None
        self.endResetModel()
        if self.error and not self.columns:
            self.ready.emit()
            return
        self.error = None
        where, params = self._where()
        gen = self._generation
        if self.source.table:
            order = self._order() or "_rid"
            q = f"SELECT _rid FROM ({self.source.inner()}) AS _q WHERE {where} ORDER BY {order} LIMIT {MAX_ROWS + 1}"
            self._worker.submit(gen, "index", lambda con: con.execute(q, params).fetchnumpy()["_rid"])
        else:
            fq, fp = self.filtered_query()
            self._worker.submit(gen, "count",
                                lambda con: int(con.execute(f"SELECT count(*) FROM ({fq}) AS _c", fp).fetchall()[0][0]))
            self._request(0)  # a table source asks for its pages once the row ids are known
        self.loading_changed.emit()

    def _fetch_page(self, n: int, con: Any) -> list[tuple]:
        if self.source.table and self._rowids is not None:
            ids = self._rowids[n * PAGE:(n + 1) * PAGE]
            if len(ids) == 0:
                return []
            lo, hi = int(ids.min()), int(ids.max())
            rows = con.execute(
                self.source.inner("AND rowid BETWEEN ? AND ? AND list_contains(?, rowid)"),
                [lo, hi, [int(i) for i in ids]]).fetchall()
            by_id = {r[0]: r[1:] for r in rows}
            return [by_id[int(i)] for i in ids if int(i) in by_id]
        q, params = self.filtered_query()
        return con.execute(f"{q} LIMIT {PAGE} OFFSET {n * PAGE}", params).fetchall()

    def _request(self, n: int) -> None:
        if n in self._requested or n in self._pages or n in self._failed:
            return
        if self.source.table and self._rowids is None:
            return  # asked again when the index arrives
        self._requested.add(n)
        self._worker.submit(self._generation, f"page:{n}", lambda con, n=n: self._fetch_page(n, con))
        self.loading_changed.emit()

    def _answered(self, generation: int, what: str, result: Any) -> None:
        if generation != self._generation:
            return  # an answer to a query the user has since changed
        self._answer(what, result)
        self.loading_changed.emit()

    def _answer(self, what: str, result: Any) -> None:
        if what == "describe":
            self._on_described(result)
            return
        if isinstance(result, Exception):
            if what.startswith("page:"):  # not asked again on every repaint; a refresh (sort, filter) retries
                self._requested.discard(int(what.split(":")[1]))
                self._failed.add(int(what.split(":")[1]))
            self.error = user_error(str(result))
            self.stopped = isinstance(result, QueryStopped)
            self.ready.emit()
            return
        if what in ("index", "count"):
            if what == "index":
                self._rowids = np.asarray(result)[:MAX_ROWS]
                n = len(result)
            else:
                n = int(result)
            if n > MAX_ROWS:  # what the view can lay out; the rest is said, and exported
                self.more_rows, self.total_rows = True, (None if what == "index" else n)
                n = MAX_ROWS
            self._pages.clear()
            self._requested.clear()
            if n:
                self.beginInsertRows(QModelIndex(), 0, n - 1)
                self._rows = n
                self.endInsertRows()
            self.ready.emit()
            self._request(0)
            return
        if what.startswith("stats:"):
            self.stats_ready.emit(int(what.split(":")[1]), result)
            return
        page = int(what.split(":")[1])
        self._requested.discard(page)
        self._pages[page] = result
        if len(self._pages) > MAX_PAGES:
            self._pages.popitem(last=False)
        first, last = page * PAGE, min(self._rows, (page + 1) * PAGE) - 1
        if last >= first:
            self.dataChanged.emit(self.index(first, 0), self.index(last, len(self.columns) - 1))

    def _on_described(self, result: Any) -> None:
        self._described = True
        if isinstance(result, Exception):
            self.error = str(result) if isinstance(result, (_UserStatementError, QueryStopped, SQLRefused)) \
                else user_error(str(result))
            self.refused = isinstance(result, SQLRefused)
            self.stopped = isinstance(result, QueryStopped)
            self.described.emit()
            self.ready.emit()
            return
        columns, types, shown_sql, self.dropped = result
        self.beginResetModel()
        self.columns, self.types, self._shown_sql = columns, types, shown_sql if not self.source.table else ""
        self.endResetModel()
        self.refresh()
        self.described.emit()

    def row(self, r: int) -> tuple | None:
        """The values of row ``r``, or None while its page is being fetched."""
        n = r // PAGE
        page = self._pages.get(n)
        if page is None:
            self._request(n)
            return None
        self._pages.move_to_end(n)
        i = r % PAGE
        return page[i] if i < len(page) else None

    def wait_for_rows(self, rows: list[int], timeout_s: float = 30.0) -> None:
        """Block until the pages of ``rows`` are fetched (for copy/export of a selection, and tests)."""
        import time

        from PySide6.QtCore import QCoreApplication

        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            if self.error is not None:  # the query failed: no row will come (it waited the whole timeout)
                return
            loading = self.is_loading()
            missing = [r for r in rows if self.row(r) is None and (loading or r < self._rows)]
            if not missing and (self._rows or not loading):
                return
            QCoreApplication.processEvents()
            time.sleep(0.002)

    def is_loading(self) -> bool:
        if not self._described:
            return True
        return bool(self._requested) or (self.source.table is not None and self._rowids is None
                                         and self.error is None)

    # ---- Qt model ------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            vals = self.row(index.row())
            if vals is None:
                return FAILED if index.row() // PAGE in self._failed else PENDING
            v = vals[index.column()]
            # a name from a file: control and bidi characters shown, not obeyed; a 2 M-character value cut
            return for_display(format_value(v), CELL_LIMIT)[0] if isinstance(v, (str, list, dict)) else format_value(v)
        if role == Qt.ItemDataRole.UserRole:
            vals = self.row(index.row())
            return None if vals is None else vals[index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and self._numeric(index.column()):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:  # a name from the user's SQL: escaped like a name from a file
            return shown(self.columns[section]) if section < len(self.columns) else None
        return str(section + 1)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        if column < 0 and self.sort_col is None:
            return  # the view clearing its sort indicator: nothing to do
        self.sort_col = column if column >= 0 else None
        self.sort_desc = order == Qt.SortOrder.DescendingOrder
        self.refresh()

    def set_filter(self, column: int, text: str) -> None:
        if text.strip():
            self.filters[column] = text
        else:
            self.filters.pop(column, None)
        self.refresh()

    # ---- helpers for the view --------------------------------------------------------------
    def column_stats(self, column: int, con: Any = None) -> dict[str, Any]:
        """min / mean / max / p95 of a numeric column over the filtered rows (computed in DuckDB)."""
        if not self._numeric(column):
            return {}
        q, params = self.filtered_query()
        ident = quote_ident(self.columns[column])
        row = (con or self.con).execute(
            f"SELECT min({ident}), avg({ident}), max({ident}), quantile_cont({ident}, 0.95), count({ident}) "
            f"FROM ({q}) AS _s", params).fetchall()[0]
        return dict(zip(("min", "mean", "max", "p95", "n"), row))

    def request_stats(self, column: int) -> None:
        """Compute :meth:`column_stats` on the worker; ``stats_ready`` brings the answer."""
        self._worker.submit(self._generation, f"stats:{column}", lambda con: self.column_stats(column, con))

    def rows_as_tsv(self, rows: list[int], cols: list[int], header: bool = False) -> str:
        self.wait_for_rows(rows)
        lines = ["\t".join(self.columns[c] for c in cols)] if header else []
        for r in rows:
            vals = self.row(r) or tuple(None for _ in self.columns)
            lines.append("\t".join(format_value(vals[c]) for c in cols))
        return "\n".join(lines) + "\n"
