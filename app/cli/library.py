"""``main.py library add|compare|check``: publish an engagement to the library, compare a storm with it, check it.

The library is a folder (``add`` writes there) or, to read, ``s3://bucket/prefix`` with the usual AWS environment's
credentials; ``--library`` or ``$STORMSCOPE_LIBRARY`` names it.
"""

from __future__ import annotations

import argparse
import os
import sys

from app.cli.common import CliParser, Command, CommandFailed, UsageError, open_workspace, print_json


def _common(p: argparse.ArgumentParser, workspace: bool = True) -> None:
    if workspace:
        p.add_argument("ws", nargs="?", metavar="WS", help="workspace file (default: -w, $STORMSCOPE_WORKSPACE or the "
                       "user data folder)")
        p.add_argument("-w", "--workspace", metavar="WS", help=argparse.SUPPRESS)
    p.add_argument("--library", metavar="DIR|s3://BUCKET/PREFIX", help="the library (default $STORMSCOPE_LIBRARY)")
    p.add_argument("--json", action="store_true")


def _engagement(p: argparse.ArgumentParser) -> None:
    from app.analysis.library import WORKLOADS

    p.add_argument("--workload", choices=list(WORKLOADS), help="what was measured (compared like with like)")
    p.add_argument("--hypervisor", metavar="NAME", help="e.g. vSphere, Hyper-V, AHV")
    p.add_argument("--desktops", type=int, metavar="N", help="desktops in the measured storm (default: the VMs of "
                   "a sizing question measured on the run)")


def arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=CliParser)
    a = sub.add_parser("add", help="publish this workspace's engagement to the library (idempotent)")
    _common(a)
    _engagement(a)
    a.add_argument("--customer", metavar="TAG", help="the customer's tag (kept only with --no-anonymise)")
    a.add_argument("--no-anonymise", dest="anonymise", action="store_false",
                   help="keep run names and the customer tag (default: anonymised as the PDF does)")
    a.add_argument("--samples", action="store_true", help="publish every run's interval series too")
    a.set_defaults(handler=add)
    c = sub.add_parser("compare", help="where this storm falls among comparable past engagements")
    _common(c)
    _engagement(c)
    c.add_argument("--run", type=int, required=True, metavar="ID", help="the storm run")
    c.set_defaults(handler=compare)
    k = sub.add_parser("check", help="read every engagement, checksums too; name the ones left out")
    _common(k, workspace=False)
    k.set_defaults(handler=check)


def _location(args: argparse.Namespace) -> str:
    where = args.library or os.environ.get("STORMSCOPE_LIBRARY")
    if not where:
        raise UsageError("--library is required (or set STORMSCOPE_LIBRARY)")
    return str(where)


def _ws_args(args: argparse.Namespace) -> argparse.Namespace:
    if args.ws and args.workspace and args.ws != args.workspace:
        raise UsageError("give the workspace once")
    args.workspace = args.ws or args.workspace
    return args


def add(args: argparse.Namespace) -> int:
    from app.library.publish import publish
    from app.store.library import LibraryError

    where = _location(args)
    with open_workspace(_ws_args(args)) as ws:
        try:
            res = publish(ws, where, customer=args.customer, anonymise=args.anonymise, workload=args.workload,
                          hypervisor=args.hypervisor, desktops=args.desktops, samples=args.samples)
        except LibraryError as e:
            raise CommandFailed(str(e)) from None
    if args.json:
        print_json(res.manifest)
    else:
        state = "already in the library, unchanged" if res.unchanged else "published"
        print(f"engagement {res.engagement} {state}: {res.runs} run{'s' * (res.runs != 1)}, {res.answers} "
              f"answer{'s' * (res.answers != 1)}"
              + (f", {res.samples:,} samples" if res.samples else "") + f" -> {where}")
    return 0


def compare(args: argparse.Namespace) -> int:
    from app.analysis.questions import LibraryQuestion, answer

    where = _location(args)
    q = LibraryQuestion(args.run, where, args.desktops, args.workload, args.hypervisor)
    with open_workspace(_ws_args(args)) as ws:
        a = answer(ws, q)
    if args.json:
        print_json(a.as_dict())
        return 0
    print(a.title)
    print(a.reason)
    for f in a.figures:
        print(f"  {f.text}")
    res = a.evidence.results[0]
    for m in res.metrics:
        if m.peers:
            print(f"  {m.label}: comparable runs {min(m.peers):.4g} .. median {m.median:.4g} .. {max(m.peers):.4g}")
    for n in a.notes:
        print(f"note: {n}")
    for n in res.index_notes:
        print(f"library index: {n}")
    return 0


def check(args: argparse.Namespace) -> int:
    from app.store.library import KINDS, LibraryError, read_library

    where = _location(args)
    try:
        lib = read_library(where, kinds=KINDS, verify=True)
    except LibraryError as e:
        raise CommandFailed(str(e)) from None
    if args.json:
        print_json({"engagements": sorted(lib.manifests), "refused": [str(r) for r in lib.refused],
                    "notes": lib.notes, "schema_version": lib.schema_version,
                    "index": {"current_for": lib.indexed, "notes": lib.index_notes}})
    else:
        print(f"{where}: {len(lib.manifests)} engagements readable (library schema {lib.schema_version})")
        for n in lib.notes:
            print(f"note: {n}")
        print(f"library index: current for {lib.indexed:,} of the {len(lib.manifests):,} engagements")
        for n in lib.index_notes:
            print(f"library index: {n}")
    for r in lib.refused:
        print(f"refused: {r}", file=sys.stderr)
    return 1 if lib.refused else 0


def no_action(args: argparse.Namespace) -> int:
    raise UsageError("choose an action: add, compare, check")


LIBRARY = Command("library", "the engagement library: publish, compare with past engagements, check", arguments,
                  no_action)
