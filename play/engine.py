"""The one module of the web app that talks to the engine (``solver``) and the Lean side (``certgen``).

Everything the app needs from them goes through the functions below, so that a change of their APIs
is a change of this file only. Positions are the engine's plain tuples ``(cols, cells, home)``: eight
columns of card indices bottom -> top, the free-cell cards (sorted), the four foundation heights in
the order clubs, diamonds, hearts, spades. A single move is ``(card, src, dst)``: ``src``/``dst`` a
column 0..7, :data:`CELL` or :data:`HOME`.

What is trusted where:
  * :func:`apply_move` is the rules: a move is legal when the spec's legality test accepts it AND the
    position it gives is an element of ``spec.moves`` (solver/spec.py, the line-for-line transliteration
    of lean/FreeCell/Spec.lean). Supermoves are sequences of such moves (play/moves.py).
  * :func:`find_line` answers "winnable" only with a line that replays to a won position under
    ``spec.moves`` (solver.solve, strict mode), "unwinnable" only after the spec enumeration of every
    reachable position completed without a win, else "unknown".
"""
import os
from dataclasses import dataclass
from typing import List, Optional, Tuple

from certgen import certificate, names, prove, render
from certgen.paths import ROOT
from certgen.known import KNOWN as KNOWN_UNSOLVABLE     # the eight deals of 1..1,000,000 known unsolvable
from solver import analyze, board, cards, deals, difficulty, lines, packed, search, solve, spec
from solver import cliargs
from solver.atomic import write_atomic          # every output file: a temporary file, then a rename
from solver.errors import FreecellError
from solver.limits import PLAY_HINT_STATES, PLAY_VERDICT_STATES   # the page's search limits
from solver.rules import MAX_CELLS, Rules
from solver.source import Source, load

CELL = lines.CELL
HOME = lines.HOME
MAX_DEAL = deals.MAX_DEAL

card_name = cards.card_name          # 0..51 -> "TS"
pretty_name = cards.pretty_name      # 0..51 -> "10♠"
parse_card = cards.parse_card        # "TS", "10s", "Q♣" -> 0..51 (FreecellError otherwise)
rank = cards.rank                    # 0..51 -> 1..13


class IllegalMove(Exception):
    """A move the rules refuse; the message says why in one line."""


# --- where a game starts ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Start:
    """A start position and where it came from (the engine's Source: solver/source.py), the free cells it
    is played with and its name on the page. ``stem``: the file stem of its outputs, as the command lines
    name them (Deal11982, Deal617Cells3, Board<8 hex digits>)."""
    source: Source
    cells: int
    label: str

    @property
    def position(self) -> tuple:
        return self.source.position

    @property
    def deal(self) -> Optional[int]:
        return self.source.deal

    @property
    def code(self) -> Optional[str]:
        return self.source.code

    @property
    def rules(self) -> Rules:
        return Rules(cells=self.cells)

    @property
    def stem(self) -> str:
        return self.source.stem(self.rules)


def start_from(deal=None, code=None, board_text=None) -> Start:
    """The start for exactly one of a deal number (1..2**31-1), a SiggySoft code, a board text.
    FreecellError (one line) for bad input."""
    if sum(x is not None for x in (deal, code, board_text)) != 1:
        raise FreecellError("give exactly one of a deal number, a deal code or a board")
    if deal is not None:
        src = load(deal=deal)
        return Start(src, 4, f"deal #{src.deal}")
    if code is not None:
        src = load(code=code)
        return Start(src, src.cells, f"deal #{src.deal}" if src.deal is not None else src.code)
    pos = board.parse_board(board_text)
    if len(pos[1]) > 4:
        raise FreecellError(f"board: {len(pos[1])} cards in the free cells; pasted boards are played with 4")
    return Start(Source("board", pos, path="pasted"), 4, "pasted board")


def check_position(pos, cells) -> tuple:
    """``pos`` if it is a valid position (each card once) with at most ``cells`` free-cell cards."""
    board.validate_position(pos)
    if len(pos[1]) > cells:
        raise FreecellError(f"board: {len(pos[1])} cards in the free cells but the rules have {cells}")
    return (tuple(tuple(c) for c in pos[0]), tuple(sorted(pos[1])), tuple(pos[2]))


def position_key(pos, cells) -> bytes:
    """A byte key of a position under the rules (P64 and the cell count)."""
    return packed.pack(pos) + bytes([cells])


# --- the rules ----------------------------------------------------------------------------------------

def can_stack(c, parent) -> bool:
    """Does card ``c`` go on ``parent`` in a column (spec.canStack)?"""
    return spec.can_stack(spec.card_of_index(c), spec.card_of_index(parent))


def can_home(c, home) -> bool:
    """Does card ``c`` go on its foundation (spec.canHome)?"""
    return spec.can_home(tuple(home), spec.card_of_index(c))


def apply_move(pos, move, cells):
    """The position after one single-card move, checked twice: by the replay check written from the
    spec (solver.lines.apply_move) and by membership of the result in ``spec.moves``. IllegalMove
    (with the reason) otherwise."""
    rules = Rules(cells=cells)
    try:
        after = lines.apply_move(pos, move, rules)
    except lines.LineError as exc:
        raise IllegalMove(str(exc).split(": ", 1)[-1]) from None
    if spec.from_position(after) not in spec.moves(rules.spec(), spec.from_position(pos)):
        raise IllegalMove(f"{pretty_name(move[0])}: the position it gives is not one of the spec's moves")
    return after


def line_positions(pos, moves, cells):
    """The positions along a line ``find_line`` verified already, start excluded (the fast replay)."""
    out, rules = [], Rules(cells=cells)
    for m in moves:
        pos = lines.apply_move(pos, m, rules)
        out.append(pos)
    return out


def safe_autoplay(pos, cells):
    """The position after the safe automatic moves of seed 004 (the C core's FC_AUTOPLAY_SAFE)."""
    return search.autoplay(pos, Rules(cells=cells, autoplay="safe"))


# --- lines, verdicts, certificates --------------------------------------------------------------------

@dataclass
class Line:
    """``verdict``: "winnable" (``moves`` replays to a win under spec.moves), "unwinnable" (every position
    reachable from the start enumerated, none won) or "unknown"; ``states``: positions the searches
    stored; ``enumerated``: the spec enumeration's count when it ran; ``seconds``: wall time."""
    verdict: str
    moves: Optional[List[Tuple[int, int, int]]]
    states: int
    enumerated: Optional[int]
    seconds: float


def find_line(pos, cells, max_states) -> Line:
    # the play page shows the shortest lines the solver's post-pass gives (its difficulty thresholds in
    # catalog.py were measured on them); the commands' default is no post-pass (solve --shorten 2 = this)
    r = solve.solve(pos, Rules(cells=cells), max_states=max_states, shorten=2, strict=True)
    return Line(r.verdict, r.moves, r.states, r.enumerated, r.seconds)


def analyse(pos, cells, max_states):
    """(verdict, states, max cards home, frozen cards as indices) of the whole reachable set."""
    a = analyze.analyze(pos, Rules(cells=cells), max_states=max_states)
    return a.verdict, a.states, a.max_home, (a.frozen_cards or [])


def write_certificate(start: Start, path, max_states):
    """Enumerate the start and write its certificate to ``path`` (atomically) when the enumeration is
    complete and won nothing (certgen.prove.build). Returns the number of positions, or None (not
    unwinnable)."""
    b = prove.build(start.source, start.rules, path, max_states)
    return b.states if b.cert is not None else None


def write_lean(cert_path, out_path):
    """The standalone Lean file (spec, check, decoder, data, theorem) of a certificate, atomically."""
    render.render_standalone(certificate.read(cert_path), out_path)
    return out_path


def _lean_start(start: Start) -> str:
    return f"({render.SPEC_ROOT}msDeal {start.deal})" if start.deal is not None else "start"


def _rules_lean(start: Start) -> str:
    return render.rules_lean(start.rules, render.SPEC_ROOT)


def unwinnable_statement(start: Start) -> str:
    """The Lean theorem a certificate of ``start`` proves (as certgen's templates write it)."""
    return (f"theorem {names.theorem_short_name(start.deal)} : ∀ s, {render.SPEC_ROOT}Reachable "
            f"{_rules_lean(start)} {_lean_start(start)} s → ¬ {render.SPEC_ROOT}Won s")


def winnable_statement(start: Start) -> str:
    return (f"theorem {names.theorem_short_name(start.deal, 'winnable')} : ∃ s, {render.SPEC_ROOT}Reachable "
            f"{_rules_lean(start)} {_lean_start(start)} s ∧ {render.SPEC_ROOT}Won s")


SURVEY = os.path.join(ROOT, "docs", "difficulty-1-32000.csv")
_survey = {}


def survey_k(deal) -> Optional[int]:
    """The free cells ``deal`` needs by the free-cells survey of deals 1..32000 (docs/difficulty-1-32000.csv,
    read once), or None: not surveyed, undecided, or the file absent (an install without docs/)."""
    if not _survey:
        try:
            _survey.update(difficulty.read_csv(SURVEY)[0])     # its rows, each checked against its digest
        except (OSError, FreecellError):
            pass
        _survey.setdefault(0, None)          # read (or tried) once
    need = _survey.get(deal)
    return None if need is None else need.k


def size_of(text) -> int:
    """A size such as 1G, 500M or 64K (powers of 1024; solver/cliargs.py's reading). ValueError: one line."""
    try:
        return cliargs.memory_arg(text)
    except FreecellError as exc:
        raise ValueError(str(exc).replace("--memory ", "", 1)) from None
