"""The report's anonymiser: host, device and VM names replaced by neutral labels (no Qt, no PDF).

A leaf module: the shared report context (:mod:`reports.context`) and the content (:mod:`reports.content`, which
re-exports it) both use it without importing each other.
"""

from __future__ import annotations

import re


class Anonymiser:
    """Replaces host, device, VM and run names, the customer's name and file names (and any text containing them)
    with neutral labels: with anonymising on, no name from the customer's files or typed about the customer reaches
    a page, a bookmark or the PDF's metadata (``sweep`` passes every text of the report through ``text``)."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.hosts: dict[str, str] = {}
        self.devices: dict[str, str] = {}
        self.vms: dict[str, str] = {}  # vscsiStats worldGroupID -> "1", "2": printed as "VM 1"
        self.vm_names: dict[str, str] = {}  # esxtop VM name -> "VM 1"
        self.runs: dict[str, str] = {}  # run name -> "run 7" (a name is often the file's: host and device inside)
        self.words: dict[str, str] = {}  # the customer's name and its words -> "the customer"

    def run(self, run_id: int, name: str | None) -> str:
        """A run's name as printed: its own, or with anonymising "run <id>" (its number in this workspace)."""
        if not self.enabled:
            return name or f"run {run_id}"
        label = f"run {run_id}"
        if name and len(name) >= 2:
            self.runs.setdefault(name, label)
        return label

    def vm_name(self, name: str | None) -> str:
        """An esxtop VM's name as printed: its own, or "VM 1", "VM 2" (never "device 13")."""
        if not name:
            return "–"
        if not self.enabled:
            return name
        return self.vm_names.setdefault(name, f"VM {len(self.vm_names) + 1}")

    def customer(self, name: str | None) -> None:
        """The customer's name as typed on the report (and each of its distinctive words) becomes "the customer"."""
        if not self.enabled or not name:
            return
        self.words.setdefault(name.strip(), "the customer")
        for w in re.split(r"[\s,.;:/()&+-]+", name):
            if len(w) >= 3 and w.lower() not in COMMON_WORDS:
                self.words.setdefault(w, "the customer")

    def parts(self, name: str | None, digits_only: bool = False) -> None:
        """The parts of a host or file name (split at - _ . and spaces) become names too: "Contoso" of the host
        "CONTOSO-SQL7" typed into a question title, "db01" of a file name. A file name's parts count only when
        they hold a digit (its words are the tool's and the consultant's: "iostat", "storm"); common and
        technical words never count."""
        if not self.enabled or not name:
            return
        for w in re.split(r"[-_.\s]+", name):
            if len(w) < 3 or w.isdigit() or w.lower() in COMMON_WORDS or w.lower() in TOOL_WORDS:
                continue
            if digits_only and not any(c.isdigit() for c in w):
                continue
            self.words.setdefault(w, "a name")

    def file(self, path: str | None, run_id: int) -> str:
        """A source file as printed with anonymising: "the file of run 7" (its name holds the customer's hosts)."""
        return f"the file of run {run_id}" if self.enabled else (path or "")

    def host(self, name: str | None) -> str:
        if not name:
            return "–"
        if not self.enabled:
            return name
        return self.hosts.setdefault(name, f"host {len(self.hosts) + 1}")

    def device(self, name: str | None) -> str:
        if not name:
            return "–"
        if not self.enabled:
            return name
        return self.devices.setdefault(name, f"device {len(self.devices) + 1}")

    def vm(self, world: str) -> str:
        """A VM's worldGroupID (vscsiStats) as a neutral number: 'VM 2099979' prints as 'VM 1'."""
        if not self.enabled:
            return world
        return self.vms.setdefault(world, str(len(self.vms) + 1))

    def text(self, s: str | None) -> str:
        """``s`` with every known host and device name replaced, also inside file names ("host1_sdb_iostat":
        a name counts where it is not part of a longer word or number; underscores, dots and dashes separate)."""
        if not s or not self.enabled:
            return s or ""
        import re

        sizes = (len(self.words), len(self.vms), len(self.hosts), len(self.devices), len(self.vm_names),
                 len(self.runs))
        if getattr(self, "_known_sizes", None) != sizes:  # the names only grow (setdefault): sorted once per growth
            known = {**self.words, **self.vms, **self.hosts, **self.devices, **self.vm_names, **self.runs}
            self._known = [(real, _fold(real), alias)
                           for real, alias in sorted(known.items(), key=lambda kv: -len(kv[0])) if len(real) >= 2]
            # each name by its folded text and the names' lengths: a text is tried only against the names it holds
            # between two separators (a workspace of 100,000 runs knows 300,000 names; trying each one on each text
            # of a report took minutes)
            self._by_fold: dict[str, list[int]] = {}
            for i, (_real, real_low, _alias) in enumerate(self._known):
                self._by_fold.setdefault(real_low, []).append(i)
            self._lengths = sorted({len(real) for real, _low, _alias in self._known})
            self._known_sizes = sizes
        done = -1
        while True:
            # the names held by the text (longest first, as they were sorted) after the last one replaced: a
            # replacement changes the text, and the names after it are looked for in the new text
            found = sorted(i for i in _held(s, self._lengths, self._by_fold) if i > done)
            replaced = False
            for i in found:
                real, _real_low, alias = self._known[i]
                new = re.sub(rf"(?<![A-Za-z0-9]){re.escape(real)}(?![A-Za-z0-9])", alias, s,
                             flags=re.IGNORECASE if real in self.words or real in self.hosts else 0)
                done = i
                if new != s:
                    s, replaced = new, True
                    break
            if not replaced:
                return s


def _held(s: str, lengths: list[int], by_fold: dict[str, list[int]]) -> set[int]:
    """The names (indices into ``by_fold``'s lists) that ``s`` holds where a name can match: a stretch of one of the
    names' ``lengths`` that neither starts nor ends inside a word or number (the replacement's rule), compared
    folded. A superset of the names the replacement matches, each stretch looked up once."""
    out: set[int] = set()
    n = len(s)
    for a in range(n):
        if a and _ALNUM(s[a - 1]):
            continue
        for length in lengths:
            b = a + length
            if b > n:
                break
            if b < n and _ALNUM(s[b]):
                continue
            hit = by_fold.get(_fold(s[a:b]))
            if hit:
                out.update(hit)
    return out


def _ALNUM(c: str) -> bool:  # noqa: N802 (the replacement's word characters)
    return c.isascii() and c.isalnum()


def _fold(s: str) -> str:
    """``s`` case-folded so that a name the regular expression matches ignoring case is a substring of the folded
    text: Python's IGNORECASE also matches dotless and dotted i with i, which casefold leaves apart."""
    return s.casefold().replace("\u0131", "i").replace("i\u0307", "i")


TOOL_WORDS = {"iostat", "perfmon", "typeperf", "nmon", "sar", "sadf", "fio", "esxtop", "vscsistats", "iozone",
              "iometer", "iomark", "diskspd", "hdparm", "csv", "txt", "json", "log", "out", "xml", "results", "result",
              "storm",
              "boot", "test", "run", "fast", "slow", "capped", "disk", "disks", "host", "server", "local",
              "localdomain", "domain", "com", "net", "org", "node", "linux", "windows", "data", "sample", "example",
              "total", "read", "write", "randread", "randwrite", "randrw", "direct", "buffered", "iops", "latency",
              "cap", "limit", "limited", "before", "after", "day", "night", "week", "with", "without", "new", "old",
              "prod", "production", "lab", "vdi", "vm", "vms", "esx", "esxi", "kvm", "sda", "vda", "xvda", "dev"}
COMMON_WORDS = {"the", "and", "inc", "ltd", "llc", "gmbh", "corp", "corporation", "company", "group", "plc", "ag",
                "sa", "bv", "co", "for", "of", "de", "und", "limited"}
