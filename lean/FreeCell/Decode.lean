import FreeCell.Spec
import Std.Data.HashSet

/-!
# Decoding the certificate text (untrusted)

The generated modules hold their positions as text, one position per line (`docs/TRUST.md`):
for each of the 8 columns a digit `k` and then letters, the column being those cards (top card
first) followed by the bottom `k` cards of the start position's column; then optionally `|` and
the free-cell cards. Card `i` (= `Card.key`) is the letter 'A' + i for i < 26, 'a' + (i - 26)
after. The foundations hold whatever is in no column and no cell. Nothing here is trusted: a
decoding error yields wrong positions, and wrong positions can only make `checkCert` fail.
-/

namespace FreeCell

/-- 'A'…'Z' are the cards with key 0…25, 'a'…'z' those with key 26…51. -/
def cardOfChar (ch : Char) : Card :=
  let i := if ch.isUpper then ch.toNat - 65 else ch.toNat - 97 + 26
  ⟨i / 4 + 1, i % 4⟩

/-- The cards spelled by the letters at the head of `cs`, and what follows them. -/
def takeCards : List Char → List Card × List Char
  | ch :: cs =>
    if ch.isAlpha then
      let (cards, rest) := takeCards cs
      (cardOfChar ch :: cards, rest)
    else ([], ch :: cs)
  | [] => ([], [])

/-- The columns of one line, given the start position's columns; and the rest of the line. -/
def decodeCols : List (List Card) → List Char → List (List Card) × List Char
  | start :: starts, d :: cs =>
    let (top, rest) := takeCards cs
    let (cols, rest) := decodeCols starts rest
    let k := d.toNat - 48
    ((top ++ start.drop (start.length - k)) :: cols, rest)
  | _, cs => ([], cs)

/-- One line of the certificate text, as a position. -/
def decodeState (s₀ : State) (line : List Char) : State :=
  let (cols, rest) := decodeCols s₀.cols line
  let cells := (takeCards (rest.drop 1)).1
  let cards := cols.flatMap id ++ cells
  { cols := cols, cells := cells,
    home := (List.range 4).map fun k => 13 - (cards.filter fun c => c.suit == k).length }

/-- Split at `'\n'` (tail-recursive: a certificate has tens of thousands of lines). -/
def splitLines (cs : List Char) : List (List Char) :=
  go cs [] []
where
  go : List Char → List Char → List (List Char) → List (List Char)
    | [], cur, out => (cur.reverse :: out).reverse
    | ch :: cs, cur, out =>
      if ch == '\n' then go cs [] (cur.reverse :: out) else go cs (ch :: cur) out

/-- All positions of a certificate text (empty lines are skipped). -/
def decodeCert (s₀ : State) (text : String) : List State :=
  ((splitLines text.toList).filter fun l => !l.isEmpty).map (decodeState s₀)

/-- The certificate as a hash set, ready for `checkCert`. -/
def certSet (s₀ : State) (text : String) : Std.HashSet State :=
  Std.HashSet.ofList (decodeCert s₀ text)

end FreeCell
