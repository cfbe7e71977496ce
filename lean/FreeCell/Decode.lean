import FreeCell.Cert
import Std.Data.HashSet

/-!
# Decoding the certificate text (untrusted)

The generated modules hold their positions as text, one position per line (`docs/TRUST.md`):
for each of the 8 columns a digit `k` and then letters, the column being those cards (top card
first) followed by the bottom `k` cards of the start position's column; then optionally `|` and
the free-cell cards. Card `i` (= `Card.key`) is the letter 'A' + i for i < 26, 'a' + (i - 26)
after. The foundations hold whatever is in no column and no cell: the decoder counts the cards of
each suit as it reads them, in one pass over the text. Nothing here is trusted: a decoding error
yields wrong positions, and wrong positions can only make `checkCert` fail.
-/

namespace FreeCell

/-- 'A'…'Z' are the cards with key 0…25, 'a'…'z' those with key 26…51. -/
def cardOfChar (ch : Char) : Card :=
  let i := if ch.isUpper then ch.toNat - 65 else ch.toNat - 97 + 26
  ⟨i / 4 + 1, i % 4⟩

/-- What a card adds to the suit count: the decoder keeps the number of cards of suit `k` read so
far as the base-64 digit of weight `64 ^ k` of a single number (a suit has 13 cards). -/
def suitWeight (c : Card) : Nat := 64 ^ c.suit

/-- The cards spelled by the letters at the head of `cs`, the count `n` with them added, and what
follows them. -/
def takeCards : Nat → List Char → List Card × Nat × List Char
  | n, ch :: cs =>
    if ch.isAlpha then
      let c := cardOfChar ch
      let (cards, m, rest) := takeCards (n + suitWeight c) cs
      (c :: cards, m, rest)
    else ([], n, ch :: cs)
  | n, [] => ([], n, [])

/-- The columns of one line, given the start position's columns; the count with their cards
added; and the rest of the line. -/
def decodeCols : Nat → List (List Card) → List Char → List (List Card) × Nat × List Char
  | n, start :: starts, d :: cs =>
    let (top, n, rest) := takeCards n cs
    let bottom := start.drop (start.length - (d.toNat - 48))
    let n := bottom.foldl (fun (acc : Nat) (c : Card) => acc + suitWeight c) n
    let (cols, n, rest) := decodeCols n starts rest
    ((top ++ bottom) :: cols, n, rest)
  | n, _, cs => ([], n, cs)

/-- The foundations, given the suit count of the cards in the columns and cells: 13 minus the
number of cards of each suit. -/
def homeOfCount (n : Nat) : List Nat :=
  [13 - n % 64, 13 - n / 64 % 64, 13 - n / 4096 % 64, 13 - n / 262144 % 64]

/-- One line of the certificate text, as a position. -/
def decodeState (s₀ : State) (line : List Char) : State :=
  let (cols, n, rest) := decodeCols 0 s₀.cols line
  let (cells, n, _) := takeCards n (rest.drop 1)
  { cols := cols, cells := cells, home := homeOfCount n }

/-- Add the position on the line `cur` (its characters in reverse order) to `out`, unless the
line is empty. -/
def pushLine (s₀ : State) (cur : List Char) (out : List State) : List State :=
  if cur.isEmpty then out else decodeState s₀ cur.reverse :: out

/-- The positions of a certificate text, in one pass over its characters; `cur` is the current
line so far, reversed. Tail-recursive: a certificate has millions of characters. -/
def decodeChars (s₀ : State) : List Char → List Char → List State → List State
  | [], cur, out => pushLine s₀ cur out
  | ch :: cs, cur, out =>
    if ch == '\n' then decodeChars s₀ cs [] (pushLine s₀ cur out)
    else decodeChars s₀ cs (ch :: cur) out

/-- All positions of a certificate text (empty lines are skipped; the order does not matter). -/
def decodeCert (s₀ : State) (text : String) : List State :=
  decodeChars s₀ text.toList [] []

/-- The certificate as a hash set, ready for `checkCert`. -/
def certSet (s₀ : State) (text : String) : Std.HashSet State :=
  Std.HashSet.ofList (decodeCert s₀ text)

end FreeCell
