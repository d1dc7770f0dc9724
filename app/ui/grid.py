"""The spreadsheet grid: any run or SQL query in a lazy table with filter row, stats and export."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QFontDatabase, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.safe_open import read_only_transaction
from app.ui.memory_limit import LEAST_GB, MEMORY_KEY, chosen_gb, machine_gb
from app.ui.settings_values import int_setting
from app.ui.table_model import MAX_ROWS, TIME_LIMIT_S, LazyQueryModel, Source, format_value, quote_ident
from app.workspace import Workspace

ADD_COLUMN_TIP = "A computed column (an expression over this table's columns), saved in the workspace"
TIME_LIMIT_KEY = "sql/time_limit_s"


class Grid(QWidget):
    """SQL box on top, the lazy table below, a filter row above the table and a stats footer."""

    def __init__(self, ws: Workspace, parent: Any = None):
        super().__init__(parent)
        self.ws = ws
        self.sql = QPlainTextEdit()
        self.sql.setPlaceholderText("SELECT … FROM iostat_samples WHERE run_id = 1   (Ctrl+Enter runs it)")
        self.sql.setMaximumHeight(90)
        run = self.run_button = QPushButton("Run query")
        run.setToolTip("Run the SELECT query above (Ctrl+Enter); the SQL tab only reads the workspace")
        run.clicked.connect(self.run_sql)
        QShortcut(QKeySequence("Ctrl+Return"), self.sql, self.run_sql)
        cancel = self.cancel_button = QPushButton("Cancel")
        cancel.setToolTip("Stop the query that is running (Esc)")
        cancel.setEnabled(False)
        cancel.clicked.connect(self.cancel)
        QShortcut(QKeySequence("Esc"), self, self.cancel)
        limit = self.time_limit = QSpinBox()
        limit.setRange(0, 24 * 3600)
        limit.setSingleStep(30)
        limit.setSuffix(" s")
        limit.setSpecialValueText("no limit")
        limit.setPrefix("Stop after ")
        limit.setToolTip("A query that runs longer is stopped (0: no limit)")
        limit.setValue(int_setting(QSettings(), TIME_LIMIT_KEY, TIME_LIMIT_S))
        limit.valueChanged.connect(lambda v: QSettings().setValue(TIME_LIMIT_KEY, v))
        memory = self.memory_limit = QDoubleSpinBox()
        memory.setDecimals(1)
        memory.setRange(LEAST_GB, max(LEAST_GB, round(machine_gb() or 1024.0, 1)))
        memory.setSingleStep(1.0)
        memory.setPrefix("Memory up to ")
        memory.setSuffix(" GB")
        memory.setValue(chosen_gb() or 8.0)
        memory.setToolTip("The memory the workspace may use for queries, charts and the report (half this machine's "
                          "by default); a query that needs more is stopped. A new value takes effect the next time "
                          "the workspace is opened")
        memory.valueChanged.connect(lambda v: QSettings().setValue(MEMORY_KEY, v))
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020;")
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.hide()
        # the filter row: one box per column, kept under its column while columns resize or scroll
        self.filter_strip = QWidget()
        self.filter_bar = QHBoxLayout(self.filter_strip)
        self.filter_bar.setContentsMargins(0, 0, 0, 0)
        self.filter_bar.setSpacing(0)
        self.filter_area = QScrollArea()
        self.filter_area.setWidget(self.filter_strip)
        self.filter_area.setWidgetResizable(False)
        self.filter_area.setFrameShape(QScrollArea.Shape.NoFrame)
        self.filter_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.filter_area.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.filter_area.setFixedHeight(26)
        self.filters: list[QLineEdit] = []
        self.view = QTableView()
        self.view.setSortingEnabled(True)
        self.view.setAlternatingRowColors(True)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # fit columns to the rows on screen, never by reading thousands of rows of a huge result
        self.view.horizontalHeader().setResizeContentsPrecision(40)
        self.view.verticalHeader().setDefaultSectionSize(22)
        self.view.horizontalHeader().sectionResized.connect(lambda *_: self._place_filters())
        self.view.horizontalScrollBar().valueChanged.connect(
            lambda v: self.filter_area.horizontalScrollBar().setValue(v))
        self.stats = QLabel(" ")
        self.stats.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        copy = QShortcut(QKeySequence.StandardKey.Copy, self.view)
        copy.activated.connect(self.copy_selection)
        export = QPushButton("Export…")
        export.clicked.connect(self.export_dialog)
        add_col = self.add_column_button = QPushButton("Add column…")
        add_col.setToolTip(ADD_COLUMN_TIP)
        add_col.clicked.connect(self.add_column_dialog)

        top = QWidget()
        tl = QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.sql, 1)
        col = QVBoxLayout()
        col.addWidget(run)
        col.addWidget(cancel)
        col.addWidget(limit)
        col.addWidget(memory)
        col.addWidget(export)
        col.addWidget(add_col)
        col.addStretch(1)
        row.addLayout(col)
        tl.addLayout(row)
        tl.addWidget(self.error)
        bottom = QWidget()
        bl = QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(self.filter_area)
        bl.addWidget(self.view, 1)
        bl.addWidget(self.stats)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(1, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(split)
        self.model: LazyQueryModel | None = None
        self._pending: LazyQueryModel | None = None  # a query being described: shown once its columns are known

    def set_read_only(self, reason: str | None) -> None:
        """A workspace this version must not change: no computed column can be saved (``reason`` in the tooltip)."""
        self.add_column_button.setEnabled(reason is None)
        self.add_column_button.setToolTip(reason or ADD_COLUMN_TIP)

    def show_run(self, run_id: int) -> None:
        """A run's rows, in report order; pages are fetched by row id so any scroll position is instant."""
        from parsers.registry import main_table

        table = main_table(self.ws.kind_of(run_id)) or "iostat_samples"
        order = "sample_idx, _rid" if table in ("iostat_samples", "histograms") else "_rid"
        self.sql.setPlainText(f"SELECT * FROM {table} WHERE run_id = {int(run_id)}")
        self.current_table = table
        self._set_model(self._new_model(Source(table=table, where=f"run_id = {int(run_id)}", order=order,
                                                computed=self.ws.computed_columns(table))))

    def add_computed_column(self, name: str, expression: str) -> str | None:
        """Define a computed column on the shown run's table (saved in the workspace); returns an error."""
        table = getattr(self, "current_table", None)
        shown = self._pending or self.model  # the run asked for last, shown or still being described
        if table is None or shown is None or not shown.source.table:
            return "open a run first (double-click it in the run list): computed columns belong to a table"
        try:
            self.ws.add_computed_column(table, name, expression)
        except ValueError as e:
            return str(e)
        src = shown.source
        self._set_model(self._new_model(Source(table=src.table, where=src.where, order=src.order,
                                                computed=self.ws.computed_columns(table))))
        return None

    def add_column_dialog(self) -> None:
        from PySide6.QtWidgets import QInputDialog, QMessageBox

        name, ok = QInputDialog.getText(self, "Add a computed column", "Name (letters, digits, _):")
        if not ok or not name:
            return
        expr, ok = QInputDialog.getText(self, "Add a computed column",
                                        f"{name} = (SQL over this table's columns, e.g. r_s + w_s):")
        if not ok or not expr:
            return
        err = self.add_computed_column(name.strip(), expr.strip())
        if err:
            QMessageBox.warning(self, "Computed column", err)

    def set_query(self, sql: str) -> None:
        self.sql.setPlainText(sql)
        self.run_sql()

    def run_sql(self) -> None:
        self._set_model(self._new_model(self.sql.toPlainText() or "SELECT 1 AS empty"))

    def _new_model(self, query: str | Source) -> LazyQueryModel:
        return LazyQueryModel(self.ws.con, query, time_limit_s=self.time_limit.value())

    def cancel(self) -> None:
        """Stop the query that runs (Cancel, Esc): the one being described, or the shown one's counting/paging."""
        for model in (self._pending, self.model):
            if model is not None and model.is_loading():
                model.cancel()

    def busy(self) -> bool:
        """A query of the tab is running (being described, counted or paged)."""
        return any(m is not None and m.is_loading() for m in (self._pending, self.model))

    def _update_busy(self) -> None:
        self.cancel_button.setEnabled(self.busy())

    def _show_error(self, model: LazyQueryModel) -> None:
        """The user's statement refused (not one SELECT), or DuckDB's message about it -- never the model's
        wrapper query. DuckDB's excerpt of the statement, with its ^ under the culprit, needs a fixed font."""
        text = model.error or ""
        if model.refused or model.stopped:
            self.error.setFont(self.font())
            self.error.setText(text)
        else:
            self.error.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
            self.error.setText(f"SQL error: {text}")
        self.error.show()

    def _set_model(self, model: LazyQueryModel) -> None:
        """Show ``model`` once its columns are known (described on its worker); until then the previous result
        stays, with "running query…" and Cancel. A statement refused or that fails to bind keeps the previous
        result too, with the error above it."""
        if self._pending is not None:
            self._drop(self._pending)
        if model.error and model.is_described():
            self._show_error(model)
            model.close()
            self._update_busy()
            return
        self._pending = model
        model.described.connect(lambda m=model: self._described(m))
        model.loading_changed.connect(self._update_busy)
        self.stats.setText("running the query…")
        self._update_busy()

    def _described(self, model: LazyQueryModel) -> None:
        if model is not self._pending:
            return
        self._pending = None
        if model.error and not model.columns:
            self._show_error(model)
            self._drop(model)
            self.stats.setText(f"{self.model.rowCount():,} rows" if self.model is not None else " ")
            self._update_busy()
            return
        self.error.hide()
        old = self.model
        self.model = model
        self.view.setModel(model)
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        if old is not None:
            self._drop(old)
        model.ready.connect(self._ready)
        model.stats_ready.connect(self._stats_ready)
        self.view.selectionModel().currentColumnChanged.connect(lambda cur, _prev: self._show_stats(cur.column()))
        self._rebuild_filters()
        self.stats.setText("loading…")
        self._update_busy()

    def _drop(self, model: LazyQueryModel) -> None:
        model.close()
        model.deleteLater()

    def close_model(self) -> None:
        job = getattr(self, "_export_job", None)
        if job is not None and job.isRunning():
            job.stop()  # closed with the window: an export interrupted leaves no file (written aside, then moved)
        if self._pending is not None:
            self._drop(self._pending)
            self._pending = None
        if self.model is not None:
            self.view.setModel(None)
            self.model.close()
            self.model = None

    def _ready(self) -> None:
        self._update_busy()
        if self.model is None:
            return
        if self.model.error:
            self._show_error(self.model)
        elif self.model.dropped:
            self.error.setFont(self.font())
            self.error.setText("Shown without the computed column" + ("s " if len(self.model.dropped) > 1 else " ")
                               + "; ".join(self.model.dropped) + ": it cannot be computed on this table.")
            self.error.show()
        else:
            self.error.hide()
        self.stats.setText(self._row_count_text())
        if not self.model.columns_sized and self.model.rowCount():
            self.model.columns_sized = True
            model = self.model

            def size_once(*_: Any) -> None:  # when the first page has arrived: fit columns to it
                model.dataChanged.disconnect(size_once)
                if self.model is model:
                    self.view.resizeColumnsToContents()

            model.dataChanged.connect(size_once)

    def _row_count_text(self) -> str:
        m = self.model
        if m is None:
            return " "
        if not m.more_rows:
            return f"{m.rowCount():,} rows"
        total = f"{m.total_rows:,}" if m.total_rows is not None else f"more than {MAX_ROWS:,}"
        return (f"the first {m.rowCount():,} of {total} rows are shown: filter or narrow the query to see others; "
                "Export… writes every row")

    def _rebuild_filters(self) -> None:
        for f in self.filters:
            f.deleteLater()
        self.filters = []
        assert self.model is not None
        for i, name in enumerate(self.model.columns):
            f = QLineEdit(placeholderText=name)
            f.setToolTip(f"Filter {name}: text matches anywhere; on numbers also >, <, >=, <=, =, !=")
            f.editingFinished.connect(lambda i=i, f=f: self._filter(i, f.text()))
            self.filter_bar.addWidget(f)
            self.filters.append(f)
        self._place_filters()

    def _place_filters(self) -> None:
        header = self.view.horizontalHeader()
        lead = self.view.verticalHeader().width() + self.view.frameWidth()
        self.filter_bar.setContentsMargins(lead, 0, 0, 0)
        total = lead
        for i, f in enumerate(self.filters):
            w = header.sectionSize(i)
            f.setFixedWidth(max(w, 8))
            total += w
        self.filter_strip.setFixedSize(total + 50, 24)

    def _filter(self, column: int, text: str) -> None:
        if self.model is None:
            return
        self.stats.setText("loading…")
        self.model.set_filter(column, text)

    def _show_stats(self, column: int) -> None:
        if self.model is None or column < 0:
            return
        self.model.request_stats(column)

    def _stats_ready(self, column: int, st: Any) -> None:
        if self.model is None or isinstance(st, Exception):
            return
        name = self.model.columns[column]
        if not st or st.get("n") in (None, 0):
            self.stats.setText(f"{self._row_count_text()} · {name}")
            return
        self.stats.setText(
            f"{self._row_count_text()} · {name}: min {format_value(st['min'])}  mean {format_value(st['mean'])}"
            f"  max {format_value(st['max'])}  p95 {format_value(st['p95'])}  (n = {st['n']:,})")

    def copy_selection(self) -> str:
        """Copy the selected cells as TSV (pastes into a spreadsheet); returns the text."""
        if self.model is None:
            return ""
        idx = self.view.selectionModel().selectedIndexes()
        if not idx:
            return ""
        rows = sorted({i.row() for i in idx})
        cols = sorted({i.column() for i in idx})
        text = self.model.rows_as_tsv(rows, cols, header=len(rows) > 1 or len(cols) > 1)
        QGuiApplication.clipboard().setText(text)
        return text

    def export(self, path: str, con: Any = None) -> None:
        """Write the current (filtered, sorted) result to CSV, Parquet or XLSX by the file's extension. The
        workspace's connection reaches no file but its staging folder (app.safe_open): DuckDB writes the export
        there and it is then moved to ``path``."""
        if self.model is None:
            return
        with read_only_transaction(con or self.ws.con) as cur:  # the user's statement: it cannot write here either
            self._export(path, cur)

    def _export(self, path: str, con: Any) -> None:
        assert self.model is not None
        q, params = self.model.filtered_query()
        p = path.lower()
        if p.endswith(".xlsx"):
            import polars as pl

            df = pl.from_arrow(con.sql(q, params=params).to_arrow_table() if params else con.sql(q).to_arrow_table())
            assert isinstance(df, pl.DataFrame)  # an Arrow table gives a frame (a Series comes from an array)
            df.write_excel(path)
            return
        import shutil

        staging = self.ws.staging.new_dir("export")
        try:
            out = staging / ("export.parquet" if p.endswith(".parquet") else "export.csv")
            how = "(FORMAT parquet)" if p.endswith(".parquet") else "(HEADER, DELIMITER ',')"
            con.execute(f"COPY ({q}) TO '{_sql_str(str(out))}' {how}", params)
            shutil.move(out, path)
        finally:
            self.ws.staging.release(staging)

    def export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export table", "table.csv",
                                              "CSV (*.csv);;Parquet (*.parquet);;Excel (*.xlsx)")
        if not path:
            return
        running = getattr(self, "_export_job", None)
        if running is not None and running.isRunning():
            self.stats.setText("an export is running; wait for it to finish")
            return
        from app.ui.workers import JobThread

        self.stats.setText(f"exporting to {path}…")
        cursor = self.ws.con.cursor()
        self._export_job = JobThread(lambda _state: self.export(path, cursor), self, connections=[cursor])
        self._export_job.done.connect(lambda res: self.stats.setText(
            f"export failed: {res}" if isinstance(res, Exception) else f"exported to {path}"))
        self._export_job.start()


def _sql_str(s: str) -> str:
    return s.replace("'", "''")


__all__ = ["Grid", "quote_ident"]
