/-!
# FreeCell: the trusted specification

This file is all a reader has to believe: the cards, the Microsoft deal, the legal single-card
moves, reachability and winning. `solver/spec.py` is its line-for-line Python copy (both side by
side in `docs/SPEC.md`). It imports nothing, so it can be pasted verbatim into a standalone file.
-/

namespace FreeCell

/-- A card: rank 1 (ace) … 13 (king); suit 0 clubs, 1 diamonds, 2 hearts, 3 spades. -/
structure Card where
  rank : Nat
  suit : Nat
deriving DecidableEq, Repr

/-- Diamonds and hearts are red. -/
def Card.red (c : Card) : Bool := c.suit == 1 || c.suit == 2

/-- The card's place 0 … 51 in a fresh deck: A♣ A♦ A♥ A♠ 2♣ … K♠. -/
def Card.key (c : Card) : Nat := (c.rank - 1) * 4 + c.suit

/-- A position. Each column lists its cards top card first; the free cells are a set, kept
sorted by key; `home` is the height of each suit's foundation. -/
structure State where
  cols : List (List Card)
  cells : List Card
  home : List Nat
deriving DecidableEq, Repr

/-- The rules: how many free cells; may a foundation's top card come back onto a column? -/
structure Rules where
  cells : Nat := 4
  foundationReturn : Bool := false
  hand : Nat := 0  -- favors a game may use: only Hand.lean reads it (docs/HAND.md)
deriving Repr

/-- Microsoft FreeCell: four free cells, nothing comes back from the foundations. -/
def Rules.standard : Rules := {}

/-- MSVC `rand()`: seed ← seed · 214013 + 2531011 (mod 2³¹); it returns seed / 2¹⁶. -/
def lcg (seed : Nat) : Nat := (seed * 214013 + 2531011) % 2 ^ 31

/-- Deal `n` cards from `deck`: draw the card at index `j`, fill its hole with the last card. -/
def dealFrom : Nat → Nat → List Card → List Card
  | 0, _, _ => []
  | n + 1, seed, deck =>
    let seed := lcg seed
    let j := (seed / 2 ^ 16) % deck.length
    deck.getD j ⟨0, 0⟩ :: dealFrom n seed ((deck.set j (deck.getLastD ⟨0, 0⟩)).dropLast)

/-- FreeCell Pro's games 2³¹ … 2³³ − 1 (Freecell Solver's `gen_ms_boards__rand.h`): the seed runs
mod 2³²; the draw r is seed / 2¹⁶ mod 2¹⁵ + 2¹⁵ below 2³², seed / 2¹⁶ mod 2¹⁶ + 1 above. -/
def dealFromPro : Nat → Nat → Nat → List Card → List Card
  | 0, _, _, _ => []
  | n + 1, game, seed, deck =>
    let seed := (seed * 214013 + 2531011) % 2 ^ 32
    let r := if game < 2 ^ 32 then seed / 2 ^ 16 % 2 ^ 15 + 2 ^ 15 else seed / 2 ^ 16 % 2 ^ 16 + 1
    deck.getD (r % deck.length) ⟨0, 0⟩ ::
      dealFromPro n game seed ((deck.set (r % deck.length) (deck.getLastD ⟨0, 0⟩)).dropLast)

/-- The order in which game number `game` deals the cards of a fresh deck; games below 2³¹ are
Microsoft's, the others start from the seed `game` mod 2³². -/
def dealOrder (game : Nat) : List Card :=
  if game < 2 ^ 31 then dealFrom 52 game ((List.range 52).map fun i => ⟨i / 4 + 1, i % 4⟩)
  else dealFromPro 52 game (game % 2 ^ 32) ((List.range 52).map fun i => ⟨i / 4 + 1, i % 4⟩)

/-- Game number `game`: the cards go out left to right in rows of eight, so card `t` of the
order lands in column `t % 8`, and the last card dealt to a column is its top card. -/
def msDeal (game : Nat) : State :=
  let order := dealOrder game
  let col (i : Nat) : List Card :=
    (((List.range 52).filter (fun t => t % 8 == i)).reverse).map (fun t => order.getD t ⟨0, 0⟩)
  { cols := (List.range 8).map col, cells := [], home := [0, 0, 0, 0] }

/-- `c` may go onto `parent`: one rank lower and the other colour. -/
def canStack (c parent : Card) : Bool := parent.rank == c.rank + 1 && parent.red != c.red

/-- `c` may go to its foundation: it is the next card of its suit. -/
def canHome (home : List Nat) (c : Card) : Bool := home.getD c.suit 0 + 1 == c.rank

/-- Put `c` into the free cells, keeping them sorted by key. -/
def insertSorted (c : Card) : List Card → List Card
  | [] => [c]
  | d :: ds => if c.key ≤ d.key then c :: d :: ds else d :: insertSorted c ds

/-- `c` has been taken off (leaving `s`) from column `src` (`none`: from a free cell or a
foundation); put it on a column: an empty one, or one whose top card it stacks on. -/
def toCols (s : State) (c : Card) (src : Option Nat) : List State :=
  (List.range 8).filterMap fun j =>
    if src == some j then none else
    match s.cols.getD j [] with
    | [] => some { s with cols := s.cols.set j [c] }
    | p :: ps => if canStack c p then some { s with cols := s.cols.set j (c :: p :: ps) } else none

/-- Every position one legal single-card move away from `s`, in a fixed order. -/
def moves (r : Rules) (s : State) : List State :=
  let fromCols : List (Card × State × Option Nat) :=
    (List.range 8).filterMap fun i =>
      match s.cols.getD i [] with
      | [] => none
      | c :: rest => some (c, { s with cols := s.cols.set i rest }, some i)
  let fromCells : List (Card × State × Option Nat) :=
    s.cells.map fun c => (c, { s with cells := s.cells.erase c }, none)
  ((fromCols ++ fromCells).flatMap fun (c, s', src) =>
    -- to its foundation
    (if canHome s.home c then [{ s' with home := s'.home.set c.suit c.rank }] else []) ++
    -- onto an empty column, or onto a card one higher of the other colour
    toCols s' c src ++
    -- from a column into a free cell
    (if src.isSome && s'.cells.length < r.cells then [{ s' with cells := insertSorted c s'.cells }]
      else [])) ++
  -- from a foundation back onto a column (only when the rules allow it)
  (if r.foundationReturn then
    (List.range 4).flatMap fun k =>
      let h := s.home.getD k 0
      if h == 0 then [] else toCols { s with home := s.home.set k (h - 1) } ⟨h, k⟩ none
  else [])

/-- Every foundation is up to the king. -/
def won (s : State) : Bool := decide (s.home = [13, 13, 13, 13])

/-- The same, as a proposition: this is what the theorems speak of. -/
def Won (s : State) : Prop := s.home = [13, 13, 13, 13]

/-- Reachable from `s₀` under the rules `r`: the start, and anything one move from a reachable one. -/
inductive Reachable (r : Rules) (s₀ : State) : State → Prop
  | deal : Reachable r s₀ s₀
  | step {s t : State} : Reachable r s₀ s → t ∈ moves r s → Reachable r s₀ t

end FreeCell
