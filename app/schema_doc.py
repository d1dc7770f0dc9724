"""Write docs/schema.md, the workspace's schema reference, from the spec in parsers/schema.py.

``python -m app.schema_doc`` rewrites the file; ``python -m app.schema_doc --check``
exits 1 when it is stale. tests/parsers/test_schema.py fails when it is stale, so a change of the spec comes with its
documentation.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from parsers import kinds, registry
from parsers.layers import LAYERS, ROLE_WORDS
from parsers.schema import SCHEMA_VERSION, TABLES, Column, Table
from parsers.semantics import COUNT_WORDS, SPAN_WORDS, STORED_BY_STORMSCOPE, MetaKey, Semantics, Span

DOC = Path(__file__).resolve().parents[1] / "docs" / "schema.md"

_INTRO = f"""\
# The workspace: schema reference

<!-- Generated from parsers/schema.py by `python -m app.schema_doc`. Do not edit by hand. -->

One DuckDB file holds every imported run. Query it with `main.py sql`, the DuckDB CLI, or any DuckDB client.
Column names are fixed; new columns may be added. This is schema version {SCHEMA_VERSION}
(`workspace_info.schema_version`): StormScope brings a workspace made by an older release up to it when it opens
the workspace. A newer release's workspace is never changed: `workspace_info.read_compatible_from` is the oldest
schema version that reads it correctly (a release that only adds tables or columns keeps it); a release that
reaches it opens the workspace read-only, an older one refuses it.

Types are DuckDB's. A column's unit, where it has one, is in the *unit* column; *required* columns are never
NULL. Tables marked *per run* hold rows of one run each (`run_id`): deleting a run deletes its rows there.
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _constraints(c: Column, t: Table) -> str:
    out = []
    if c.key:
        out.append("key" if len(t.key) == 1 else f"key ({', '.join(t.key)})")
    elif c.not_null:
        out.append("required")
    if c.default is not None:
        out.append(f"default `{c.default}`")
    return ", ".join(out)


def table_doc(t: Table) -> str:
    lines = [f"## `{t.name}`", "", t.purpose[0].upper() + t.purpose[1:] + "."]
    facts = []
    if t.per_run:
        facts.append("Per run.")
    main_of = sorted(k.id for k in kinds.kinds() if registry.main_table(k.id) == t.name)
    if main_of:
        facts.append("`runs.n_rows` counts its rows for " + ", ".join(f"`{k}`" for k in main_of) + " runs.")
    if t.written_by:
        facts.append(f"Written by: {t.written_by}.")
    writers = [f.id for f in registry.formats() if t.name in f.tables]
    if writers:
        facts.append("Imported by the formats " + ", ".join(f"`{w}`" for w in sorted(writers)) + ".")
    if facts:
        lines += ["", " ".join(facts)]
    lines += ["", "| column | type | unit | meaning | constraints |", "|---|---|---|---|---|"]
    lines += [f"| `{c.name}` | {_cell(c.sql)} | {_cell(c.unit)} | {_cell(c.meaning)} | {_constraints(c, t)} |"
              for c in t.columns]
    if t.notes:
        lines += ["", t.notes]
    return "\n".join(lines)


def kinds_doc() -> str:
    """The run kinds and the formats of each, from the formats' own declarations (parsers.kinds, parsers.registry)."""
    lines = ["## Kinds and formats", "",
             "`runs.kind` and `runs.format` hold these ids. A kind's capabilities say which analyses its runs take "
             "(see docs/adding-a-format.md); a format recognised only to be refused writes no table.", "",
             "| kind | name shown | capabilities | format | format name | tables it writes |",
             "|---|---|---|---|---|---|"]
    fmts = registry.formats()
    for k in sorted(kinds.kinds(), key=lambda k: k.id):
        mine = sorted((f for f in fmts if f.kind == k.id), key=lambda f: f.id)
        caps = ", ".join(sorted(k.capabilities)) or "–"
        for i, f in enumerate(mine or [None]):
            head = f"| `{k.id}` | {_cell(k.label)} | {caps} " if i == 0 else "| | | "
            if f is None:
                lines.append(head + "| – | – | – |")
                continue
            tables = ", ".join(f"`{t}`" for t in f.tables) or "refused (says what to import instead)"
            lines.append(head + f"| `{f.id}` | {_cell(f.label)} | {tables} |")
    return "\n".join(lines)


def _whole_disk(sem: Semantics) -> str:
    if not sem.whole_disk:
        return "by the devices' names (below)"
    nouns = [n if n.startswith("the ") else f"its {n}" for n in (LAYERS[la].noun for la in sem.whole_disk)]
    text = f"the sum of {nouns[0]}" + "".join(f"; with none, {n}" for n in nouns[1:])
    return text + ("; a run whose rows have no layer: by their names (below)" if sem.names is not None else "") + \
        " (a row without a layer beside rows that have one counts as a physical disk)"


def _meta_rows(keys: list[MetaKey]) -> list[str]:
    return [f"| `{k.name}` | {k.type.value}{' or null' if k.nullable else ''} | {_cell(k.meaning)} |" for k in keys]


def format_doc(fmts: list[Any]) -> str:
    """The declared semantics (parsers.semantics) of formats that share one declaration, as docs/schema.md prints
    it."""
    fmt = fmts[0]
    sem: Semantics = fmt.semantics
    lines = [f"### {', '.join(f'`{f.id}`' for f in fmts)} — {_cell(' / '.join(f.label for f in fmts))}", "",
             f"Kind `{fmt.kind}`; main table `{sem.main_table}`. A sample covers {SPAN_WORDS[sem.span]}; its "
             f"numbers are {COUNT_WORDS[sem.counts]}." if sem.span is not Span.NONE else
             f"Kind `{fmt.kind}`; main table `{sem.main_table}`; its numbers are {COUNT_WORDS[sem.counts]}."]
    if "iostat_samples" in fmt.tables:
        lines += ["", f"Whole-disk figures: {_whole_disk(sem)}."]
        if sem.layers:
            lines += ["", "| `layer` | role | the tool's rows |", "|---|---|---|"]
            lines += [f"| `{la}` | {ROLE_WORDS[LAYERS[la].role]} | {_cell(rows)} |" for la, rows in sem.layers.items()]
        if sem.names is not None:
            lines += ["", f"Rows without a layer, by name rules `{sem.names.id}`: {sem.names.description}."]
    if sem.wording:
        lines += ["", "Columns in the tool's words: " + "; ".join(f"`{c}` {_cell(w)}" for c, w in sem.wording.items())
                  + "."]
    if sem.meta:
        lines += ["", "| `runs.meta` key | type | meaning |", "|---|---|---|", *_meta_rows(list(sem.meta))]
    return "\n".join(lines)


def formats_doc() -> str:
    """What each format's data means, from its declaration (parsers.semantics)."""
    groups: dict[int, list[Any]] = {}  # formats that share one declaration are documented together
    for f in sorted((f for f in registry.formats() if f.tables), key=lambda f: f.id):
        groups.setdefault(id(f.semantics), []).append(f)
    ours = _meta_rows([k for k, _cap in STORED_BY_STORMSCOPE])
    return "\n\n".join([
        "## What each format's data means\n\n"
        "Each format declares, in its own module (`parsers.semantics.Semantics`), its main table, what its rows "
        "of `iostat_samples` are (their `layer` and its role, or the name rules for rows without one) and so which "
        "rows whole-disk figures sum, what time a sample covers, what its numbers are, the tool's words for the "
        "columns it fills, and every `runs.meta` key it writes. StormScope refuses to register a format that does "
        "not, and refuses to import a row whose `layer` its format did not declare. `runs.meta` keys StormScope "
        "itself writes:\n\n| `runs.meta` key | type | meaning |\n|---|---|---|\n" + "\n".join(ours),
        *(format_doc(g) for g in groups.values())])


def render() -> str:
    toc = "\n".join(f"- [`{t.name}`](#{t.name}) — {t.purpose}" for t in TABLES)
    return "\n\n".join([_INTRO.rstrip(), "Tables:\n\n" + toc, *(table_doc(t) for t in TABLES), kinds_doc(),
                        formats_doc()]) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app.schema_doc", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/schema.md is not up to date")
    ap.add_argument("--output", type=Path, default=DOC)
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else None
        if current != text:
            print(f"{args.output} is stale: run 'python -m app.schema_doc'", file=sys.stderr)
            return 1
        return 0
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
