"""Difficulty by free cells needed (seed 004; issue 13): for a deal, the fewest free cells k with which
it can be won, proven both ways --

* k cells suffice: a winning line with k cells, replayed move by move under the spec rules (the survey's
  fast replay check, solver.lines.codes_to_moves, written from spec.moves and tested against it);
* k - 1 cells do not (when k > 0): the whole reachable set with k - 1 cells, under the spec rules
  (single-card moves, no automatic play), enumerated without a won position: with fixed columns in tiers
  1 to 3, up to the order of the columns in tiers 4 and 5, and in tier 5 with safe cards played home
  automatically (below).

Fewer cells can only do less (a game with c cells is a game with c + 1 cells that never uses the last
one), so one complete enumeration with k - 1 cells proves every count below k too.

How (per deal, a ladder of limit tiers, :data:`TIERS`, cheapest first):

1. the solver (solver.solve.solve: best-first with its speed-ups, the line replayed) with 0, 1, 2, 3, 4
   cells at the tier's solver limit; the fewest cells it wins with is the upper bound ``high``. When its
   own space runs out, solve() enumerates the spec rules with that many cells and a complete enumeration
   raises the lower bound ``low`` (cells below ``low`` are proven too few). In later tiers the solver is
   tried downwards from high - 1 (a win lowers ``high`` again). Tier 5's solver is the deep portfolio
   (solver.solve.DEEP: four pruned stages of 25,000,000 positions, then the unpruned one up to 100,000,000;
   about 6 GB): it wins #11744, #13599 and #14497 with 1 cell, whose 1-cell sets up to column order had
   passed 400,000,000 positions (#11744's 2,874,052,559 on disk).
2. ONE exhaustive enumeration with high - 1 cells (solver.search.explore, depth first, stopping at a
   win): a win (the solver missed it) lowers ``high`` and the step repeats; a complete enumeration
   without a win proves ``low = high``: k is decided. In tiers after the first, when ``low < high - 1``,
   the enumeration with ``low`` cells (the smallest set) comes first: complete without a win it raises
   ``low`` (#982: its 1-cell set is 269,217 positions, its 2-cell set 3,095,862,346 up to column order with safe
   automatic moves), a win decides.
3. A deal still undecided (a limit stopped a search) keeps its proven bounds and goes to the next tier
   (the survey's next pass). Nothing is guessed: an undecided deal is counted as undecided. Bounds proven
   inside a tier that is then stopped (killed, or an error) are kept too: before each further enumeration
   of the tier the survey's journal gets a row with them, marked as the tier before (the next sitting runs
   the tier again from them; #982: its 1-cell set complete, then its 2-cell enumeration stopped).

Tiers 4 and 5 enumerate the positions up to the order of the columns (``Rules(canonical=True)``: each
position stored once for all its column orders; the set can be a hundred times smaller). Tier 5 also plays
cards home automatically by seed 004's "safe" rule (``autoplay="safe"``), proved to
lose no win in coq/FreeCell/Autoplay.v (``unwinnable_of_safe_autoplay_fence_up_to_column_order``, rules
without foundation returns; docs/TRUST.md). That proves as much, by one lemma (docs/TRUST.md, "The difficulty survey"): permuting the eight columns
maps the moves of a position onto the moves of the permuted position (``spec.moves`` treats every column
alike) and leaves ``won`` unchanged, so the set of positions reachable, taken up to column order, is what
that enumeration walks, and it holds a won position exactly when the spec's fixed-column set does. The
lemma is proved in Coq about the Coq spec (coq/FreeCell/Columns.v), not in Lean, and tested here
(tests/solver/test_difficulty.py: ``spec.moves`` against permuted positions; the enumeration's set against the
fixed-column set taken up to column order); the C enumeration itself is not checked. A win found
there is replayed like any other, on the real columns: in memory the C core writes the line on them
(fc_search_moves), on disk solver.solve.judge takes it across (solver.lines.real_columns).

The last tier runs its enumeration on disk (solver.disksearch: breadth first by layers, the visited
positions in compressed files, about a byte a position, with a memory buffer): for the sets that pass what
memory holds. Its win counts only once a line to it replays under the spec rules (solver.solve.judge: the
line read back through the layer files; a win is deeper than the 32 layers kept apart, so the line from the
start to the oldest layer kept comes from further disk searches for its first position
(solver.disksearch.DiskSearch.full_line); the solver's line only when they fail; none: unknown). In a
survey with an output file each such enumeration has its own work folder, ``FILE.csv.work/<deal>-<k>/``
(:func:`work_name`: ``-canonical`` added up to column order, then ``-safe`` with automatic moves): a killed
survey started again goes on inside the same enumeration from its last finished layer, without running the
tier's solver again when the folder is that of the enumeration with high - 1 cells (:func:`resumes_on_disk`;
the row's ``states`` then leaves out the positions of the solver run in the sitting that was killed); the
folder is removed when the enumeration ends (complete, won, or at its limit: an
undecided deal's files are not kept).

Seed 004's classes: Easy k <= 1, Medium k = 2, Hard k = 3 or 4; a deal that needs more than 4 cells
(every position with 4 enumerated, none won) is counted apart ("more").

The survey (:func:`survey`) runs tier 1 on every deal, then each further tier on the deals still
undecided. With an output file FILE.csv it is resumable: its journal (solver/journal.py: SQLite in
FILE.csv.work/, locked against a second survey, one transaction a finished deal, each row with its SHA-256)
is read first (the deals it holds are not done again; an undecided one goes on from its bounds at its next
tier), and FILE.csv is exported from it at the end, one row a deal in deal order, each with its digest. A
run killed at any moment and started again with the same file goes on where it stopped. A FILE.csv without
its journal (brought from elsewhere, such as docs/difficulty-1-32000.csv) is taken in first: a row whose
digest does not match (edited by hand) and the rows of a deal that has two different ones are left out, and
those deals done again; a CSV of the older format (no digests) is refused in one line.
"""
import math
import os
import shutil
import sys
import time
from collections import namedtuple

from . import deals, search
from .atomic import write_atomic
from .disksearch import MIN_OVERFLOW, explore_disk, say_resume, work_state
from .errors import FreecellError, WorkerLost
from .journal import attach, csv_lines, digest, open_journal
from .limits import DIFFICULTY_TIERS, MIN_MEMORY, SOLVER_BYTES_PER_POSITION, STORE_BYTES_PER_POSITION_WORST
from .lines import codes_to_moves
from .progress import bar
from .report import plural
from .rules import Rules
from .solve import DEEP, judge, solve
from .verdict import decide
from .sigterm import restore_term, term_as_interrupt
from .workers import end_pool, orphan_watch, pool_folder, pool_results, start_pool

MAX_K = 4
# (solver limit, enumeration limit[, disk buffer]) per tier: positions stored (solver.limits.DIFFICULTY_TIERS,
# with what a position costs). An enumeration in memory: peak RSS 22.8 bytes a position measured at 550,000,000,
# 26.1 at 560,000,000 on a deal with positions past the key. A tier with a third figure enumerates on disk with
# a memory buffer of that many bytes (the visited layers about a byte a position on disk, the runs of a layer's
# successors more: 587 MB at the peak for deal 607's 1-cell set to 100,000,000 positions, 5.9 bytes a
# position). A tier whose solver limit is not above the tier before's runs no solver (it would repeat the same
# search).
Tier = namedtuple("Tier", "solver states buffer canonical deep autoplay", defaults=(None, False, False, "none"))
Tier.__doc__ = """A tier's limits: ``solver`` and ``states`` (positions stored), ``buffer`` (bytes: the enumeration
runs on disk with that buffer; None: in memory), ``canonical`` (the enumeration counts positions up to the
order of the columns), ``deep`` (the solver runs the deep portfolio, solver.solve.DEEP), ``autoplay`` (the
enumeration's automatic moves: "none", or "horne", "safe" or "twos", proved to lose no win in
coq/FreeCell/Autoplay.v). A plain
tuple of 2 to 6 such values is taken too."""
TIERS = tuple(Tier(*t) for t in DIFFICULTY_TIERS)
CLASSES = ("easy", "medium", "hard", "more", "undecided")
CSV_HEADER = ("deal", "k", "class", "proven_low", "win_with", "states", "tier", "sha256")
MEMORY_MARGIN = 1 << 29        # left to everything else when the budget follows the machine's memory

Need = namedtuple("Need", "deal k low high states tier")
Need.__doc__ = """k: the fewest cells, proven both ways (None when undecided); low: every count below it is
proven not enough (a complete enumeration with low - 1 cells had no won position); high: a replayed win
with that many cells (None: none found up to 4); states: positions stored by every search of this deal;
tier: the last limit tier (1-based) that worked on it."""


def _decided(low, high):
    return low == high or (high is None and low > MAX_K)


def _need(deal, low, high, states, tier):
    k = low if _decided(low, high) else None
    return Need(deal, k, low, high, states, tier)


def _solver(pos, k, limit, deep=False):
    """The solver with k cells (``deep``: its deep portfolio, solver.solve.DEEP): ("winnable" | "unwinnable" |
    "unknown", positions stored)."""
    r = solve(pos, Rules(cells=k), max_states=limit, strict=False,     # the line every command gives
              stages=DEEP if deep else None, recount=False)
    return r.verdict, int(r.states)


def _enumerate(pos, k, limit, canonical=False, autoplay="none"):
    """Every position with k cells (depth first, stopping at a win; ``canonical``: up to the order of the
    columns): ("winnable" with a replayed line | "unwinnable" when complete | "unknown" at the limit,
    positions stored)."""
    rules = Rules(cells=k, canonical=canonical, autoplay=autoplay)
    res = search.explore(pos, rules, max_states=limit, stop_on_win=True)
    try:
        line = None
        if res.won:     # the line on the real columns (fc_search_moves); LineError: a bug, never a win
            line, _final = codes_to_moves(pos, res.search.moves_to(res.won_index), rules.plain())
        return decide(res.won, res.complete, line, rules), res.states
    finally:
        res.close()


def _enumerate_on_disk(pos, k, limit, memory, work_dir=None, name="the enumeration", progress=False,
                       canonical=False, autoplay="none"):
    """The same on disk (breadth first, stopping at a win), with a buffer of ``memory`` bytes; a won
    position counts only when the line to it, read back through the layer files, replays to a win under the
    spec rules (else "unknown"); ``canonical``: up to the order of the columns. ``work_dir``: a folder to go on in (a search killed there resumes from its
    last finished layer, saying so on stderr); removed at the end, at the limit too. None: a temporary one."""
    rules = Rules(cells=k, canonical=canonical, autoplay=autoplay)
    try:
        res = explore_disk(pos, rules, memory, max_states=limit, progress=progress, stop_on_win=True,
                           work_dir=work_dir, on_resume=say_resume(name) if work_dir is not None else None,
                           desc=f"{name}, on disk", overflow=MIN_OVERFLOW)
    except FreecellError as e:      # the disk search's words name its CLI option, which the survey has not
        if work_dir is None:
            raise
        raise FreecellError(str(e).replace(f"--work-dir {work_dir}", f"the survey's work folder {work_dir}")
                            .replace("remove the folder or give another --work-dir", "remove that folder")
                            .replace("give another --work-dir", "remove that folder")) from None
    try:
        verdict, _line = judge(pos, res, rules)
    finally:
        res.close()            # an exception (Ctrl-C, SIGTERM, an error) keeps a work folder: to go on
    if work_dir is not None and res.status == "limit":      # kept at the limit: an undecided deal's files go
        shutil.rmtree(work_dir, ignore_errors=True)
    return verdict, res.states


def work_name(deal, k, canonical, autoplay="none"):
    """The name of a disk enumeration's work folder in the survey's: DEAL-K, with "-canonical" up to column
    order and "-safe" (or "-horne", "-twos") with automatic moves (a folder of another kind is another search:
    never resumed as this one)."""
    return f"{deal}-{k}" + ("-canonical" if canonical else "") + ("" if autoplay == "none" else f"-{autoplay}")


def tier_of(tier, tiers=TIERS):
    """The :class:`Tier` at index ``tier`` (0-based) of ``tiers``."""
    return Tier(*tiers[tier])


def disk_buffer(tier, tiers=TIERS):
    """The memory buffer of a tier whose enumeration runs on disk (bytes), else None."""
    return tier_of(tier, tiers).buffer


def runs_solver(tier, tiers=TIERS):
    """Whether tier ``tier`` (0-based) runs the solver: the first always, a later one only when its solver
    limit is above the tier before's (the same deterministic search again would find nothing new)."""
    t, before = tier_of(tier, tiers), tier_of(tier - 1, tiers) if tier else None
    return tier == 0 or t.solver > before.solver or (t.deep and not before.deep)


def resumes_on_disk(deal, k, tier, tiers=TIERS, work_root=None):
    """Whether tier ``tier`` goes on with a disk enumeration of ``deal`` with ``k`` cells from its work folder
    in ``work_root``: the folder is made only once the tier's solver has run to its end without a win, and the
    solver is deterministic, so the same tier in a later sitting skips it (it would find nothing new) and goes
    on with the enumeration at once. Only a folder holding a checkpoint counts (an empty one, or one a search
    left before its first checkpoint, does not: the solver runs)."""
    if work_root is None or tier == 0 or disk_buffer(tier, tiers) is None:
        return False
    t = tier_of(tier, tiers)
    return work_state(os.path.join(work_root, work_name(deal, k, t.canonical, t.autoplay))) == "state"


def refine(deal, tier, low=0, high=None, states=0, tiers=TIERS, work_root=None, buffer=None, progress=False,
           proven=None):
    """One tier (0-based index into ``tiers``) of the ladder for ``deal``, from the proven bounds
    ``low``/``high``; returns its :class:`Need`. A tier on disk (:func:`disk_buffer`) enumerates with a
    buffer of ``buffer`` bytes (default: the tier's), in ``work_root``/<deal>-<k> (None: a temporary folder),
    with a progress bar on stderr when ``progress``. ``proven``: called with a :class:`Need` of the tier not
    yet done (its ``tier`` the one before) whenever the bounds have moved and another enumeration starts, so
    that a sitting stopped in that enumeration keeps them (the survey's journal row; not in tier 1, whose
    deals start again from nothing)."""
    pos = deals.ms_deal(deal)
    said = (low, high)              # the bounds the journal has (proven: a row when they have moved)
    solver_limit, enum_limit, on_disk, canonical, deep, autoplay = tier_of(tier, tiers)
    top = MAX_K if high is None else high - 1
    if tier == 0:
        order = range(low, top + 1)              # upwards: the first win is the upper bound
    elif not runs_solver(tier, tiers) or resumes_on_disk(deal, top, tier, tiers, work_root):
        order = ()
    else:
        order = range(top, low - 1, -1)         # downwards from high - 1: each win lowers it
    for k in order:
        verdict, n = _solver(pos, k, solver_limit, deep)
        states += n
        if verdict == "winnable":
            high = k
            if tier == 0:
                break
        elif verdict == "unwinnable":
            low = max(low, k + 1)
            if tier > 0:
                break
        elif tier > 0:
            break
    smallest_first = tier > 0 and high is not None and low < high - 1
    while not _decided(low, high):
        k = MAX_K if high is None else high - 1
        if smallest_first:          # a gap of two or more: the smallest set first, which may raise low
            k, smallest_first = low, False
        if proven is not None and tier > 0 and (low, high) != said:
            proven(_need(deal, low, high, states, tier))        # this tier not done: its next sitting runs it
            said = (low, high)
        if on_disk is None:
            verdict, n = _enumerate(pos, k, enum_limit, canonical, autoplay)
        else:
            work_dir = None if work_root is None else os.path.join(work_root, work_name(deal, k, canonical, autoplay))
            verdict, n = _enumerate_on_disk(pos, k, enum_limit, buffer or on_disk, work_dir,
                                            f"deal {deal} with {k} cell{'s' if k != 1 else ''}", progress,
                                            canonical, autoplay)
        states += n
        if verdict == "winnable":
            high = k
        elif verdict == "unwinnable":
            low = k + 1
        elif high is not None and k < high - 1:     # the smallest set passed the limit: high - 1 may still win
            continue
        else:
            break
    return _need(deal, low, high, states, tier + 1)


def cells_needed(deal, tiers=TIERS, work_root=None):
    """The :class:`Need` of Microsoft deal ``deal`` after as many tiers as it takes (or all of them)."""
    n = refine(deal, 0, tiers=tiers)
    for t in range(1, len(tiers)):
        if n.k is not None:
            break
        n = refine(deal, t, n.low, n.high, n.states, tiers=tiers, work_root=work_root)
    return n


def klass(n: Need):
    if n.k is None:
        return "undecided"
    if n.k > MAX_K:
        return "more"
    return "easy" if n.k <= 1 else "medium" if n.k == 2 else "hard"


def counts_of(needs):
    counts = {c: 0 for c in CLASSES}
    for n in needs:
        counts[klass(n)] += 1
    return counts


# --- rows, the journal and the CSV ----------------------------------------------------------------------

def _cell(v):
    return "" if v is None else str(v)


def _body(n: Need):
    return {"k": n.k, "low": n.low, "high": n.high, "states": n.states, "tier": n.tier}


def row_digest(n: Need):
    """The SHA-256 of a deal's row: the journal's record digest (solver.journal.digest), which the CSV keeps."""
    return digest("deal", n.deal, _body(n), None, klass(n))


def row_text(n: Need):
    return ",".join((str(n.deal), _cell(n.k), klass(n), str(n.low), _cell(n.high), str(n.states), str(n.tier),
                     row_digest(n)))


def csv_text(needs):
    return ",".join(CSV_HEADER) + "\n" + "".join(row_text(n) + "\n" for n in needs)


def _whole(text):
    """A number as the journal writes it (ASCII digits, no sign, space or underscore), else ValueError."""
    if not (text.isascii() and text.isdigit()) or (len(text) > 1 and text[0] == "0"):
        raise ValueError(text)
    return int(text)


def _parse_row(fields):
    deal, k, klass_word, low, high, states, tier = fields
    n = Need(_whole(deal), None if k == "" else _whole(k), _whole(low), None if high == "" else _whole(high),
             _whole(states), _whole(tier))
    if klass_word != klass(n):
        raise ValueError("class")
    if not _sound(n):
        raise ValueError("inconsistent bounds")
    return n


def _sound(n: Need):
    """Whether a row's bounds hold together (k from them, within 0..MAX_K + 1, a tier there is, a deal there is)."""
    return not (n != _need(n.deal, n.low, n.high, n.states, n.tier) or not 0 <= n.low <= MAX_K + 1
                or (n.high is not None and not n.low <= n.high <= MAX_K) or not 1 <= n.tier <= len(TIERS)
                or n.states < 0 or not 1 <= n.deal <= deals.MAX_DEAL)


OLD_HEADER = CSV_HEADER[:-1]


def read_csv(path):
    """({deal: Need}, {deals left out}) from the difficulty CSV at ``path`` (an export of the survey's journal:
    one row a deal, each with its SHA-256). A row whose digest does not match (an edit by hand) is left out,
    and so is every row of a deal that has two different rows: those deals are done again; an exact copy of
    a row counts once. A file that is not a difficulty CSV, a row that cannot be one, or a CSV of the older
    format (no digests) is one error line."""
    if not os.path.exists(path):
        return {}, set()
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        return {}, set()
    first = data.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    if first == ",".join(OLD_HEADER):
        raise FreecellError(f"{path} is a difficulty CSV of the older format (no sha256 column: its rows cannot "
                            f"be checked); give another --out, or run the survey again")
    if first != ",".join(CSV_HEADER):
        raise FreecellError(f"{path} is not a difficulty CSV (its first line is not {','.join(CSV_HEADER)}); "
                            f"give another --out")
    out, bad, seen = {}, set(), {}
    for i, fields in enumerate(csv_lines(path, data.decode("utf-8", "replace")), start=1):
        if i == 1 or not fields:
            continue
        try:
            if len(fields) != len(CSV_HEADER):
                raise ValueError("fields")
            n = _parse_row(fields[:-1])
        except ValueError:
            raise FreecellError(f"{path}, line {i}: not a difficulty row: {','.join(fields)!r}") from None
        if fields[-1] != row_digest(n) or seen.get(n.deal, n) != n:
            bad.add(n.deal)
        seen[n.deal] = n
        out[n.deal] = n
    for d in bad:
        out.pop(d, None)
    return out, bad


def _from_record(deal, body, verdict):
    """The Need a journal record holds, or None when it holds none (a record written by hand with its digest,
    of another shape or with bounds that do not hold together: that deal is done again)."""
    def whole(v):
        return isinstance(v, int) and not isinstance(v, bool)

    if not isinstance(body, dict) or set(body) != set(Need._fields[1:]):
        return None
    n = Need(deal, *(body[f] for f in Need._fields[1:]))
    if not all(whole(v) for v in (n.low, n.states, n.tier)) or not all(v is None or whole(v) for v in (n.k, n.high)):
        return None
    return n if _sound(n) and verdict == klass(n) else None


def _journal_needs(j):
    """{deal: Need} of the journal's records that hold one."""
    return {d: n for d, _l, v, body in j.rows("deal") for n in [_from_record(d, body, v)] if n is not None}


def _record(j, n: Need):
    j.record("deal", n.deal, _body(n), None, klass(n))


def _open_journal(folder, csv_path):
    """The survey's journal in ``folder`` (locked), with the rows of the CSV at ``csv_path`` for the deals it
    does not hold yet (a CSV brought from elsewhere: each row checked against its digest, read_csv); a row
    left out is said on stderr. Returns (journal, {deal: Need})."""
    j = open_journal(folder, "difficulty survey", other="--out file")
    try:
        known = _journal_needs(j)
        rows, dropped = read_csv(csv_path)
    except BaseException:
        j.close()
        raise
    new = [n for d, n in sorted(rows.items()) if d not in known]
    dropped = len(dropped - set(known))
    j.record_many(("deal", n.deal, _body(n), None, klass(n)) for n in new)
    known.update((n.deal, n) for n in new)
    if dropped:
        print(f"{csv_path}: {plural(dropped, 'deal')} with a row that does not match its digest, or two "
              f"different rows: done again", file=sys.stderr, flush=True)
    return j, known


# --- the survey -----------------------------------------------------------------------------------------

def _work(task):
    deal, tier, low, high, states, tiers, work_root, buffer, progress, folder = task
    proven = None if folder is None else (lambda n: _proven(folder, n))
    return refine(deal, tier, low, high, states, tiers=tiers, work_root=work_root, buffer=buffer, progress=progress,
                  proven=proven)


def _proven(folder, n):
    """A row of a tier not yet done (refine's ``proven``) recorded in the journal of ``folder``: in this process
    or in a forked worker, through a connection of its own (solver.journal.attach)."""
    with attach(folder) as j:
        _record(j, n)


def _pool_work(task):
    """_work in a pool's process: the pool's terminate (the survey stopped) sends SIGTERM, which a disk
    search turns into KeyboardInterrupt to keep its work folder; then the process ends quietly."""
    try:
        return _work(task)
    except KeyboardInterrupt:
        os._exit(1)


def _pool_chunk(tasks):
    return [_pool_work(t) for t in tasks]


def machine_memory(meminfo="/proc/meminfo"):
    """Bytes of memory free for new work: MemAvailable of ``meminfo`` (Linux), else the physical memory
    (os.sysconf), else None."""
    try:
        with open(meminfo, encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def memory_budget(available=None):
    """Bytes the survey's processes may take together: ``available`` (default: :func:`machine_memory`, read
    now) less MEMORY_MARGIN; 12 GB when the machine does not say."""
    if available is None:
        available = machine_memory()
    if available is None:
        return 12 << 30
    return max(available - MEMORY_MARGIN, 0)


def job_memory(tier, tiers=TIERS):
    """Bytes one process of a tier may take: its enumeration in memory (STORE_BYTES_PER_POSITION_WORST a
    position), or on
    disk its buffer and the overflow set's floor (MIN_OVERFLOW); or its solver's (:func:`solver_memory`) when
    that is more (the two run one after the other).

    The overflow set holds the positions past the disk search's key, in memory. The key has 24 bytes (191 bits)
    and holds every position (at most 179 bits), so the set stays empty and a survey's disk enumeration gives it
    only its floor, 1 MiB (a position that did not pack would stop the search with "nothing is claimed")."""
    t = tier_of(tier, tiers)
    b = disk_buffer(tier, tiers)
    enumeration = t.states * STORE_BYTES_PER_POSITION_WORST if b is None else b + MIN_OVERFLOW
    return max(enumeration, solver_memory(tier, tiers))


def solver_memory(tier, tiers=TIERS):
    """Bytes the solver of a tier may take (SOLVER_BYTES_PER_POSITION a position of its limit); 0 when the tier
    runs no solver (:func:`runs_solver`)."""
    return tier_of(tier, tiers).solver * SOLVER_BYTES_PER_POSITION if runs_solver(tier, tiers) else 0


def jobs_for(tier, jobs, tiers=TIERS, budget=None):
    """Processes for a tier: ``jobs``, fewer when their memory together (job_memory each) would pass
    ``budget`` (bytes; default: :func:`memory_budget`), at least one."""
    if budget is None:
        budget = memory_budget()
    return max(1, min(jobs, budget // job_memory(tier, tiers)))


def buffer_for(tier, jobs, tiers=TIERS, budget=None):
    """The disk buffer of each of ``jobs`` processes in a tier on disk: the tier's, smaller when ``jobs`` of
    them (and their overflow sets' floors) would pass ``budget``; None for a tier in memory."""
    b = disk_buffer(tier, tiers)
    if b is None:
        return None
    if budget is None:
        budget = memory_budget()
    return max(MIN_MEMORY, min(b, budget // jobs - MIN_OVERFLOW))


TierRun = namedtuple("TierRun", "tier jobs buffer budget")
TierRun.__doc__ = """A tier as a survey ran it (``tier`` 1-based): its processes and the disk buffer of each (None: a
tier in memory), after the memory budget (``budget``, bytes) lowered them (:func:`jobs_for`, :func:`buffer_for`)."""


def binary_size(n, down=False):
    """Bytes in words, in powers of 1024: 4 GiB, 1.2 GiB, 409.6 KiB, 64 KiB. ``down``: rounded down, not to the
    nearest (a buffer 1 MiB below 4 GiB is 3.9 GiB, not 4 GiB beside the 4 GiB it is smaller than)."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            x = n / (1 << shift)
            if down:
                x = math.floor(x * 10) / 10
            return f"{x:.1f}".rstrip("0").rstrip(".") + f" {unit}"
    return f"{n} B"


def smaller_buffer_words(run, tiers=TIERS):
    """The line said on stderr when a tier on disk runs with a smaller buffer than its own (a smaller budget
    than it needs: the same answer, more runs to merge) or its solver may pass the budget, or a tier in memory
    has one process bigger than the budget (it runs all the same: one process at least), else None."""
    own = disk_buffer(run.tier - 1, tiers)
    if own is None:
        need = job_memory(run.tier - 1, tiers)
        if need <= run.budget:
            return None
        return (f"tier {run.tier}: one process may take {binary_size(need)}, above the memory budget "
                f"{binary_size(run.budget)}: it runs anyway (an enumeration in memory stops at its limit of "
                f"positions, not at the budget)")
    said = []
    share = f" for {run.jobs} jobs" if run.jobs > 1 else ""
    if run.buffer is not None and run.buffer < own:
        said.append(f"disk buffer {binary_size(run.buffer, down=True)} instead of {binary_size(own)} (memory "
                    f"budget {binary_size(run.budget)}{share}): slower, same answer")
    solver = solver_memory(run.tier - 1, tiers)
    if solver > run.budget // max(run.jobs, 1):
        said.append(f"its solver may take {binary_size(solver)}, above the memory budget "
                    f"{binary_size(run.budget)}{share}: it runs anyway (the solver stops at its limit of "
                    f"positions, not at the budget)")
    return f"tier {run.tier}: " + "; ".join(said) if said else None


def _run_tier(tasks, jobs, journal, done, b, chunk=4, temporary=False):
    """The tasks' refine (in a pool of ``jobs`` processes) into ``done`` and the journal (None: none), one
    transaction a deal. ``temporary``: their
    disk searches make temporary folders, which then go in one this process removes when the pool has ended
    (solver.workers.pool_folder): a worker killed with SIGKILL cannot remove its own."""
    tmp = pool = None
    lost = False
    old_term = term_as_interrupt()      # SIGTERM: the Ctrl-C path (the workers stopped, one line), from before
    try:                                # the pool starts (a SIGTERM held during its fork comes after)
        if jobs <= 1 or len(tasks) <= 1:
            results = map(_work, tasks)
        else:
            tmp = pool_folder() if temporary else None
            pool = start_pool(jobs, orphan_watch, (os.getpid(), tmp))
            # chunks made here, not by imap_unordered's chunksize (which hides the pool's own iterator, the
            # one pool_results needs to wait with a timeout)
            parts = pool_results(pool, pool.imap_unordered(_pool_chunk, [tasks[i:i + chunk]
                                                                          for i in range(0, len(tasks), chunk)]))
            results = (n for part in parts for n in part)
        for n in results:
            done[n.deal] = n
            if journal is not None:
                _record(journal, n)
            b.update(1)
    except WorkerLost:
        lost = True
        raise
    finally:
        restore_term(old_term)
        if pool is not None:
            end_pool(pool, lost, tmp)
        elif tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def work_root_of(journal):
    """The survey's folder beside its CSV (FILE.csv.work): its journal (solver/journal.py) and the disk tier's
    work folders; None without a CSV."""
    return None if journal is None else journal + ".work"


def survey(first, last, jobs=1, tiers=TIERS, journal=None, progress=False, budget=None, ran=None):
    """[Need] for deals first..last in deal order, and the counts per class. ``journal``: the CSV file of the
    survey: its journal (solver/journal.py) and the disk tier's work folders go in the folder beside it
    (:func:`work_root_of`), where each deal finished is recorded at once (a restarted run goes on from there;
    the rows of a CSV brought from elsewhere are taken in first, each checked against its digest), and the
    CSV is exported from the journal at the end (one row a deal, in deal order; rows of deals outside the
    range are kept). ``budget``: bytes the processes may take together (default: the
    machine's available memory when each tier starts, :func:`memory_budget`); a tier on disk whose buffer it
    makes smaller says so on stderr (:func:`smaller_buffer_words`). ``ran``: a list each tier that runs is
    appended to, as a :class:`TierRun` (the jobs and buffer it used). Returns (needs, counts, seconds,
    resumed) -- resumed: the deals of the range found in the journal."""
    t0 = time.perf_counter()
    root = work_root_of(journal)
    if root is not None and os.path.lexists(root) and not os.path.isdir(root):
        raise FreecellError(f"{root}: the survey's work folder (its journal, its enumerations on disk) is not a "
                            f"folder: remove it, or give another --out")
    j, known = _open_journal(root, journal) if journal else (None, {})
    done = {d: n for d, n in known.items() if first <= d <= last}
    resumed = len(done)
    old_term = term_as_interrupt()      # SIGTERM between two tiers too: the Ctrl-C path, never a silent 143
    try:
        for tier in range(len(tiers)):
            if tier == 0:
                todo = [(d, 0, None, 0) for d in range(first, last + 1) if d not in done]
            else:
                # Fewer cells first (a smaller set to enumerate: most deals decided per second).
                todo = [(n.deal, n.low, n.high, n.states) for n in
                        sorted(done.values(), key=lambda n: (MAX_K + 1 if n.high is None else n.high, n.deal))
                        if n.k is None and n.tier == tier]
            if not todo:
                continue
            most = memory_budget() if budget is None else budget
            n_jobs = min(jobs_for(tier, jobs, tiers, most), len(todo))
            buffer = buffer_for(tier, n_jobs, tiers, most)
            run = TierRun(tier + 1, n_jobs, buffer, most)
            slower = smaller_buffer_words(run, tiers)
            if slower:
                print(slower, file=sys.stderr, flush=True)
            if ran is not None:
                ran.append(run)
            inner = progress and n_jobs == 1 and buffer is not None     # one disk search at a time: its own bar
            tasks = [(d, tier, low, high, states, tiers, root, buffer, inner, root)
                     for d, low, high, states in todo]
            with bar(progress, total=len(tasks), unit=" deals", desc=f"difficulty, tier {tier + 1}",
                     smoothing=0.05) as b:
                try:
                    _run_tier(tasks, n_jobs, j, done, b, chunk=4 if tier == 0 else 1,   # later: long deals
                              temporary=buffer is not None and root is None)        # on disk, no work folders
                except WorkerLost as exc:
                    kept = (f"every deal finished is in the journal in {root}: the same command goes on from "
                            f"there" if journal else "without --out nothing is kept")
                    raise WorkerLost(f"tier {tier + 1}: {exc}; {kept} (fewer --jobs or a lower --memory leave "
                                     f"each process more room)") from None
        if j is not None:
            write_atomic(journal, csv_text(n for _d, n in sorted(_journal_needs(j).items())))
    finally:
        restore_term(old_term)
        if j is not None:
            j.close()
    needs = [done[d] for d in range(first, last + 1)]
    return needs, counts_of(needs), time.perf_counter() - t0, resumed
