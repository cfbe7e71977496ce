"""The independent fast checker, checker/fccheck.c (built by `make setup` into build/fccheck), run from
Python: `certgen check` uses it when it is built, and keeps certgen/checker.py as the reference
(`--reference`). docs/TRUST.md says what trusting it means.

It shares no code with the search core or with this package: its own certificate reader (msgpack,
SHA-256, zlib), its own P64 decoding, its own `msDeal` and its own `moves` from lean/FreeCell/Spec.lean.
Exit status 0 valid, 1 invalid (one line naming the first failure), 2 a damaged or unreadable file (one
line `error: …`). Two checks of the header are left to Python and done here before the verdict is given:
that a deal code or board name is printable in Python's full Unicode sense (fccheck refuses control
characters only), and that a SiggySoft deal code generates the start position (SHA-512 streams;
certgen.members.start_of).
"""
import json
import os
import struct
import subprocess
from dataclasses import dataclass
from typing import List, Optional

from solver import limits
from solver.errors import FreecellError

from . import certificate, checker, members, paths
from .paths import ROOT
SOURCE = os.path.join(ROOT, "checker", "fccheck.c")
BINARY = os.path.join(ROOT, "build", "fccheck")
P64 = 64


def binary() -> Optional[str]:
    """The built checker, or None: not built (no C compiler or zlib), or older than its source (run
    `make setup`). FCCHECK in the environment names another binary: returned as the file it resolves to
    (build/fccheck itself when that is the file), what runs and what is named; one line when it names no
    executable file but build/fccheck."""
    path = _chosen()
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        if path != BINARY:
            raise FreecellError(f"FCCHECK names {paths.shown(os.environ['FCCHECK'])}, which is not an executable file")
        return None
    if path == BINARY and os.path.exists(SOURCE) and os.path.getmtime(SOURCE) > os.path.getmtime(path):
        return None
    return path


def _chosen() -> str:
    """The checker the environment chooses: build/fccheck, or the file FCCHECK resolves to."""
    named = os.environ.get("FCCHECK")
    return _resolved(named) if named else BINARY


def _resolved(path: str) -> str:
    """``path`` as the system resolves it (symbolic links, then `..`; a name without a slash in the current
    folder, not on PATH): BINARY when that is build/fccheck's file."""
    real = os.path.realpath(path)
    return BINARY if real == os.path.realpath(BINARY) else real


def another() -> Optional[str]:
    """The program FCCHECK names (the file it resolves to) when it is not build/fccheck itself, else None.
    `certgen check` names it in its verdict; a survey and certify-list, whose rows say "checked by
    build/fccheck", refuse it."""
    path = _chosen()
    return path if path != BINARY else None


def refuse_another(command: str) -> None:
    """One line, before any work, when FCCHECK names another program than build/fccheck for `command`."""
    path = another()
    if path is not None:
        raise FreecellError(f"{command} checks its certificates with build/fccheck itself, but FCCHECK names "
                            f"{paths.shown(path)}: unset FCCHECK")


def named(program: str) -> str:
    """How a verdict names the program that checked when FCCHECK named it instead of build/fccheck."""
    return f"by {paths.shown(program)}, named by FCCHECK: not build/fccheck"


def why_not() -> str:
    """Why binary() is None, in a few words."""
    if os.path.isfile(BINARY) and os.path.exists(SOURCE) and os.path.getmtime(SOURCE) > os.path.getmtime(BINARY):
        return "build/fccheck is older than checker/fccheck.c (run make setup)"
    return "build/fccheck is not built (make setup builds it; it needs a C compiler and zlib)"


@dataclass
class FastResult:
    ok: bool
    states: int
    checked: int             # members whose successors were checked before the verdict
    successors: int          # successor positions looked up
    failure: Optional[str]   # None | "start" | "successor" | "won" | "start-mismatch" | "column-order"
    message: str             # the one line: "valid for …" or "invalid for …"
    source: dict             # the header's source, rules (with "column_order": True up to column order) and start
    rules: dict
    start: bytes
    records_sha256: Optional[str]  # of the records read (certificate.records_sha256); None unless asked (digest)
    max_home: int            # the most cards home in any record read
    read_seconds: float      # reading: checksum, header, inflation, order of the records
    check_seconds: float     # each record parsed, the three fence conditions (wall time)
    check_cpu_seconds: float  # the same in processor time (less sensitive to a busy machine)
    held_bytes: int          # memory the checker held for the records (front-coded blocks, about 11-15 a position;
                             # and their index up to limits.FASTCHECK_INDEX_STATES positions, 10 a position)
    program: str = BINARY    # the program that checked: build/fccheck, or the one FCCHECK names


def check(path: str, progress: bool = False, exe: Optional[str] = None, digest: bool = False,
          index_states: int = limits.FASTCHECK_INDEX_STATES) -> FastResult:
    """Run the fast checker on the certificate at `path`; with ``digest``, it says its records' SHA-256 too
    (``--records-sha256``: about a tenth more time). A certificate of at most ``index_states`` positions is
    looked up through a hash index of its records (``--index-states``: 10 bytes a position more), a bigger one
    by binary searches. A damaged or unreadable file raises FreecellError with the checker's one line (without
    its `error: `)."""
    exe = exe or binary()
    if exe is None:
        raise FreecellError(f"no fast checker: {why_not()}")
    shown = os.path.join(os.curdir, path) if path.startswith("-") else path     # not read as an option
    args = ([exe, "--json"] + (["--records-sha256"] if digest else []) + (["--progress"] if progress else []) +
            ["--index-states", str(index_states), shown])
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=None if progress else subprocess.PIPE)
    if proc.returncode == 2:
        err = (proc.stderr or b"").decode("utf-8", "replace").strip()
        at = err.rfind("\nerror: ") + 1      # its one line, over more than one when the file's name holds a newline
        line = err[at:] if err.startswith("error: ", at) else \
            (err.splitlines() or ["the fast checker refused the file"])[-1]
        line = line[len("error: "):] if line.startswith("error: ") else line
        if line.startswith("usage: "):      # fccheck's word for arguments it does not know: an older one
            raise FreecellError(f"the fast checker {paths.shown(exe)} does not take the arguments "
                                f"{' '.join(args[1:-1])} (an older fccheck: `make` builds build/fccheck)")
        raise FreecellError(path + line[len(shown):] if line.startswith(shown) else line)
    if proc.returncode not in (0, 1):
        raise FreecellError(f"the fast checker stopped with exit status {proc.returncode} on {path}")
    try:
        obj = json.loads(proc.stdout.decode("utf-8"))
        res = FastResult(ok=obj["valid"], states=obj["states"], checked=obj["checked"],
                         successors=obj["successors"], failure=obj["failure"] or None, message=obj["message"],
                         source=obj["source"], rules=obj["rules"], start=bytes.fromhex(obj["start"]),
                         records_sha256=obj["records_sha256"], max_home=obj["max_home"],
                         read_seconds=obj["read_seconds"], check_seconds=obj["check_seconds"],
                         check_cpu_seconds=obj["check_cpu_seconds"], held_bytes=obj["held_bytes"],
                         program=exe)
        if not isinstance(res.ok, bool) or not isinstance(res.message, str):
            raise ValueError("no verdict")
        if not _cards_home(res.max_home) or not (is_sha256(res.records_sha256) or
                                                 res.records_sha256 is None and not digest):
            raise ValueError("a figure that is none of fccheck's")
    except (ValueError, KeyError, TypeError):       # FCCHECK may name any program
        raise FreecellError(f"the fast checker {paths.shown(exe)} gave no report of its check on {path} (not fccheck's "
                            f"--json object)") from None
    certificate.check_source(res.source, lambda why: FreecellError(f"{path}: {why}"))
    if "code" in res.source and res.failure != "start-mismatch":
        try:
            members.start_of(_header_only(res))
        except members.StartMismatch as e:  # as the Python checker: before any other verdict
            res.ok, res.failure, res.message = False, "start-mismatch", f"invalid for {obj['subject']}: {e}"
    return res


def _cards_home(v) -> bool:
    """Whether ``v`` is a count of cards home: an int 0..52, not a bool."""
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 52


def is_sha256(v) -> bool:
    """Whether ``v`` is a SHA-256 as fccheck writes it: 64 lowercase hex digits."""
    return isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v)


@dataclass
class Checked:
    """A certificate checked by the fast checker where it is built, else by the reference checker
    (:func:`checked`)."""
    ok: bool
    message: str             # the verdict in one line ("valid for …" or "invalid for …")
    start: bytes             # the header's start position (P64)
    rules: dict              # the header's rules
    states: int
    records_sha256: Optional[str]  # of the records read (certificate.records_sha256); None unless asked (digest)
    max_home: int            # the most cards home in any record read
    fast: Optional[FastResult] = None                # the fast checker's answer, when it checked
    reference: Optional[checker.CheckResult] = None  # the reference checker's, when it checked


def checked(path: str, progress: bool = False, reference: bool = False, jobs: Optional[int] = None,
            digest: bool = False) -> Checked:
    """Check the certificate at ``path``: by the fast checker (build/fccheck, or the program FCCHECK names)
    when it is built and ``reference`` is not asked, else by the reference checker (certgen/checker.py, in
    ``jobs`` processes: its default, the CPUs this process may use); ``digest``: with the records' SHA-256
    (the reference checker's always). A damaged or unreadable file raises FreecellError in one line."""
    if not reference and binary():
        res = check(path, progress=progress, digest=digest)
        return Checked(res.ok, res.message, res.start, res.rules, res.states, res.records_sha256, res.max_home,
                       fast=res)
    cert = certificate.read(path)      # each record a position: its zero bytes are 12 + its cards home
    res = checker.check(cert, progress=progress, jobs=jobs)
    return Checked(res.ok, checker.report(res).splitlines()[0], cert.start, dict(cert.rules), cert.states,
                   certificate.records_sha256(cert.records), max((r.count(0) for r in cert.records), default=12) - 12,
                   reference=res)


def _header_only(res: FastResult):
    return certificate.Certificate(source=res.source, rules=res.rules, start=res.start, records=[])


def successors(records: List[bytes], cells: int = 4, foundation_return: bool = False,
               exe: Optional[str] = None) -> List[List[bytes]]:
    """For each P64 record, its successors by the fast checker's `moves`, in its order (the debug mode
    `fccheck --successors`, for comparing with solver.spec.moves)."""
    exe = exe or binary()
    if exe is None:
        raise FreecellError(f"no fast checker: {why_not()}")
    args = [exe, "--successors", "--cells", str(cells)] + (["--foundation-return"] if foundation_return else [])
    proc = subprocess.run(args, input=b"".join(records), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise FreecellError(proc.stderr.decode("utf-8", "replace").strip() or f"exit status {proc.returncode}")
    out, pos, data = [], 0, proc.stdout
    for _ in records:
        (n,) = struct.unpack_from("<H", data, pos)
        pos += 2
        out.append([data[pos + P64 * k: pos + P64 * (k + 1)] for k in range(n)])
        pos += P64 * n
    if pos != len(data):
        raise FreecellError("fccheck --successors: output does not match its input")
    return out


def report(cert_path: str, res: FastResult, as_json: bool) -> str:
    """What `certgen check` prints for a fast check: the checker's one line, or one JSON object (the
    reference checker's keys, `checker`, and `program` when FCCHECK named another program than
    build/fccheck, which the line names too)."""
    other = _resolved(res.program) != BINARY
    if not as_json:
        return res.message + (f" ({named(res.program)})" if other else "")
    return json.dumps({"certificate": cert_path, "valid": res.ok, "start": _header_only(res).start_json(),
                       "rules": res.rules, "states": res.states, "checked": res.checked,
                       "successors": res.successors, "failure": res.failure, "message": res.message,
                       "checker": "fast", **({"program": res.program} if other else {})})
