"""``main.py question ...``: the consultant's questions, stored in the workspace and answered (no Qt).

    question add cap --run ID (--cap-iops N | --cap-kbs N ...) [--device D] [--op total|read|write]
                     [--tolerance P] [--window S] [--title T] [--position N]
    question add compare --runs ID,ID... [--metric M] [--align MODE] [--phases P] [--device D] [--every S]
    question add response-time --runs ID... [--disks NAME...] [--threshold-ms MS] [--goal-pct P]
    question add sizing --users N (--iops-per-user X | --iops-per-user X..Y | --measured-run ID --vms N |
                        --profile NAME) [--read-pct P] [--raid L] [--disk TYPE | --disk-iops N]
                        [--gb-per-user G --disk-gb D] [--storm-multiplier M]
    question add storm --run ID [--device D] [--phases P] [--every S]
    question add latency-source --run ID [--device D] [--davg-ms MS] [--kavg-ms MS]   (esxtop: array or host?)
    question add vm-load --run ID                                                     (esxtop: load per VM)
    question add latency-path --run GUEST --host-run HOST [--device D] [--host-device D]
                      (where the guest's time goes: its queue, the hypervisor, the array; on one clock)
    question add knee --runs ID... [--threshold-ms MS] [--goal-pct P] [--statistic share|mean]
                      [--iops-per-user X | --profile NAME] [--points runs|jobs] [--device D] [--every S]
                      (how many desktops before the response-time goal breaks)
    question add replay --run ID --replay-run ID [--range A..B | --phase NAME] [--scale F] [--device D]
                        [--replay-device D] [--every S]          (does the replay reproduce the storm)
    question add library --run ID [--library DIR] [--desktops N] [--workload KIND] [--hypervisor NAME]
                         (how does this engagement compare with the library)
    question list [--json];  question answer [ID...] [--json];  question edit ID [flags of its kind] [--title T]
    question move ID --to POS;  question delete ID

Exit codes as the rest of the command line: 0 done, 1 a question or run does not exist or cannot be answered
(the others are still answered), 2 a usage error (a bad parameter, named by its flag).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from app.analysis.questions import COMPARE_METRICS
from app.cli.common import (
    CliParser,
    Command,
    CommandFailed,
    UsageError,
    add_workspace_arg,
    jsonable,
    open_workspace,
    workspace_path,
)
from app.safe_text import for_terminal

if TYPE_CHECKING:
    from app.workspace import Workspace

# command-line kind -> the stored kind
KIND_NAMES = {"compare": "compare", "cap": "cap", "response-time": "response_time", "sizing": "sizing",
              "storm": "storm_profile", "latency-source": "latency_source", "vm-load": "vm_load", "knee": "knee",
              "replay": "replay", "latency-path": "latency_path", "library": "library"}
CLI_KIND = {v: k for k, v in KIND_NAMES.items()}


def _ids(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"run numbers expected (e.g. 1,2), not {text!r}") from None


def _range(text: str) -> tuple[float, float | None]:
    """``8`` or ``8..25`` (light..heavy users)."""
    lo, sep, hi = text.partition("..")
    try:
        return float(lo), (float(hi) if sep else None)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number or a range like 8..25 expected, not {text!r}") from None


def _seconds(text: str) -> tuple[float | None, float | None]:
    """``A..B`` seconds (either end may be left out)."""
    from app.analysis.replay import parse_range

    try:
        return parse_range(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


# flag, parameter key(s), argparse keywords, kinds that take it
FLAGS: list[tuple[str, str, dict[str, Any], set[str]]] = [
    ("--run", "run_id", {"type": int, "metavar": "ID", "help": "run id (see 'runs'); latency-path: the guest's run"},
     {"cap", "storm_profile", "latency_source", "vm_load", "replay", "latency_path", "library"}),
    ("--host-run", "host_run", {"type": int, "metavar": "ID", "help": "latency-path: the host's esxtop run"},
     {"latency_path"}),
    ("--host-device", "host_device", {"metavar": "D[,D...]", "help": "latency-path: the host's device(s) or VM "
                                      "disk(s) (default: its physical disks)"}, {"latency_path"}),
    ("--runs", "run_ids", {"type": _ids, "nargs": "+", "metavar": "ID[,ID...]",
                           "help": "run ids; for compare the first is the baseline; for knee the runs at "
                                   "increasing load"}, {"compare", "response_time", "knee"}),
    ("--metric", "metric", {"metavar": "M", "help": "the figure compared (default peak_iops): "
                            + ", ".join(COMPARE_METRICS)}, {"compare"}),
    ("--align", "align", {"metavar": "MODE", "help": "start | activity | clock | marker:NAME | offset:S (charts; "
                                                     "clock: wall-clock time, UTC where the file gives its zone)"},
     {"compare"}),
    ("--phases", "phases", {"choices": ["auto", "stored", "detect", "none"]}, {"compare", "storm_profile"}),
    ("--device", "device", {"metavar": "D[,D...]", "help": "exact device name(s); default: the whole disks"},
     {"compare", "cap", "storm_profile", "latency_source", "knee", "replay", "latency_path"}),
    ("--every", "every_s", {"type": float, "metavar": "S", "help": "resample to S-second means first"},
     {"compare", "storm_profile", "knee", "replay"}),
    ("--cap-iops", "iops_cap", {"type": float, "metavar": "N"}, {"cap"}),
    ("--cap-kbs", "bw_cap_kbs", {"type": float, "metavar": "N", "help": "bandwidth cap in kB/s (1 kB = 1024 bytes)"},
     {"cap"}),
    ("--op", "op", {"choices": ["total", "read", "write"], "help": "reads, writes or both (default total)"},
     {"cap", "response_time"}),
    ("--tolerance", "tolerance_pct", {"type": float, "metavar": "P", "help": "in %% (default 5)"}, {"cap"}),
    ("--window", "window_s", {"type": float, "metavar": "S", "help": "window length, >= 10 s (default 10)"}, {"cap"}),
    ("--disks", "disks", {"nargs": "+", "metavar": "NAME", "help": "VM disks (default: every disk of the runs)"},
     {"response_time"}),
    ("--threshold-ms", "threshold_ms", {"type": float, "metavar": "MS", "help": "default 50"},
     {"response_time", "knee"}),
    ("--goal-pct", "goal_pct", {"type": float, "metavar": "P", "help": "default 80"}, {"response_time", "knee"}),
    ("--statistic", "statistic", {"choices": ["share", "mean"], "help": "knee: the goal is P %% of I/O within MS "
                                  "(share, the default) or the mean response time within MS (mean)"}, {"knee"}),
    ("--points", "points", {"choices": ["runs", "jobs"], "help": "knee: one load point per run (default) or per "
                            "fio job"}, {"knee"}),
    ("--replay-run", "replay_run", {"type": int, "metavar": "ID", "help": "the replay's capture (iostat during it, "
                                    "or fio's JSON report)"}, {"replay"}),
    ("--range", "t_range", {"type": _seconds, "metavar": "A..B", "help": "the replayed seconds of the run "
                            "(default the whole run)"}, {"replay"}),
    ("--phase", "phase", {"metavar": "NAME", "help": "replayed range: a phase stored with the run"}, {"replay"}),
    ("--scale", "scale", {"type": float, "metavar": "F", "help": "the replay's IOPS scale (default 1)"},
     {"replay"}),
    ("--replay-device", "replay_device", {"metavar": "D[,D...]", "help": "the replay capture's device(s)"},
     {"replay"}),
    ("--users", "users", {"type": int, "metavar": "N"}, {"sizing"}),
    ("--iops-per-user", "iops_per_user", {"type": _range, "metavar": "X[..Y]",
                                          "help": "one value, or light..heavy users (8..25): both are answered"},
     {"sizing", "knee"}),
    ("--measured-run", "measured_run", {"type": int, "metavar": "ID", "help": "IOPS per user measured on this run"},
     {"sizing"}),
    ("--vms", "vms", {"type": int, "metavar": "N", "help": "VMs in the measured run"}, {"sizing"}),
    ("--read-pct", "read_pct", {"type": float, "metavar": "P", "help": "reads in %% of I/O (default 40)"}, {"sizing"}),
    ("--raid", "raid", {"metavar": "LEVEL", "help": "0|1|10|5|6|50|60|dp (default 10)"}, {"sizing"}),
    ("--disk", "disk_type", {"metavar": "TYPE", "help": "sata5k|sata7k|sas10k|sas15k|ssd|nvme (default sata7k)"},
     {"sizing"}),
    ("--disk-iops", "disk_iops", {"type": float, "metavar": "N"}, {"sizing"}),
    ("--gb-per-user", "gb_per_user", {"type": float, "metavar": "G"}, {"sizing"}),
    ("--disk-gb", "disk_gb", {"type": float, "metavar": "D"}, {"sizing"}),
    ("--storm-multiplier", "storm_multiplier", {"type": float, "metavar": "M"}, {"sizing"}),
    ("--profile", "profile", {"metavar": "NAME", "help": "user profile preset (office-8, ...)"}, {"sizing", "knee"}),
    ("--davg-ms", "davg_ms", {"type": float, "metavar": "MS", "help": "DAVG guidance (default 20)"},
     {"latency_source"}),
    ("--kavg-ms", "kavg_ms", {"type": float, "metavar": "MS", "help": "KAVG guidance (default 2)"},
     {"latency_source"}),
    ("--library", "library", {"metavar": "DIR|s3://BUCKET/PREFIX", "help": "the library (default "
                              "$STORMSCOPE_LIBRARY)"}, {"library"}),
    ("--desktops", "desktops", {"type": int, "metavar": "N", "help": "desktops in the storm (default: the VMs of a "
                                "sizing question measured on the run)"}, {"library"}),
    ("--workload", "workload", {"metavar": "KIND", "help": "boot_storm | logon_storm | steady | mixed | benchmark"},
     {"library"}),
    ("--hypervisor", "hypervisor", {"metavar": "NAME", "help": "e.g. vSphere, Hyper-V, AHV"}, {"library"}),
]
FIELD_FLAGS = {key: flag for flag, key, _kw, _k in FLAGS}
FIELD_FLAGS.update({"t_start_s": "--range", "t_end_s": "--range", "iops_per_user_storm": "--iops-per-user",
                    "title": "--title", "position": "--position/--to",
                    "kind": "KIND"})
REQUIRED = {"cap": "run_id", "storm_profile": "run_id", "compare": "run_ids", "response_time": "run_ids",
            "sizing": "users", "latency_source": "run_id", "vm_load": "run_id", "knee": "run_ids",
            "replay": "run_id", "latency_path": "run_id", "library": "run_id"}


def arguments(p: argparse.ArgumentParser) -> None:
    pc = CliParser
    qsub = p.add_subparsers(dest="action", metavar="ACTION", parser_class=pc)
    a = qsub.add_parser("add", help="add a question (compare, cap, response-time, sizing, storm, latency-source, "
                                    "vm-load, knee, replay, latency-path)")
    ksub = a.add_subparsers(dest="kind", metavar="KIND", parser_class=pc)
    for cli_kind, kind in KIND_NAMES.items():
        k = ksub.add_parser(cli_kind, help=f"a {cli_kind} question")
        add_workspace_arg(k)
        for flag, key, kw, kinds in FLAGS:
            if kind in kinds:
                k.add_argument(flag, dest=key, required=REQUIRED[kind] == key, **kw)
        k.add_argument("--title", help="the question's title (default: generated from its parameters)")
        k.add_argument("--position", type=int, metavar="N", help="place it at N (default: last)")
        k.add_argument("--json", action="store_true")
    a = qsub.add_parser("list", help="list the questions in their order")
    add_workspace_arg(a)
    a.add_argument("--json", action="store_true")
    a = qsub.add_parser("answer", help="answer the questions (all, or the ids given)")
    a.add_argument("ids", type=int, nargs="*", metavar="ID")
    add_workspace_arg(a)
    a.add_argument("--json", action="store_true")
    a = qsub.add_parser("edit", help="change a question's parameters or title")
    a.add_argument("question_id", type=int, metavar="ID")
    add_workspace_arg(a)
    for flag, key, kw, _kinds in FLAGS:
        a.add_argument(flag, dest=key, default=argparse.SUPPRESS, **kw)
    a.add_argument("--title", default=argparse.SUPPRESS, help="a new title ('' = the generated one)")
    a.add_argument("--json", action="store_true")
    a = qsub.add_parser("move", help="move a question to another position")
    a.add_argument("question_id", type=int, metavar="ID")
    add_workspace_arg(a)
    a.add_argument("--to", type=int, required=True, metavar="POS", help="1 = first")
    a = qsub.add_parser("delete", help="delete a question")
    a.add_argument("question_id", type=int, metavar="ID")
    add_workspace_arg(a)


def _params(args: argparse.Namespace, kind: str | None) -> dict[str, Any]:
    """The question parameters given on the command line (for ``kind``; None: any, as ``edit`` parses)."""
    out: dict[str, Any] = {}
    for _flag, key, _kw, kinds in FLAGS:
        if not hasattr(args, key) or (kind is not None and kind not in kinds):
            continue
        v = getattr(args, key)
        if v is None and kind is not None:
            continue
        if key == "run_ids":
            v = [i for part in v for i in part]
        if key == "t_range":
            out["t_start_s"], out["t_end_s"] = v
            continue
        if key == "iops_per_user":
            if kind == "knee" or (kind is None and v[1] is None):
                if v[1] is not None:
                    raise UsageError("--iops-per-user: the load limit takes one value, not a range")
                out["iops_per_user"] = v[0]
                continue
            out["iops_per_user"], out["iops_per_user_storm"] = v
            continue
        if key == "device" and v is not None and not v.strip():
            v = None
        out[key] = v
    return out


def _flagged(e: Any) -> str:
    """A question error in the command line's words: its flag instead of the window's label."""
    return f"{FIELD_FLAGS.get(e.field, e.field)}: {e.message}" if e.field else e.message


def run(args: argparse.Namespace) -> int:
    from app.analysis import questions as Q

    if args.action is None:
        raise UsageError("choose an action: add, list, answer, edit, move or delete")
    if args.action == "add" and args.kind is None:
        raise UsageError(f"choose a kind: {', '.join(KIND_NAMES)}")
    writes = args.action in ("add", "edit", "move", "delete")
    if args.action == "list" and not workspace_path(args).exists():
        print("[]" if args.json else f"no workspace at {workspace_path(args)}")
        return 0
    try:
        with open_workspace(args, read_only=not writes, create=args.action == "add") as ws:
            return _run(args, ws, Q)
    except Q.QuestionError as e:
        if e.missing:  # a question or run that is not there
            raise CommandFailed(_flagged(e)) from None
        raise UsageError(_flagged(e)) from None


def _run(args: argparse.Namespace, ws: Workspace, Q: Any) -> int:
    action = {"add": _add, "edit": _edit, "move": _move, "delete": _delete, "list": _list}.get(args.action, _answer)
    return action(args, ws, Q, Q.run_names(ws))


def _add(args: argparse.Namespace, ws: Workspace, Q: Any, names: dict[int, str]) -> int:
    kind = KIND_NAMES[args.kind]
    q = Q.question_from_params(kind, _params(args, kind))
    sq = Q.add_question(ws, q, title=args.title, position=args.position)
    if args.json:
        print(json.dumps(jsonable(sq), indent=2))
    else:
        print(f"added question {sq.question_id} at position {sq.position}: {for_terminal(sq.heading(names))}")
    return 0


def _edit(args: argparse.Namespace, ws: Workspace, Q: Any, names: dict[int, str]) -> int:
    old = Q.get_question(ws, args.question_id)
    params = _params(args, None)
    wrong = [k for k in params if k not in {f for f in Q.KINDS[old.kind].__dataclass_fields__}]
    if wrong:
        raise Q.QuestionError(f"a {CLI_KIND[old.kind]} question does not take it", wrong[0])
    sq = Q.edit_question(ws, args.question_id, params, title=getattr(args, "title", None))
    if args.json:
        print(json.dumps(jsonable(sq), indent=2))
    else:
        print(f"question {sq.question_id}: {for_terminal(sq.heading(names))}  {json.dumps(sq.question.to_params())}")
    return 0


def _move(args: argparse.Namespace, ws: Workspace, Q: Any, names: dict[int, str]) -> int:
    for sq in Q.move_question(ws, args.question_id, args.to):
        print(f"{sq.position:>3}. [{sq.question_id}] {for_terminal(sq.heading(names))}")
    return 0


def _delete(args: argparse.Namespace, ws: Workspace, Q: Any, names: dict[int, str]) -> int:
    sq = Q.get_question(ws, args.question_id)
    Q.delete_question(ws, args.question_id)
    print(f"deleted question {sq.question_id}: {for_terminal(sq.heading(names))}")
    return 0


def _list(args: argparse.Namespace, ws: Workspace, Q: Any, names: dict[int, str]) -> int:
    qs = Q.list_questions(ws)
    if args.json:
        print(json.dumps(jsonable(qs), indent=2))
        return 0
    if not qs:
        print("no questions (add one with 'question add KIND ...')")
    for sq in qs:
        print(f"{sq.position:>3}. [{sq.question_id}] {CLI_KIND[sq.kind]:<13} {for_terminal(sq.heading(names))}  "
              f"{json.dumps(sq.question.to_params())}")
    return 0


def _answer(args: argparse.Namespace, ws: Workspace, Q: Any, names: dict[int, str]) -> int:
    """``question answer [ID ...]``: exit 1 when a question is missing or could not be answered."""
    from app.analysis.text import for_cli

    rc = 0
    answers = []
    if args.ids:
        chosen = []
        for qid in args.ids:
            try:
                chosen.append(Q.get_question(ws, qid))
            except Q.QuestionError as e:
                print(f"error: {_flagged(e)}", file=sys.stderr)
                rc = 1
        pairs = [(sq, Q.answer_stored(ws, sq)) for sq in chosen]
    else:
        pairs = Q.answer_all(ws)
    for sq, a in pairs:
        if a.error is not None:
            rc = 1
        answers.append(a)
        if not args.json:
            print(f"{sq.position}. [{a.verdict.upper()}] {for_terminal(a.title)}  (question {sq.question_id})")
            if a.number:
                print(f"   {for_terminal(a.number)}")
            print(f"   {for_terminal(for_cli(a.reason))}")
            for n in a.notes:
                print(f"   note: {for_terminal(for_cli(n))}")
    if args.json:
        print(json.dumps(jsonable(answers), indent=2))
    elif not pairs and rc == 0:
        print("no questions (add one with 'question add KIND ...')")
    return rc

QUESTION = Command("question", "the consultant's questions: add, list, answer, edit, move, delete", arguments, run)
