"""File ▸ Export report…: the report options of `main.py report`, written on a worker thread."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.ui.sizing_panel import IopsPerUserField
from app.ui.workers import JobThread
from app.workspace import Workspace
from reports.builders import section_keys, section_title
from reports.options import (
    ReportOptions,
    TemplateInvalid,
    list_templates,
    load_template,
    save_template,
)


def answers_text(ws: Workspace) -> str:
    """What the report's Answers page will hold: the workspace's questions, counted."""
    from app.analysis.questions import list_questions

    n = len(list_questions(ws))
    if not n:
        return "Answers: none yet (Add to report on the Overlay, Histograms or Sizing tab puts a question in)"
    return (f"Answers: the report opens with the answer{'s' if n != 1 else ''} to {n} question{'s' if n != 1 else ''} "
            "and the evidence of each; the sections ticked below follow them")


def has_questions(ws: Workspace) -> bool:
    from app.analysis.questions import list_questions

    return bool(list_questions(ws))


USER_FIELDS = ("consultant", "company", "logo")  # who writes the report: remembered per user (QSettings)


def covers(ws: Workspace, run_ids: list[int]) -> str:
    """What the report will cover, as the dialog says it before it is written: the selected runs, or every run, at
    most MAX_RUNS of them -- the busiest (reports.content)."""
    from reports.content import MAX_RUNS

    n = len(run_ids)
    total = n or ws.run_count()
    if total > MAX_RUNS:
        of = f"{total:,} selected runs" if n else f"{total:,} runs of the workspace"
        said = (f"the report covers the {MAX_RUNS} busiest of the {of} (by peak IOPS); the others are listed under "
                "Not included.")
        return said[:1].upper() + said[1:] if n else f"No run selected: {said}"
    return ("No run selected: the report covers every run." if not n else
            f"The report covers the {n} selected run{'s' if n != 1 else ''}.")


class ReportDialog(QDialog):
    """The report's options; the heading is remembered between exports.

    Title, Customer, Consultant and Company are remembered in the workspace (``Workspace.report_fields``): a
    workspace is one engagement, so its next report -- on this machine or a colleague's -- gets the same heading,
    and a new engagement's workspace never starts with the last customer's name. Consultant, Company and Logo are
    also remembered per user (``settings``) and fill in a workspace that has no heading yet: they say who writes the
    report. The logo is a file on this machine, so it is never taken from a workspace (one from someone else cannot
    point the PDF at a file here). The date is today's.
    """

    def __init__(self, ws: Workspace, run_ids: list[int], parent: Any = None, settings: QSettings | None = None,
                 not_imported: list[tuple[str, str]] | None = None):
        super().__init__(parent)
        self.not_imported = list(not_imported or [])  # the folder's files that failed: listed in the report
        self.setWindowTitle("Export report")
        self.ws = ws
        self.settings = settings
        self.run_ids = run_ids
        self.job: JobThread | None = None
        self.title = QLineEdit("Storage performance report")
        self.customer = QLineEdit()
        self.consultant = QLineEdit()
        self.company = QLineEdit()
        self.date = QLineEdit(date.today().strftime("%d %B %Y"))
        self.logo = QLineEdit()
        logo_btn = QPushButton("…")
        logo_btn.clicked.connect(self._pick_logo)
        self.page = QComboBox()
        self.page.addItems(["A4", "Letter"])
        self.anonymise = QCheckBox("Anonymise host and device names")
        self.cap = QDoubleSpinBox(maximum=1e9, decimals=0)
        self.cap.setSpecialValueText("none (or each run's own cap tag)")
        self.cap.setToolTip("The IOPS cap to check on every iostat run. Left at none, a run tagged cap_iops=N "
                            "(right-click the run ▸ Tag…) is checked against its own cap.")
        self.users = QSpinBox(maximum=1_000_000)
        self.users.setSpecialValueText("no sizing")
        self.ipu = IopsPerUserField("25")  # one figure, or a light..heavy users range (8..25), as the guide says
        self.template = QComboBox()
        self.template.addItem("(no template)")
        self.template.addItems(list_templates(ws.con) if not ws.read_only else [])
        self.template.currentTextChanged.connect(self._load_template)
        self.sections = {k: QCheckBox(section_title(k)) for k in section_keys()}
        self.answering = has_questions(ws)
        if self.answering:  # the Answers page takes the executive summary's place
            self.sections["summary"].setEnabled(False)
            self.sections["summary"].setToolTip("A report that answers questions opens with the Answers page "
                                                "instead of an executive summary")
        self._tick(ReportOptions().sections_for(self.answering))
        self._remembered()
        self.save_as = QLineEdit()
        self.save_as.setPlaceholderText("save these options as a template named…")
        read_only = getattr(ws, "read_only_reason", None)
        if read_only:  # a workspace shown, not changed: no template is saved into it
            self.save_as.setEnabled(False)
            self.save_as.setToolTip(read_only)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.status = QLabel(covers(ws, run_ids))

        form = QFormLayout()
        form.addRow("Template", self.template)
        form.addRow("Title", self.title)
        form.addRow("Customer", self.customer)
        form.addRow("Consultant", self.consultant)
        form.addRow("Company", self.company)
        form.addRow("Date", self.date)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.logo)
        row.addWidget(logo_btn)
        holder = QWidget()
        holder.setLayout(row)
        form.addRow("Logo", holder)
        form.addRow("Page size", self.page)
        form.addRow("IOPS cap", self.cap)
        form.addRow("Sizing: users", self.users)
        form.addRow("Sizing: IOPS per user", self.ipu)
        form.addRow(self.anonymise)
        box = QGroupBox("Sections")
        bl = QVBoxLayout(box)
        self.answers = QLabel(answers_text(ws))
        self.answers.setWordWrap(True)
        self.answers.setToolTip("The questions are listed, reordered and renamed in the Report questions panel "
                                "(Report ▸ Report questions)")
        bl.addWidget(self.answers)
        for c in self.sections.values():
            bl.addWidget(c)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._export)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        lay = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addLayout(form, 3)
        top.addWidget(box, 2)
        lay.addLayout(top)
        lay.addWidget(self.save_as)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        lay.addWidget(buttons)

    def _heading_fields(self) -> dict[str, QLineEdit]:
        return {"title": self.title, "customer": self.customer, "consultant": self.consultant,
                "company": self.company, "logo": self.logo}

    def _remembered(self) -> None:
        """Fill the heading as last exported: the user's own fields first, the workspace's heading over them."""
        fields = self._heading_fields()
        if self.settings is not None:
            for k in USER_FIELDS:
                fields[k].setText(str(self.settings.value(f"report/{k}", "") or ""))
        for k, v in self.ws.report_fields().items():
            if v or k in ("title", "customer"):
                fields[k].setText(v)

    def _remember(self) -> None:
        texts = {k: w.text() for k, w in self._heading_fields().items()}
        if self.settings is not None:
            for k in USER_FIELDS:
                self.settings.setValue(f"report/{k}", texts[k])
        if not self.ws.read_only and not getattr(self.ws, "read_only_reason", None):
            self.ws.set_report_fields(texts)

    def _pick_logo(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Logo", "", "Images (*.png *.jpg *.jpeg)")
        if path:
            self.logo.setText(path)

    def _load_template(self, name: str) -> None:
        if name.startswith("("):
            return
        try:
            t = load_template(self.ws.con, name)
        except TemplateInvalid as e:  # a received workspace's template: said, nothing filled in
            self.status.setText(f"{str(e)[0].upper()}{str(e)[1:]}.")
            return
        for w, v in ((self.title, t.title), (self.customer, t.customer), (self.consultant, t.consultant),
                     (self.company, t.company), (self.logo, t.logo or "")):
            w.setText(v)
        self.page.setCurrentText(t.page_size)
        self.anonymise.setChecked(t.anonymise)
        self._tick(t.sections_for(self.answering))

    def _tick(self, keys: list[str]) -> None:
        for k, c in self.sections.items():
            c.setChecked(k in keys and c.isEnabled())

    def options(self) -> ReportOptions:
        typed = self.ipu.parsed()
        ipu: float | str | None = None if typed is None else typed[0] if typed[1] is None else self.ipu.text().strip()
        sizing = {"users": self.users.value(), "iops_per_user": ipu} if self.users.value() and ipu else {}
        return ReportOptions(
            title=self.title.text(), customer=self.customer.text(), consultant=self.consultant.text(),
            company=self.company.text(), date=self.date.text(), logo=self.logo.text() or None,
            runs=list(self.run_ids), sections=[k for k, c in self.sections.items() if c.isChecked()],
            anonymise=self.anonymise.isChecked(), page_size=self.page.currentText(),
            iops_cap=self.cap.value() or None, sizing=sizing)

    def _export(self, path: str | None = None) -> JobThread | None:
        if self.job is not None and self.job.isRunning():
            self.status.setText("A report is being written; wait for it to finish.")
            return None
        if self.users.value() and self.ipu.problem():  # refused visibly, never sized from a guess
            self.status.setText(f"Not written: {self.ipu.problem()} (Sizing: IOPS per user).")
            self.ipu.setFocus()
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save report", "report.pdf", "PDF (*.pdf)")
            if not path:
                return None
        opt = self.options()
        self._remember()
        if self.save_as.text().strip():
            save_template(self.ws.con, self.save_as.text().strip(), opt)
        from reports import build_report

        reader = self.ws.cursor()  # a handle of the window's workspace (read-only when the window's is)
        not_imported = self.not_imported

        def job(state: Any) -> Any:
            with reader as ws:
                return build_report(ws, opt, path, state, not_imported=not_imported)

        self.job = JobThread(job, self, connections=[reader.con])
        self.job.progress.connect(self._progress)
        self.job.done.connect(lambda res: self._done(res, path))
        self.job.start()
        return self.job

    def _progress(self, fraction: float, message: str) -> None:
        self.progress.setValue(int(fraction * 100))
        self.status.setText(message)

    def _done(self, result: Any, path: str) -> None:
        if isinstance(result, Exception):
            self.status.setText(f"Report failed: {result}")
            return
        notes = " ".join(result.notes)
        answers = result.values.get("answers") or []
        if answers:  # the report answers the questions: how they came out
            said = "; ".join(f"{a['n']}. {a['verdict_words']}" for a in answers[:6])
            self.status.setText(f"Wrote {Path(path).name}. Answers: {said}" + (" …" if len(answers) > 6 else ".")
                                + (f" {notes}" if notes else ""))
        else:
            self.status.setText(f"Wrote {Path(path).name}: " + " ".join([*result.verdicts[:2], notes]).strip())
        self.progress.setValue(100)
        # the report is written: nothing is left to cancel (Save writes it again, with changed options)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setText("Close")
