"""The command-line kit both command lines (``python -m solver``, ``python -m certgen``) are built from:
the parser, the argument types, the source and rules flags, and the runner that turns every error into
one line.

Start-up time matters (the whole ``explore --deal 11982`` process has a budget of 0.08 s): this module
imports only argparse, os, signal, sys, threading and the light model modules.

Errors: every user error is a :class:`solver.errors.FreecellError`, printed as ``error: <message>`` on
stderr with exit status 2 (argparse usage errors too); an :class:`solver.errors.InternalError` (a bug a
check caught) and running out of memory are one line with exit status 1; Ctrl-C is one line
(``solver.errors.INTERRUPTED``) and exit status 130, as is SIGTERM, which the runner turns into the same path
while a command runs (solver/sigterm.py; ``TERMINATED``).
"""
import argparse
import contextlib
import os
import sys

from . import source as sources
from .cards import parse_card
from .atomic import is_stdout, messages_to_stderr, reason
from .errors import OUT_OF_MEMORY, FreecellError, InternalError, WorkerLost, interrupted, printable
from .limits import COMMAND_BYTES_PER_POSITION, DISK_MAX_STATES, IN_MEMORY_MAX_STATES, MAX_MEMORY, MIN_MEMORY
from .numbers import digits, whole_number
from .rules import AUTOPLAY, MAX_CELLS, Rules
from .sigterm import ignore_when_taken, restore_term, term_as_interrupt

AUTOPLAY_CHOICES = tuple(a for a in AUTOPLAY if a != "all")   # "all" is not safe: for tests only


class Formatter(argparse.HelpFormatter):
    """argparse's formatter without its ``import shutil`` (2 ms of start-up: argparse builds a formatter
    for every add_argument call just to check it); the width is found the same way, with os alone."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        if width is None:
            try:
                width = int(os.environ.get("COLUMNS", ""))
            except ValueError:
                width = 0
            if width <= 0:
                try:
                    width = os.get_terminal_size(sys.__stdout__.fileno()).columns
                except (AttributeError, ValueError, OSError):
                    width = 80
            width = max(width, 40) - 2
        super().__init__(prog, indent_increment, max_help_position, width)


class _Once(argparse._StoreAction):
    """argparse's ``store`` (an option taking a value), given at most once: argparse would keep the last of
    ``--deal 1 --deal 2`` without a word. The options meant to repeat say so (``action="append"``); flags
    without a value (``--json --json``) change nothing when repeated and stay allowed."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string is not None:
            if self.dest in parser.given:
                parser.error(f"{option_string} given twice: give it once")
            parser.given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


def _negative_number(text):
    """`-5`, `-5M`, `-.5G`, `-1,000`: a minus and a number, with at most one letter after it (a unit)."""
    body = text[1:-1] if text[-1:].isalpha() else text[1:]
    return text[:1] == "-" and body != "" and body[:1] in "0123456789." and all(c in "0123456789.,_" for c in body)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``error: <message> (see '<prog> --help')``, exit 2, ``<prog>`` the
    subcommand's (``python -m solver explore``) for an error in its arguments, an unrecognised one too; an
    option that takes a value may be given once (:class:`_Once`; its subcommands' parsers are Parsers too); an
    option is spelled whole (no abbreviations)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        kwargs.setdefault("allow_abbrev", False)     # `--d` is not `--difficulty`: a script's prefix would change
        #                                              meaning (or break) when an option is added
        super().__init__(*args, **kwargs)
        self.register("action", None, _Once)
        self.register("action", "store", _Once)
        self.given = set()          # the dests of the options given so far in this parse
        self.subcommand = False     # a subcommand's parser (add_command)

    def parse_known_args(self, args=None, namespace=None):
        self.given = set()
        args = self._glue_negative_values(sys.argv[1:] if args is None else list(args))
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self.subcommand:  # argparse hands them up to the top level, whose error names its help
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def _glue_negative_values(self, args):
        """`--memory -5M` as `--memory=-5M`: argparse reads a value that starts with '-' and is not a plain
        number as an option ("expected one argument"); glued, the option's type says what is wrong with it."""
        takes = {o for a in self._actions if a.option_strings and a.nargs is None for o in a.option_strings}
        out, i = [], 0
        while i < len(args):
            if args[i] == "--":
                return out + args[i:]
            if args[i] in takes and i + 1 < len(args) and _negative_number(args[i + 1]):
                out.append(f"{args[i]}={args[i + 1]}")
                i += 2
            else:
                out.append(args[i])
                i += 1
        return out

    def error(self, message):
        dashed = [a for a in _ARGV if a.startswith("-") and a not in ("-", "--") and os.path.exists(a)]
        if dashed:      # a file whose name starts with '-' reads as an option
            name = dashed[0]
            self.exit(2, f"error: {name} is read as an option: a file whose name starts with '-' is given as "
                         f"./{name} (or after --, e.g. `-- {name}`)\n")
        self.exit(2, f"error: {printable(message)} (see '{self.prog} --help')\n")


# --- argument types (a bad value is a FreecellError: one line, exit 2) -----------------------------------

# --max-states goes up to IN_MEMORY_MAX_STATES (about 190 GB at COMMAND_BYTES_PER_POSITION), and with --memory
# (the disk search: positions counted in 64 bits and numbered nowhere, the layer files and the certificate
# streamed from them) up to DISK_MAX_STATES (= certgen.certificate.MAX_STATES, the most records a certificate
# may declare; a test keeps them equal). The figures are solver/limits.py's.


def whole_arg(flag, lo, hi):
    """The argparse type of every whole-number option: solver/numbers.py's one reading (digits only, no
    ``_`` or ``,``), from ``lo`` to ``hi``, the message naming ``flag`` (the option the user typed)."""
    def parse(text):
        return whole_number(text, flag, lo, hi)
    parse.__name__ = flag.lstrip("-").replace("-", "_")
    return parse


cells_arg = whole_arg("--cells", 0, MAX_CELLS)
hand_arg = whole_arg("--hand", 0, 1)
max_states_arg = whole_arg("--max-states", 1, IN_MEMORY_MAX_STATES)
canonical_max_states_arg = whole_arg("--canonical-max-states", 1, IN_MEMORY_MAX_STATES)
disk_max_states_arg = whole_arg("--max-states", 1, DISK_MAX_STATES)
jobs_arg = whole_arg("--jobs", 1, 256)


def memory_words(default):
    """What --max-states costs, for its --help: the default and the memory per position."""
    per = COMMAND_BYTES_PER_POSITION
    return (f"default {default:,}: at most {default * per / 1e9:.1f} GB; a bigger K needs about {per} bytes a "
            f"position, e.g. {10 ** 8 * per / 1e9:.0f} GB for 100,000,000; at most {IN_MEMORY_MAX_STATES:,}")


MEMORY_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def memory_arg(text):
    """--memory: bytes, or a number with K, M, G or T (powers of 1024), e.g. 16G; at least 64K."""
    t = text.upper() if isinstance(text, str) else ""      # no spaces: digits and a unit only
    unit = t[-1:] if t[-1:] in "KMGT" else ""
    n = digits(t[:len(t) - len(unit)], 15)
    if not t or n is None or not MIN_MEMORY <= n * MEMORY_UNITS[unit] <= MAX_MEMORY:
        raise FreecellError(f"--memory must be a size such as 16G, 512M or 64K (K, M, G, T: powers of 1024; "
                            f"at least 64K, at most 1024T), got {text!r}")
    return n * MEMORY_UNITS[unit]


tiers_arg = whole_arg("--tiers", 1, 5)     # 5 = len(solver.difficulty.TIERS) (tests/solver/test_difficulty.py)


def code_arg(text):
    """--code: the spaces and line breaks around a code copied from somewhere are taken off here (the edge:
    solver.siggysoft.parse_code, which also reads certificates' headers, takes a code as one word only)."""
    return text.strip()


def card_arg(text):
    try:
        return parse_card(text)
    except FreecellError as exc:
        raise FreecellError(f"--exposed: {exc}") from None


# --- flags ---------------------------------------------------------------------------------------------

def add_source_args(p, positional=False):
    """Where the start comes from: --deal N (or a positional N), --board FILE, --code CODE."""
    g = p.add_argument_group("where the position comes from (give exactly one)")
    if positional:
        g.add_argument("number", nargs="?", metavar="N",
                       help="Microsoft / FreeCell Pro deal number, 1..8589934591")
    g.add_argument("--deal", metavar="N", help=argparse.SUPPRESS if positional else
                   "Microsoft / FreeCell Pro deal number, 1..8589934591")
    g.add_argument("--board", metavar="FILE",
                   help="a board or position in Freecell Solver's text format ('-' for stdin)")
    g.add_argument("--code", metavar="CODE", type=code_arg,
                   help="a SiggySoft deal code, e.g. SOL1-freecell-cells=4-N1 (-N<n>, -C<n>, -S<seed>); spaces and "
                        "line breaks around it (a copy-paste) are ignored, none inside it")


def add_rules_args(p, counting=False):
    """--cells and --foundation-return (the spec's rules); with ``counting``, the counting mode too."""
    g = p.add_argument_group("rules")
    g.add_argument("--cells", metavar="K", type=cells_arg,
                   help="number of free cells, 0..8 (default 4, or the code's)")
    g.add_argument("--foundation-return", action="store_true",
                   help="allow a foundation's top card back onto a column")
    if counting:
        g.add_argument("--hand", metavar="N", type=hand_arg, default=0,
                       help="favors a game may use (0 or 1, default 0): while every free cell is full, a "
                            "column's top card held for one move, then put down (docs/HAND.md)")
    if counting:
        g.add_argument("--canonical", action="store_true",
                       help="counting mode: count positions up to the order of the columns")
        g.add_argument("--autoplay", choices=AUTOPLAY_CHOICES, default="none",
                       help="counting mode: 'safe' plays cards to the foundations automatically by seed 004's "
                            "rule (aces and twos always, others by a looser test than Horne's), 'horne' (aces "
                            "always, others once both opposite-colour foundations are one lower: Horne's rule), "
                            "'twos' (aces and twos only); default none (the spec). All three are proved to lose "
                            "no win without --foundation-return (coq/FreeCell/Autoplay.v): with it a complete "
                            "enumeration without a win says unknown, not unwinnable")
        g.add_argument("--supermoves", action="store_true",
                       help="counting mode: also move a run of k cards in one step when k <= (f+1)*2^e "
                            "(f empty free cells, e empty columns not counting the destination)")


def add_limit_args(p, what="stop after K positions (verdict unknown)", json=True):
    """--max-states K, --no-progress, and (``json``) --json."""
    p.add_argument("--max-states", metavar="K", type=max_states_arg, help=what)
    if json:
        p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_disk_args(p, tmp_default="the system's temporary folder"):
    """--memory M and --tmp DIR: the enumeration past memory (solver/disksearch.py)."""
    g = p.add_argument_group("past memory")
    g.add_argument("--memory", metavar="M", type=memory_arg,
                   help="the memory the enumeration may use, e.g. 16G or 512M: when the positions would not fit "
                        "(about 24 bytes each), it goes on breadth first by layers with the visited positions in "
                        "sorted, compressed files on disk (about 1 byte each; no default limit on positions then)")
    g.add_argument("--tmp", metavar="DIR", help=f"where the disk search's files go (default: {tmp_default}); "
                                                "removed at the end, on an error and on Ctrl-C")
    g.add_argument("--work-dir", metavar="DIR",
                   help="with --memory: a named folder for the disk search (on disk from the start, as with --on-disk; "
                        "made when missing; empty, or holding this search's state; one process at a time) instead of a "
                        "temporary one, so that it can be resumed: a checkpoint is "
                        "written at the end of every layer and the folder is kept when the search stops before its "
                        "end (--max-states, Ctrl-C, SIGTERM, an error); the same command again goes on from the last "
                        "finished layer (--memory and --max-states may change). Emptied and removed at the natural end")
    g.add_argument("--on-disk", action="store_true",
                   help="with --memory: go to disk at once, without trying in memory first (for a set known not to "
                        "fit: the attempt would cost the time of M / 24 positions)")
    for a in p._actions:        # --max-states K: up to 2**40 with --memory (check_disk_args)
        if "--max-states" in a.option_strings:
            a.type = disk_max_states_arg
            more = f"with --memory at most {DISK_MAX_STATES:,}"
            a.help = a.help[:-1] + f"; {more})" if a.help.endswith(")") else f"{a.help} ({more})"


def check_disk_args(args, rules):
    """--tmp, --work-dir and --on-disk only with --memory, --tmp not with --work-dir; --memory not with --hand
    (the disk search has no favor)."""
    if args.memory is None and (args.tmp is not None or args.on_disk or args.work_dir is not None):
        flag = "--tmp" if args.tmp is not None else "--work-dir" if args.work_dir is not None else "--on-disk"
        raise FreecellError(f"{flag} goes with --memory (the disk search)")
    if args.tmp is not None and args.work_dir is not None:
        raise FreecellError("--tmp and --work-dir: give one (--work-dir is the folder of a resumable search)")
    for flag, folder in (("--tmp", args.tmp), ("--work-dir", args.work_dir)):
        if folder is not None and not folder.strip():
            raise FreecellError(f"{flag} is empty: give a folder's name")
    if args.memory is not None and rules.hand:
        raise FreecellError("--memory: the disk search does not take --hand")
    if args.memory is None and (getattr(args, "max_states", None) or 0) > IN_MEMORY_MAX_STATES:
        raise FreecellError(f"--max-states above {IN_MEMORY_MAX_STATES:,} goes with --memory (the disk search: the "
                            f"search in memory numbers its positions with 31 bits)")


def add_command(sub, name, func, help, description=None, source=False, rules=False, counting=False, limit=None,
                json=True):
    """A subcommand calling ``func(args)``, with the shared flags it asks for: the source (``source``),
    the rules (``rules``; ``counting`` adds the counting mode), --max-states/--no-progress (``limit``: the
    help of --max-states) and --json (``json``, with ``limit``)."""
    p = sub.add_parser(name, help=help, description=description)
    p.subcommand = True
    if source:
        add_source_args(p)
    if rules:
        add_rules_args(p, counting)
    if limit:
        add_limit_args(p, limit, json)
    p.set_defaults(func=func)
    return p


# --- from the parsed arguments to values ---------------------------------------------------------------

def source_of(args):
    """The Source the flags name (read once: a board on stdin can be read only once)."""
    number = getattr(args, "number", None)
    if number is not None and args.deal is not None:
        raise FreecellError("give the deal number once: N or --deal N")
    return sources.load(number if number is not None else args.deal, args.board, args.code)


def rules_of(args, src=None):
    """The Rules of the flags, for the start ``src`` (a code's cells=K; the free-cell cards must fit)."""
    kw = {"foundation_return": bool(args.foundation_return),
          "autoplay": getattr(args, "autoplay", None) or "none", "canonical": bool(getattr(args, "canonical", False)),
          "supermoves": bool(getattr(args, "supermoves", False)), "hand": getattr(args, "hand", 0) or 0}
    if src is None:
        return Rules(cells=4 if args.cells is None else args.cells, **kw)
    return src.rules(cells=args.cells, **kw)


def progress_of(args):
    """A progress bar only for people: not with --json or --no-progress, and only on a terminal."""
    return not getattr(args, "json", False) and not getattr(args, "no_progress", False) and sys.stderr.isatty()


def fail(message):
    raise FreecellError(message)


@contextlib.contextmanager
def writing(path):
    """An output that cannot be written is one line: ``cannot write PATH: <reason>``."""
    try:
        yield
    except OSError as exc:
        raise FreecellError(f"cannot write {path}: {reason(exc, path)}") from None


# --- the runner ----------------------------------------------------------------------------------------

def _error(message, status):
    if sys.stdout is not None:
        sys.stdout.flush()
    print(f"error: {printable(message)}", file=sys.stderr)
    return status


OUTPUT_ARGS = ("out", "svg", "standalone")     # the flags naming a file that may be standard output
PATH_ARGS = {"out": "--out", "out_dir": "--out-dir", "lean_dir": "--lean-dir", "standalone": "--standalone",
             "svg": "--svg", "svg_dir": "--svg-dir", "dir": "the survey directory", "table": "--table",
             "certs": "--certs", "cert": "the certificate", "board": "--board", "from_survey": "--from-survey"}


# the flags naming a folder (--tmp and --work-dir: an empty one is check_disk_args's)
FOLDER_ARGS = {**{name: PATH_ARGS[name] for name in ("out_dir", "lean_dir", "svg_dir", "dir", "certs", "from_survey")},
               "tmp": "--tmp", "work_dir": "--work-dir"}


DEEPEST = 256          # the folders a path given on the command line may go down (os.makedirs recurses once a folder)


def check_paths(args):
    """An empty path (``--out ""``) is one line naming the flag: it would mean the current folder, or
    nothing at all, depending on who reads it. A folder given as ``-`` is one line too: ``-`` means
    standard input or output elsewhere, never a folder named so. So is a path more than DEEPEST folders
    deep (Python's recursion stopped the making of its folders)."""
    for name, flag in PATH_ARGS.items():
        value = getattr(args, name, None)
        if value == "" or (isinstance(value, list) and "" in value):
            raise FreecellError(f"{flag}: empty path")
    for name, flag in {**PATH_ARGS, **FOLDER_ARGS}.items():
        values = getattr(args, name, None)
        for value in values if isinstance(values, list) else [values]:
            if name in FOLDER_ARGS and value == "-":
                raise FreecellError(f"{flag}: '-' is not a folder (write ./- for a folder of that name)")
            if isinstance(value, str) and value.count("/") >= DEEPEST:
                raise FreecellError(f"{flag}: a path {value.count('/') + 1:,} names deep (at most {DEEPEST})")


_ARGV = []          # the command line being parsed (for Parser.error's hint about names starting with '-')


def run(parser, argv=None):
    """Parse and dispatch to ``args.func(args)``, SIGTERM taken as Ctrl-C while it runs; every error becomes one
    line ``error: …`` on stderr."""
    _ARGV[:] = sys.argv[1:] if argv is None else list(argv)

    def dispatch():
        args = parser.parse_args(argv)
        check_paths(args)
        if getattr(args, "func", None) is None:
            parser.print_help(sys.stderr)
            return 2
        if any(is_stdout(getattr(args, name, None)) for name in OUTPUT_ARGS):
            messages_to_stderr()        # before any text: the data owns standard output
        old_term = term_as_interrupt()      # SIGTERM: every command's Ctrl-C path (one line, exit 130)
        try:
            return args.func(args)
        finally:
            restore_term(old_term)
    status = one_line_errors(dispatch)
    ignore_when_taken(status == 130)    # a SIGTERM after the one taken or a Ctrl-C: ignored to the end, not a
    #                                     death by the signal after the command's one line
    return status


def one_line_errors(call):
    """``call()``'s exit status, every error it raises said in one line ``error: …`` on stderr (the
    commands' runner, :func:`run`, and the scripts/ entries: ``sys.exit(one_line_errors(main))``)."""
    if sys.stdout is None:          # started with standard output closed (`>&-`): every answer goes there
        return _error("standard output is closed: nothing could be said (give it a file, e.g. >/dev/null)", 2)
    try:
        return call()
    except FreecellError as exc:
        return _error(exc, 2)
    except (InternalError, WorkerLost) as exc:
        return _error(exc, 1)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            # The reader went away (e.g. `| head`): stop quietly, and keep Python from complaining at exit.
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except OSError:
                pass
            return 1
        where = f"{exc.filename}: " if exc.filename else ""
        return _error(f"{where}{reason(exc)}", 2)
    except MemoryError:
        # The C core's search (or Python) ran out of memory: a limit, so nothing is claimed. Said once out of
        # this block, which holds the exception's traceback and with it the frames' data that filled memory.
        pass
    except KeyboardInterrupt as exc:
        sys.stdout.flush()
        print(interrupted(exc), file=sys.stderr)
        return 130
    return _error(OUT_OF_MEMORY, 1)
