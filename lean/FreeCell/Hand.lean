import FreeCell.Spec

/-!
# The hand: "one favor away" (an experiment, not part of any theorem)

docs/HAND.md defines the favor; `solver/hand.py` is the Python copy of `favors`. No certificate or
theorem of this project uses this file: the theorems speak of `Reachable` (Spec.lean), i.e. of
`Rules.hand = 0`.
-/

namespace FreeCell

/-- The favor (docs/HAND.md), only while every free cell is full: a column's top card `c` is held
in the hand, one move is made without it, then `c` is put down: onto its foundation, onto any
column (empty, or by the stacking rule), or into a free cell if one is empty. -/
def favors (r : Rules) (s : State) : List State :=
  if s.cells.length < r.cells then [] else
  (List.range 8).flatMap fun i =>
    match s.cols.getD i [] with
    | [] => []
    | c :: rest =>
      (moves r { s with cols := s.cols.set i rest }).flatMap fun t =>
        (if canHome t.home c then [{ t with home := t.home.set c.suit c.rank }] else []) ++
        toCols t c none ++
        (if t.cells.length < r.cells then [{ t with cells := insertSorted c t.cells }] else [])

/-- Reachable from `s₀` with `n` favors left (`r.hand` at the start): a move keeps `n`, a favor
uses one. Only the `--hand` experiments speak of it; the theorems speak of `Reachable`. -/
inductive ReachableHand (r : Rules) (s₀ : State) : Nat → State → Prop
  | deal : ReachableHand r s₀ r.hand s₀
  | step {n : Nat} {s t : State} : ReachableHand r s₀ n s → t ∈ moves r s → ReachableHand r s₀ n t
  | favor {n : Nat} {s t : State} : ReachableHand r s₀ (n + 1) s → t ∈ favors r s →
      ReachableHand r s₀ n t

end FreeCell
