"""One builder per report section and one per question kind (no Qt, no PDF).

A builder takes the shared :class:`reports.context.ReportContext` and returns a ``Section`` (or ``None`` when it
has nothing to show). Builders register themselves next to their code:

    @section("overlay")                 # a section of the tour of the runs (a report without questions)
    def build(ctx) -> Section | None: ...

    @question_section("cap")            # the evidence section of one question kind
    def build(ctx, n, stored, answer) -> Section: ...

The registries are :mod:`reports.builders`': they import every module of this package before their first
answer, so a new question kind adds one module here with one ``@question_section`` builder and nothing else;
``reports.content.collect`` runs them in the stored order of the questions.
"""

from reports.builders import QUESTION_BUILDERS as QUESTION_BUILDERS
from reports.builders import SECTION_BUILDERS as SECTION_BUILDERS
from reports.builders import load as load
from reports.builders import question_section as question_section
from reports.builders import section as section
