(** * FreeCell: the trusted specification, in Coq

This file is all a reader of the Coq theorems has to believe: the cards, the Microsoft deal, the
legal single-card moves, reachability and winning. It is `lean/FreeCell/Spec.lean` transliterated
definition by definition (`docs/SPEC.md` shows Lean, Coq and Python side by side). Differences of
spelling only: Lean's `{ s with cols := cs }` is `withCols s cs`; the rules' field `cells` is
`freeCells` (Coq record fields share one namespace); a deal number is an `N` (binary), since deal
numbers go up to 2³³ − 1; four list functions of core Lean that Coq's library lacks are spelled out
at the top (`getD` is Coq's `nth`, `getLastD` is `last`, `dropLast` is `removelast`, `range n` is
`seq 0 n`, `flatMap` is `flat_map`). It needs only Coq's standard library. *)

From Coq Require Import List Bool Arith NArith.
Import ListNotations.

(** Lean's `List.set`: the list with its element at index `i` replaced (out of range: unchanged). *)
Fixpoint set {A} (l : list A) (i : nat) (a : A) : list A :=
  match l, i with
  | [], _ => []
  | _ :: xs, O => a :: xs
  | x :: xs, S i => x :: set xs i a
  end.

(** Lean's `List.erase`: the list without the first element equal to `a`. *)
Fixpoint erase {A} (eqb : A -> A -> bool) (l : list A) (a : A) : list A :=
  match l with
  | [] => []
  | x :: xs => if eqb x a then xs else x :: erase eqb xs a
  end.

(** Lean's `List.filterMap`. *)
Fixpoint filterMap {A B} (f : A -> option B) (l : list A) : list B :=
  match l with
  | [] => []
  | x :: xs => match f x with Some y => y :: filterMap f xs | None => filterMap f xs end
  end.

(** Lean's `Option.isSome`. *)
Definition isSome {A} (o : option A) : bool := match o with Some _ => true | None => false end.

(** A card: rank 1 (ace) … 13 (king); suit 0 clubs, 1 diamonds, 2 hearts, 3 spades. *)
Record Card := card { rank : nat; suit : nat }.

(** Lean's derived `==` on cards. *)
Definition cardEqb (c d : Card) : bool := (rank c =? rank d) && (suit c =? suit d).

(** Diamonds and hearts are red. *)
Definition red (c : Card) : bool := (suit c =? 1) || (suit c =? 2).

(** The card's place 0 … 51 in a fresh deck: A♣ A♦ A♥ A♠ 2♣ … K♠. *)
Definition key (c : Card) : nat := (rank c - 1) * 4 + suit c.

(** A position. Each column lists its cards top card first; the free cells are a set, kept
sorted by key; `home` is the height of each suit's foundation. *)
Record State := state { cols : list (list Card); cells : list Card; home : list nat }.

(** Lean's `{ s with cols := cs }`, `{ s with cells := cs }` and `{ s with home := h }`. *)
Definition withCols (s : State) cs := state cs (cells s) (home s).
Definition withCells (s : State) cs := state (cols s) cs (home s).
Definition withHome (s : State) h := state (cols s) (cells s) h.

(** The rules: how many free cells; may a foundation's top card come back onto a column? `hand`:
favors a game may use; only Lean's Hand.lean reads it, and every Coq theorem has 0 there. *)
Record Rules := rules { freeCells : nat; foundationReturn : bool; hand : nat }.

(** Microsoft FreeCell: four free cells, nothing comes back from the foundations. *)
Definition standard : Rules := rules 4 false 0.

(** MSVC `rand()`: seed ← seed · 214013 + 2531011 (mod 2³¹); it returns seed / 2¹⁶. *)
Definition lcg (seed : N) : N := ((seed * 214013 + 2531011) mod 2 ^ 31)%N.

(** Deal `n` cards from `deck`: draw the card at index `j`, fill its hole with the last card. *)
Fixpoint dealFrom (n : nat) (seed : N) (deck : list Card) : list Card :=
  match n with
  | O => []
  | S n =>
    let seed := lcg seed in
    let j := N.to_nat ((seed / 2 ^ 16) mod N.of_nat (length deck)) in
    nth j deck (card 0 0) :: dealFrom n seed (removelast (set deck j (last deck (card 0 0))))
  end.

(** FreeCell Pro's games 2³¹ … 2³³ − 1 (Freecell Solver's `gen_ms_boards__rand.h`): the seed runs
mod 2³²; the draw r is seed / 2¹⁶ mod 2¹⁵ + 2¹⁵ below 2³², seed / 2¹⁶ mod 2¹⁶ + 1 above. *)
Fixpoint dealFromPro (n : nat) (game seed : N) (deck : list Card) : list Card :=
  match n with
  | O => []
  | S n =>
    let seed := ((seed * 214013 + 2531011) mod 2 ^ 32)%N in
    let r := if (game <? 2 ^ 32)%N then (seed / 2 ^ 16 mod 2 ^ 15 + 2 ^ 15)%N
             else (seed / 2 ^ 16 mod 2 ^ 16 + 1)%N in
    let j := N.to_nat (r mod N.of_nat (length deck)) in
    nth j deck (card 0 0) :: dealFromPro n game seed (removelast (set deck j (last deck (card 0 0))))
  end.

(** The order in which game number `game` deals the cards of a fresh deck; games below 2³¹ are
Microsoft's, the others start from the seed `game` mod 2³². *)
Definition dealOrder (game : N) : list Card :=
  if (game <? 2 ^ 31)%N then dealFrom 52 game (map (fun i => card (i / 4 + 1) (i mod 4)) (seq 0 52))
  else dealFromPro 52 game (game mod 2 ^ 32)%N (map (fun i => card (i / 4 + 1) (i mod 4)) (seq 0 52)).

(** Game number `game`: the cards go out left to right in rows of eight, so card `t` of the
order lands in column `t % 8`, and the last card dealt to a column is its top card. *)
Definition msDeal (game : N) : State :=
  let order := dealOrder game in
  let col (i : nat) : list Card :=
    map (fun t => nth t order (card 0 0)) (rev (filter (fun t => t mod 8 =? i) (seq 0 52))) in
  state (map col (seq 0 8)) [] [0; 0; 0; 0].

(** `c` may go onto `parent`: one rank lower and the other colour. *)
Definition canStack (c parent : Card) : bool :=
  (rank parent =? rank c + 1) && negb (Bool.eqb (red parent) (red c)).

(** `c` may go to its foundation: it is the next card of its suit. *)
Definition canHome (home : list nat) (c : Card) : bool := nth (suit c) home 0 + 1 =? rank c.

(** Put `c` into the free cells, keeping them sorted by key. *)
Fixpoint insertSorted (c : Card) (l : list Card) : list Card :=
  match l with
  | [] => [c]
  | d :: ds => if key c <=? key d then c :: d :: ds else d :: insertSorted c ds
  end.

(** `c` has been taken off (leaving `s`) from column `src` (`None`: from a free cell or a
foundation); put it on a column: an empty one, or one whose top card it stacks on. *)
Definition toCols (s : State) (c : Card) (src : option nat) : list State :=
  filterMap (fun j =>
    if match src with Some i => i =? j | None => false end then None else
    match nth j (cols s) [] with
    | [] => Some (withCols s (set (cols s) j [c]))
    | p :: ps => if canStack c p then Some (withCols s (set (cols s) j (c :: p :: ps))) else None
    end) (seq 0 8).

(** Every position one legal single-card move away from `s`, in a fixed order. *)
Definition moves (r : Rules) (s : State) : list State :=
  let fromCols : list (Card * State * option nat) :=
    filterMap (fun i =>
      match nth i (cols s) [] with
      | [] => None
      | c :: rest => Some (c, withCols s (set (cols s) i rest), Some i)
      end) (seq 0 8) in
  let fromCells : list (Card * State * option nat) :=
    map (fun c => (c, withCells s (erase cardEqb (cells s) c), None)) (cells s) in
  flat_map (fun '(c, s', src) =>
    (* to its foundation *)
    (if canHome (home s) c then [withHome s' (set (home s') (suit c) (rank c))] else []) ++
    (* onto an empty column, or onto a card one higher of the other colour *)
    toCols s' c src ++
    (* from a column into a free cell *)
    (if isSome src && (length (cells s') <? freeCells r)
     then [withCells s' (insertSorted c (cells s'))] else []))
    (fromCols ++ fromCells) ++
  (* from a foundation back onto a column (only when the rules allow it) *)
  (if foundationReturn r then
     flat_map (fun k =>
       let h := nth k (home s) 0 in
       if h =? 0 then [] else toCols (withHome s (set (home s) k (h - 1))) (card h k) None)
     (seq 0 4)
   else []).

(** Every foundation is up to the king. *)
Definition won (s : State) : bool :=
  if list_eq_dec Nat.eq_dec (home s) [13; 13; 13; 13] then true else false.

(** The same, as a proposition: this is what the theorems speak of. *)
Definition Won (s : State) : Prop := home s = [13; 13; 13; 13].

(** Reachable from `s0` under the rules `r`: the start, and anything one move from a reachable one. *)
Inductive Reachable (r : Rules) (s0 : State) : State -> Prop :=
  | deal : Reachable r s0 s0
  | step : forall s t, Reachable r s0 s -> In t (moves r s) -> Reachable r s0 t.
