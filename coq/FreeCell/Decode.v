(** * Decoding the certificate data, and the key of a position (untrusted)

The generated files hold their positions in arrays of Coq's primitive 63-bit integers, each a
stream of 6-bit symbols, ten to an integer (the lowest bits first), holding a whole number of
positions. Each position is written against the one before it (the first against the start
position): two symbols of mask (bit `i` for column `i`, bit 8 for the free cells: set when that
part differs from the previous position's), then, for each column whose bit is set, `d` (how many
of the start position's cards are gone from the top of that column), the cards now on top of the
rest (top card first, card `i` written `i + 1`, `Card.key` order) and a 0; then, if bit 8 is set,
the free-cell cards (sorted by key) and a 0. The foundations hold whatever is in no column and no
cell. `certgen/coq.py` writes this form from the certificate file.

Nothing here is trusted, and no proof mentions it: a decoding error yields wrong positions, wrong
positions can only make `checkCert` fail, and `hashKey` only decides which bucket a position goes in
(see `Cert.v`). *)

From Coq Require Import List Bool Arith NArith PArith FMapPositive PrimInt63 Uint63 PArray.
From FreeCell Require Import Spec Cert Fast.
Import ListNotations.

(** ** The key of a position: a 20-bit hash, as a `positive` *)

(** The card's key, `Spec.v`'s `key`. *)
Definition cardInt (c : FCard) : int :=
  match c with
  | k0 => 0 | k1 => 1 | k2 => 2 | k3 => 3 | k4 => 4 | k5 => 5 | k6 => 6 | k7 => 7
  | k8 => 8 | k9 => 9 | k10 => 10 | k11 => 11 | k12 => 12 | k13 => 13 | k14 => 14 | k15 => 15
  | k16 => 16 | k17 => 17 | k18 => 18 | k19 => 19 | k20 => 20 | k21 => 21 | k22 => 22 | k23 => 23
  | k24 => 24 | k25 => 25 | k26 => 26 | k27 => 27 | k28 => 28 | k29 => 29 | k30 => 30 | k31 => 31
  | k32 => 32 | k33 => 33 | k34 => 34 | k35 => 35 | k36 => 36 | k37 => 37 | k38 => 38 | k39 => 39
  | k40 => 40 | k41 => 41 | k42 => 42 | k43 => 43 | k44 => 44 | k45 => 45 | k46 => 46 | k47 => 47
  | k48 => 48 | k49 => 49 | k50 => 50 | k51 => 51
  end%uint63.

(** The hash reads the top two cards of each column and the free cells, not every card: a lookup compares
the position with its bucket card by card anyway, and positions of one certificate that agree on these
are few. *)
Definition hashTop (h : int) (col : list FCard) : int :=
  match col with
  | [] => h * 1000003 + 63
  | [c] => (h * 1000003 + cardInt c) * 1000003 + 63
  | c :: d :: _ => (h * 1000003 + cardInt c) * 1000003 + cardInt d
  end%uint63.

(* Written out as fixpoints, not `fold_left` with a closure: this runs on every position looked up. *)
Fixpoint hashCards (h : int) (l : list FCard) : int :=
  match l with [] => h | c :: l => hashCards (h * 1000003 + cardInt c)%uint63 l end.

Fixpoint hashCols (h : int) (l : list (list FCard)) : int :=
  match l with [] => h | col :: l => hashCols (hashTop h col) l end.

(** The lowest `n` bits of `h`, pushed onto `acc`. *)
Fixpoint bitsPos (n : nat) (h : int) (acc : positive) : positive :=
  match n with
  | O => acc
  | S n => bitsPos n (h >> 1)%uint63 (if (h land 1 =? 0)%uint63 then xO acc else xI acc)
  end.

(** The keys of the low 12 bits, computed once: a key then costs 8 steps of `bitsPos`, not 20. *)
Definition keyTable : array positive :=
  snd (N.iter 4096 (fun '(i, t) => ((i + 1)%uint63, PArray.set t i (bitsPos 12 i xH))) (0%uint63, PArray.make 4096 xH)).

Definition hashKey (s : FState) : positive :=
  let h := hashCards (hashCols 1 (fcols s)) (fcells s) in
  let h := (h lxor (h >> 23) lxor (h >> 41))%uint63 in
  bitsPos 8 (h >> 12)%uint63 (PArray.get keyTable (h land 4095)%uint63).

(** ** Reading the symbol stream *)

(** Where the reader is: the next word to load, the symbols left of the current one, how many. *)
Record Cursor := cursor { word : int; cur : int; left : nat }.

Definition cursor0 : Cursor := cursor 0 0 0.

Definition next (a : array int) (c : Cursor) : int * Cursor :=
  match left c with
  | O => let w := PArray.get a (word c) in
         ((w land 63)%uint63, cursor (word c + 1)%uint63 (w >> 6)%uint63 9)
  | S l => ((cur c land 63)%uint63, cursor (word c) (cur c >> 6)%uint63 l)
  end.

Fixpoint intOfNat (n : nat) : int := match n with O => 0%uint63 | S n => (intOfNat n + 1)%uint63 end.

(** Card `i` is at index `i + 1`. *)
Definition cardTable : array FCard :=
  fold_left (fun t i => PArray.set t (intOfNat (S i)) (ofCard (card (i / 4 + 1) (i mod 4)))) (seq 0 52)
    (PArray.make 53 k0).

(** Height `i` is at index `i`. *)
Definition numTable : array Num :=
  fold_left (fun t i => PArray.set t (intOfNat i) (numOfNat i)) (seq 0 14) (PArray.make 14 r0).

(** How many cards of each suit. *)
Record Counts := counts { nclubs : int; ndiamonds : int; nhearts : int; nspades : int }.

Definition countCard (n : Counts) (c : FCard) : Counts :=
  let (a, b, d, e) := n in
  match fsuit c with
  | clubs => counts (a + 1) b d e
  | diamonds => counts a (b + 1) d e
  | hearts => counts a b (d + 1) e
  | spades => counts a b d (e + 1)
  end%uint63.

Definition partCounts (l : list FCard) : Counts := fold_left countCard l (counts 0 0 0 0).

Definition addCounts (n m : Counts) : Counts :=
  let (a, b, d, e) := n in let (a', b', d', e') := m in counts (a + a') (b + b') (d + d') (e + e')%uint63.

(** The foundations: what is in no column and no cell, from the counts of the eight columns and the cells
(kept from one position to the next, so only the parts that changed are counted again). *)
Definition homeOf (ns : list Counts) : list Num :=
  let (a, b, d, e) := fold_left addCounts ns (counts 0 0 0 0) in
  map (fun k => PArray.get numTable (13 - k)%uint63) [a; b; d; e].

(** Cards up to the next 0 (at most `fuel` of them). *)
Fixpoint readCards (table : array FCard) (fuel : nat) (a : array int) (c : Cursor)
  : list FCard * Cursor :=
  match fuel with
  | O => ([], c)
  | S fuel =>
    let (x, c) := next a c in
    if (x =? 0)%uint63 then ([], c) else
    let (cs, c) := readCards table fuel a c in (PArray.get table x :: cs, c)
  end.

(** `l` without its first `d` elements. *)
Fixpoint dropInt {A} (l : list A) (d : int) : list A :=
  match l with
  | [] => []
  | _ :: xs => if (d =? 0)%uint63 then l else dropInt xs (d - 1)%uint63
  end.

(** The columns and their counts: those whose bit is clear in `mask` are the previous position's, the
others are read from the stream (relative to the start position's column). *)
Fixpoint readCols (table : array FCard) (starts prevs : list (list FCard)) (ns : list Counts) (mask : int)
  (a : array int) (c : Cursor) : list (list FCard) * list Counts * Cursor :=
  match starts, prevs, ns with
  | st :: sts, pv :: pvs, n :: ns =>
    if (mask land 1 =? 0)%uint63 then
      let '(cs, ns, c) := readCols table sts pvs ns (mask >> 1)%uint63 a c in (pv :: cs, n :: ns, c)
    else
      let (d, c) := next a c in
      let (top, c) := readCards table 60 a c in
      let col := top ++ dropInt st d in
      let '(cs, ns, c) := readCols table sts pvs ns (mask >> 1)%uint63 a c in
      (col :: cs, partCounts col :: ns, c)
  | _, _, _ => ([], [], c)
  end.

(** The counts of a position's parts: its eight columns, then its free cells. *)
Definition stateCounts (s : FState) : list Counts := map partCounts (fcols s) ++ [partCounts (fcells s)].

(** One position, given the start position and the previous position of the stream (with its parts'
counts): two symbols of mask (bit `i` for column `i`, bit 8 for the free cells: written anew), then what
changed. *)
Definition readState (table : array FCard) (s0 prev : FState) (ns : list Counts) (a : array int) (c : Cursor)
  : FState * list Counts * Cursor :=
  let (m0, c) := next a c in
  let (m1, c) := next a c in
  let mask := (m0 lor (m1 << 6))%uint63 in
  let '(cs, colNs, c) := readCols table (fcols s0) (fcols prev) ns mask a c in
  let '(cl, n, c) :=
    if (mask land 256 =? 0)%uint63 then (fcells prev, last ns (counts 0 0 0 0), c)
    else let (cl, c) := readCards table 60 a c in (cl, partCounts cl, c) in
  let ns := colNs ++ [n] in
  (fstate cs cl (homeOf ns), ns, c).

(** ** The set *)

Definition insert (c : FSet) (s : FState) : FSet :=
  let k := hashKey s in
  PositiveMap.add k (s :: match PositiveMap.find k c with Some b => b | None => [] end) c.

(** The positions of the chunks (each: how many positions, and their stream), as a set. The
first position is written relative to the start position, every other one relative to the one
before it. *)
Definition decodeCert (s0 : FState) (chunks : list (N * array int)) : FSet :=
  let table := cardTable in
  let step a '(c, prev, ns, cur) :=
    let '(s, ns, cur) := readState table s0 prev ns a cur in (insert c s, s, ns, cur) in
  let '(c, _, _) :=
    fold_left (fun '(c, prev, ns) '(n, a) =>
                 let '(c, prev, ns, _) := N.iter n (step a) (c, prev, ns, cursor0) in (c, prev, ns))
      chunks (PositiveMap.empty (list FState), s0, stateCounts s0) in
  c.
