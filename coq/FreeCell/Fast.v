(** * Positions with constructor cards, and the fence check on them (kernel-checked)

`Spec.v` writes a rank as a unary `nat`: comparing two positions card by card, or testing whether a card
stacks, walks up to thirteen successors each time. Here a card is one of 52 constructors (`FCard`, by its
key), a rank or a foundation's height one of fourteen (`Num`) and a suit one of four (`Suit`), so the same
tests are a `match` or two each; the tests on two cards are proved equal to `Spec.v`'s on all 52 × 52
pairs, which the kernel computes (`cards2`).
`absS` reads such a position (`FState`) as a `Spec.v` position, and

  - `fmoves_abs`: `map absS (fmoves r s) = moves r (absS s)`: `fmoves`, written line for line as
    `Spec.v`'s `moves`, computes the same positions in the same order;
  - `fcanon_abs`: `absS (fcanon s) = canon (absS s)` (`CertUpTo.v`'s column order);
  - `fautoplay_abs`, `fsettled_abs`: the same for `CertAuto.v`'s `autoplay` and `settled`.

The checks `checkFast`, `checkFastUpTo` and `checkFastAuto` are `Cert.v`'s `checkCert`, `CertUpTo.v`'s
`checkCertUpTo` and `CertAuto.v`'s `checkCertAuto` on these positions; the start is the spec's position,
converted (`ofState`) and compared back (`stateEqb`, proved in `Cert.v`). Their theorems
(`unwinnable_of_fast`, `unwinnable_of_fast_up_to_column_order`, `unwinnable_of_fast_auto`) conclude
`forall s, Reachable r s0 s -> ~ Won s` about `Spec.v`'s `Reachable` and `Won`. The set is a binary trie
(`PositiveMap`) of buckets under a key `hash`, a parameter no proof looks into, as in `Cert.v`.
Coq's standard library only; no axiom. *)

From Coq Require Import List Bool Arith Lia PArith FMapPositive.
From FreeCell Require Import Spec Cert Columns Autoplay CertUpTo CertAuto.
Import ListNotations.

(** ** Cards *)

(** A rank 1 … 13, or a foundation's height 0 … 13. *)
Inductive Num := r0 | r1 | r2 | r3 | r4 | r5 | r6 | r7 | r8 | r9 | r10 | r11 | r12 | r13.

Definition numNat (n : Num) : nat :=
  match n with
  | r0 => 0 | r1 => 1 | r2 => 2 | r3 => 3 | r4 => 4 | r5 => 5 | r6 => 6 | r7 => 7 | r8 => 8
  | r9 => 9 | r10 => 10 | r11 => 11 | r12 => 12 | r13 => 13
  end.

(** The `Num` of a small `nat` (above 13: `r0`; `ofState`'s result is compared back, so that is no
matter). *)
Definition numOfNat (n : nat) : Num :=
  match n with
  | 0 => r0 | 1 => r1 | 2 => r2 | 3 => r3 | 4 => r4 | 5 => r5 | 6 => r6 | 7 => r7 | 8 => r8
  | 9 => r9 | 10 => r10 | 11 => r11 | 12 => r12 | 13 => r13 | _ => r0
  end.

Definition numEqb (a b : Num) : bool :=
  match a, b with
  | r0, r0 | r1, r1 | r2, r2 | r3, r3 | r4, r4 | r5, r5 | r6, r6 | r7, r7 | r8, r8 | r9, r9
  | r10, r10 | r11, r11 | r12, r12 | r13, r13 => true
  | _, _ => false
  end.

(** `b` is one more than `a`. *)
Definition numNext (a b : Num) : bool :=
  match a, b with
  | r0, r1 | r1, r2 | r2, r3 | r3, r4 | r4, r5 | r5, r6 | r6, r7 | r7, r8 | r8, r9 | r9, r10
  | r10, r11 | r11, r12 | r12, r13 => true
  | _, _ => false
  end.

(** One less (0 stays 0). *)
Definition numPred (a : Num) : Num :=
  match a with
  | r0 | r1 => r0 | r2 => r1 | r3 => r2 | r4 => r3 | r5 => r4 | r6 => r5 | r7 => r6 | r8 => r7
  | r9 => r8 | r10 => r9 | r11 => r10 | r12 => r11 | r13 => r12
  end.

Inductive Suit := clubs | diamonds | hearts | spades.

Definition suitNat (s : Suit) : nat := match s with clubs => 0 | diamonds => 1 | hearts => 2 | spades => 3 end.

Definition suitOfNat (n : nat) : Suit :=
  match n with 0 => clubs | 1 => diamonds | 2 => hearts | _ => spades end.

Definition suitEqb (a b : Suit) : bool :=
  match a, b with
  | clubs, clubs | diamonds, diamonds | hearts, hearts | spades, spades => true
  | _, _ => false
  end.

(** A card by its key (`Spec.v`'s `key`: A♣ A♦ A♥ A♠ 2♣ … K♠ are `k0` … `k51`). *)
Inductive FCard :=
  | k0 | k1 | k2 | k3 | k4 | k5 | k6 | k7 | k8 | k9 | k10 | k11 | k12 | k13 | k14 | k15 | k16 | k17
  | k18 | k19 | k20 | k21 | k22 | k23 | k24 | k25 | k26 | k27 | k28 | k29 | k30 | k31 | k32 | k33
  | k34 | k35 | k36 | k37 | k38 | k39 | k40 | k41 | k42 | k43 | k44 | k45 | k46 | k47 | k48 | k49
  | k50 | k51.

Definition frank (c : FCard) : Num :=
  match c with
  | k0 | k1 | k2 | k3 => r1
  | k4 | k5 | k6 | k7 => r2
  | k8 | k9 | k10 | k11 => r3
  | k12 | k13 | k14 | k15 => r4
  | k16 | k17 | k18 | k19 => r5
  | k20 | k21 | k22 | k23 => r6
  | k24 | k25 | k26 | k27 => r7
  | k28 | k29 | k30 | k31 => r8
  | k32 | k33 | k34 | k35 => r9
  | k36 | k37 | k38 | k39 => r10
  | k40 | k41 | k42 | k43 => r11
  | k44 | k45 | k46 | k47 => r12
  | k48 | k49 | k50 | k51 => r13
  end.

Definition fsuit (c : FCard) : Suit :=
  match c with
  | k0 | k4 | k8 | k12 | k16 | k20 | k24 | k28 | k32 | k36 | k40 | k44 | k48 => clubs
  | k1 | k5 | k9 | k13 | k17 | k21 | k25 | k29 | k33 | k37 | k41 | k45 | k49 => diamonds
  | k2 | k6 | k10 | k14 | k18 | k22 | k26 | k30 | k34 | k38 | k42 | k46 | k50 => hearts
  | k3 | k7 | k11 | k15 | k19 | k23 | k27 | k31 | k35 | k39 | k43 | k47 | k51 => spades
  end.

(** The card of a rank and a suit (rank 0: `k0`, never used so). *)
Definition mkCard (n : Num) (s : Suit) : FCard :=
  match n, s with
  | r1, clubs => k0 | r1, diamonds => k1 | r1, hearts => k2 | r1, spades => k3
  | r2, clubs => k4 | r2, diamonds => k5 | r2, hearts => k6 | r2, spades => k7
  | r3, clubs => k8 | r3, diamonds => k9 | r3, hearts => k10 | r3, spades => k11
  | r4, clubs => k12 | r4, diamonds => k13 | r4, hearts => k14 | r4, spades => k15
  | r5, clubs => k16 | r5, diamonds => k17 | r5, hearts => k18 | r5, spades => k19
  | r6, clubs => k20 | r6, diamonds => k21 | r6, hearts => k22 | r6, spades => k23
  | r7, clubs => k24 | r7, diamonds => k25 | r7, hearts => k26 | r7, spades => k27
  | r8, clubs => k28 | r8, diamonds => k29 | r8, hearts => k30 | r8, spades => k31
  | r9, clubs => k32 | r9, diamonds => k33 | r9, hearts => k34 | r9, spades => k35
  | r10, clubs => k36 | r10, diamonds => k37 | r10, hearts => k38 | r10, spades => k39
  | r11, clubs => k40 | r11, diamonds => k41 | r11, hearts => k42 | r11, spades => k43
  | r12, clubs => k44 | r12, diamonds => k45 | r12, hearts => k46 | r12, spades => k47
  | r13, clubs => k48 | r13, diamonds => k49 | r13, hearts => k50 | r13, spades => k51
  | r0, _ => k0
  end.

Definition fcardEqb (c d : FCard) : bool :=
  match c, d with
  | k0, k0 | k1, k1 | k2, k2 | k3, k3 | k4, k4 | k5, k5 | k6, k6 | k7, k7 | k8, k8 | k9, k9
  | k10, k10 | k11, k11 | k12, k12 | k13, k13 | k14, k14 | k15, k15 | k16, k16 | k17, k17
  | k18, k18 | k19, k19 | k20, k20 | k21, k21 | k22, k22 | k23, k23 | k24, k24 | k25, k25
  | k26, k26 | k27, k27 | k28, k28 | k29, k29 | k30, k30 | k31, k31 | k32, k32 | k33, k33
  | k34, k34 | k35, k35 | k36, k36 | k37, k37 | k38, k38 | k39, k39 | k40, k40 | k41, k41
  | k42, k42 | k43, k43 | k44, k44 | k45, k45 | k46, k46 | k47, k47 | k48, k48 | k49, k49
  | k50, k50 | k51, k51 => true
  | _, _ => false
  end.

Definition absC (c : FCard) : Card := card (numNat (frank c)) (suitNat (fsuit c)).

Definition ofCard (c : Card) : FCard := mkCard (numOfNat (rank c)) (suitOfNat (suit c)).

(** `Spec.v`'s `canStack`: `parent` one rank higher and of the other colour (`fcanStack_abs`). *)
Definition fcanStack (c parent : FCard) : bool :=
  match c, parent with
  | k0, (k5 | k6) | k1, (k4 | k7) | k2, (k4 | k7) | k3, (k5 | k6)
  | k4, (k9 | k10) | k5, (k8 | k11) | k6, (k8 | k11) | k7, (k9 | k10)
  | k8, (k13 | k14) | k9, (k12 | k15) | k10, (k12 | k15) | k11, (k13 | k14)
  | k12, (k17 | k18) | k13, (k16 | k19) | k14, (k16 | k19) | k15, (k17 | k18)
  | k16, (k21 | k22) | k17, (k20 | k23) | k18, (k20 | k23) | k19, (k21 | k22)
  | k20, (k25 | k26) | k21, (k24 | k27) | k22, (k24 | k27) | k23, (k25 | k26)
  | k24, (k29 | k30) | k25, (k28 | k31) | k26, (k28 | k31) | k27, (k29 | k30)
  | k28, (k33 | k34) | k29, (k32 | k35) | k30, (k32 | k35) | k31, (k33 | k34)
  | k32, (k37 | k38) | k33, (k36 | k39) | k34, (k36 | k39) | k35, (k37 | k38)
  | k36, (k41 | k42) | k37, (k40 | k43) | k38, (k40 | k43) | k39, (k41 | k42)
  | k40, (k45 | k46) | k41, (k44 | k47) | k42, (k44 | k47) | k43, (k45 | k46)
  | k44, (k49 | k50) | k45, (k48 | k51) | k46, (k48 | k51) | k47, (k49 | k50) => true
  | _, _ => false
  end.

Definition fcanHome (home : list Num) (c : FCard) : bool := numNext (nth (suitNat (fsuit c)) home r0) (frank c).

(** `Spec.v`'s `key c <=? key d`, by rank then suit (rank 0 counts as 1, as `key`'s `rank c - 1` does). *)
Definition numLtb (a b : Num) : bool := Nat.ltb (numNat (numPred a)) (numNat (numPred b)).

Definition fkeyLeb (c d : FCard) : bool :=
  if numEqb (numPred (frank c)) (numPred (frank d)) then Nat.leb (suitNat (fsuit c)) (suitNat (fsuit d))
  else numLtb (frank c) (frank d).

(** ** Positions *)

Record FState := fstate { fcols : list (list FCard); fcells : list FCard; fhome : list Num }.

Definition absS (s : FState) : State :=
  state (map (map absC) (fcols s)) (map absC (fcells s)) (map numNat (fhome s)).

Definition ofState (s : State) : FState :=
  fstate (map (map ofCard) (cols s)) (map ofCard (cells s)) (map numOfNat (home s)).

Definition fwithCols (s : FState) cs := fstate cs (fcells s) (fhome s).
Definition fwithCells (s : FState) cs := fstate (fcols s) cs (fhome s).
Definition fwithHome (s : FState) h := fstate (fcols s) (fcells s) h.

Fixpoint finsertSorted (c : FCard) (l : list FCard) : list FCard :=
  match l with
  | [] => [c]
  | d :: ds => if fkeyLeb c d then c :: d :: ds else d :: finsertSorted c ds
  end.

(** `Spec.v`'s `toCols` and `moves`, on these positions. *)
(** A walk along the columns: `f j pre col rest` sees column `j` (`col`), the columns before it (`pre`, the
nearest first) and after it (`rest`). On eight columns it is the same as `Spec.v`'s walk over
`seq 0 8` with `nth` and `set` (`walk_seq`), without looking each column up again. *)
Fixpoint walk {B} (f : nat -> list (list FCard) -> list FCard -> list (list FCard) -> option B) (j : nat)
  (pre rest : list (list FCard)) : list B :=
  match rest with
  | [] => []
  | col :: rest' =>
    match f j pre col rest' with
    | Some y => y :: walk f (S j) (col :: pre) rest'
    | None => walk f (S j) (col :: pre) rest'
    end
  end.

Definition ftoColsSpec (s : FState) (c : FCard) (src : option nat) : list FState :=
  filterMap (fun j =>
    if match src with Some i => i =? j | None => false end then None else
    match nth j (fcols s) [] with
    | [] => Some (fwithCols s (set (fcols s) j [c]))
    | p :: ps => if fcanStack c p then Some (fwithCols s (set (fcols s) j (c :: p :: ps))) else None
    end) (seq 0 8).

(** `walk` with `ftoCols`'s test written in: the virtual machine then makes no closure call per column. *)
Fixpoint toColsWalk (s : FState) (c : FCard) (src : option nat) (j : nat) (pre rest : list (list FCard))
  : list FState :=
  match rest with
  | [] => []
  | col :: rest' =>
    let tl := toColsWalk s c src (S j) (col :: pre) rest' in
    if match src with Some i => i =? j | None => false end then tl else
    match col with
    | [] => fwithCols s (rev_append pre ([c] :: rest')) :: tl
    | p :: ps => if fcanStack c p then fwithCols s (rev_append pre ((c :: p :: ps) :: rest')) :: tl else tl
    end
  end.

(** Eight columns, by a `match` (cheaper for the virtual machine than `length … =? 8` in unary). *)
Definition eightCols (l : list (list FCard)) : bool :=
  match l with [_; _; _; _; _; _; _; _] => true | _ => false end.

Definition ftoCols (s : FState) (c : FCard) (src : option nat) : list FState :=
  if eightCols (fcols s) then toColsWalk s c src 0 [] (fcols s) else ftoColsSpec s c src.

Definition fplace (r : Rules) (s : FState) (x : FCard * FState * option nat) : list FState :=
  let '(c, s', src) := x in
  (if fcanHome (fhome s) c then [fwithHome s' (set (fhome s') (suitNat (fsuit c)) (frank c))] else []) ++
  ftoCols s' c src ++
  (if isSome src && (length (fcells s') <? freeCells r)
   then [fwithCells s' (finsertSorted c (fcells s'))] else []).

Definition ffromColsSpec (s : FState) : list (FCard * FState * option nat) :=
  filterMap (fun i =>
    match nth i (fcols s) [] with
    | [] => None
    | c :: rest => Some (c, fwithCols s (set (fcols s) i rest), Some i)
    end) (seq 0 8).

Fixpoint fromColsWalk (s : FState) (i : nat) (pre rest : list (list FCard))
  : list (FCard * FState * option nat) :=
  match rest with
  | [] => []
  | col :: rest' =>
    match col with
    | [] => fromColsWalk s (S i) (col :: pre) rest'
    | c :: r => (c, fwithCols s (rev_append pre (r :: rest')), Some i) :: fromColsWalk s (S i) (col :: pre) rest'
    end
  end.

Definition ffromCols (s : FState) : list (FCard * FState * option nat) :=
  if eightCols (fcols s) then fromColsWalk s 0 [] (fcols s) else ffromColsSpec s.

Definition ffromCells (s : FState) : list (FCard * FState * option nat) :=
  map (fun c => (c, fwithCells s (erase fcardEqb (fcells s) c), None)) (fcells s).

Definition ffromHome (r : Rules) (s : FState) : list FState :=
  if foundationReturn r then
    flat_map (fun k =>
      let h := nth k (fhome s) r0 in
      if numEqb h r0 then [] else
      ftoCols (fwithHome s (set (fhome s) k (numPred h))) (mkCard h (suitOfNat k)) None)
    (seq 0 4)
  else [].

Definition fmoves (r : Rules) (s : FState) : list FState :=
  flat_map (fplace r s) (ffromCols s ++ ffromCells s) ++ ffromHome r s.

Definition fwon (s : FState) : bool :=
  match fhome s with [r13; r13; r13; r13] => true | _ => false end.

(** Two lists equal element by element, stopping at the first difference; one fixpoint for each element
type, since calling a comparison passed as an argument costs the virtual machine a closure call per element. *)
Fixpoint fcardsEqb (l m : list FCard) : bool :=
  match l, m with
  | [], [] => true
  | x :: xs, y :: ys => if fcardEqb x y then fcardsEqb xs ys else false
  | _, _ => false
  end.

Fixpoint fcolsEqb (l m : list (list FCard)) : bool :=
  match l, m with
  | [], [] => true
  | x :: xs, y :: ys => if fcardsEqb x y then fcolsEqb xs ys else false
  | _, _ => false
  end.

Fixpoint numsEqb (l m : list Num) : bool :=
  match l, m with
  | [], [] => true
  | x :: xs, y :: ys => if numEqb x y then numsEqb xs ys else false
  | _, _ => false
  end.

(** `if … then … else false` rather than `&&`: the virtual machine evaluates both arguments of `andb`,
and a comparison should stop at the first difference. *)
Definition fstateEqb (s t : FState) : bool :=
  if fcolsEqb (fcols s) (fcols t) then if fcardsEqb (fcells s) (fcells t) then numsEqb (fhome s) (fhome t)
  else false else false.

(** ** The cards agree with `Spec.v`'s *)

Lemma numEqb_eq a b : numEqb a b = true -> a = b.
Proof. destruct a, b; simpl; congruence. Qed.

Lemma numEqb_nat a b : numEqb a b = (numNat a =? numNat b).
Proof. destruct a, b; reflexivity. Qed.

Lemma numNat_inj a b : numNat a = numNat b -> a = b.
Proof. destruct a, b; simpl; congruence. Qed.

Lemma suitEqb_eq a b : suitEqb a b = true -> a = b.
Proof. destruct a, b; simpl; congruence. Qed.

Lemma suitEqb_nat a b : suitEqb a b = (suitNat a =? suitNat b).
Proof. destruct a, b; reflexivity. Qed.

Definition allCards : list FCard :=
  [k0; k1; k2; k3; k4; k5; k6; k7; k8; k9; k10; k11; k12; k13; k14; k15; k16; k17; k18; k19; k20; k21;
   k22; k23; k24; k25; k26; k27; k28; k29; k30; k31; k32; k33; k34; k35; k36; k37; k38; k39; k40; k41;
   k42; k43; k44; k45; k46; k47; k48; k49; k50; k51].

Lemma allCards_in c : In c allCards.
Proof. destruct c; repeat ((left; reflexivity) || right). Qed.

(** Two tests on pairs of cards agree on every pair when they agree on the 52 × 52 of `allCards`. *)
Lemma cards2 (f g : FCard -> FCard -> bool) :
  forallb (fun c => forallb (fun d => Bool.eqb (f c d) (g c d)) allCards) allCards = true ->
  forall c d, f c d = g c d.
Proof.
  rewrite forallb_forall; intros H c d; specialize (H c (allCards_in c)).
  rewrite forallb_forall in H; apply Bool.eqb_prop, H, allCards_in.
Qed.

Lemma fcardEqb_abs c d : fcardEqb c d = cardEqb (absC c) (absC d).
Proof. revert c d; apply cards2; vm_compute; reflexivity. Qed.

Lemma ofCard_abs c : ofCard (absC c) = c.
Proof. destruct c; reflexivity. Qed.

Lemma fcardEqb_eq c d : fcardEqb c d = true -> c = d.
Proof.
  rewrite fcardEqb_abs, cardEqb_true; intros E.
  rewrite <- (ofCard_abs c), <- (ofCard_abs d), E; reflexivity.
Qed.

Lemma fcanStack_abs c p : fcanStack c p = canStack (absC c) (absC p).
Proof. revert c p; apply cards2; vm_compute; reflexivity. Qed.

Lemma fcanHome_abs h c : fcanHome h c = canHome (map numNat h) (absC c).
Proof.
  unfold fcanHome, canHome, absC; simpl.
  change 0 with (numNat r0); rewrite map_nth.
  destruct (nth (suitNat (fsuit c)) h r0), (frank c); reflexivity.
Qed.

Lemma fkeyLeb_abs c d : fkeyLeb c d = (key (absC c) <=? key (absC d)).
Proof. revert c d; apply (cards2 fkeyLeb (fun c d => key (absC c) <=? key (absC d))); vm_compute; reflexivity. Qed.

(** ** The moves agree with `Spec.v`'s *)

Lemma map_filterMap {A B C} (f : A -> option B) (g : B -> C) l :
  map g (filterMap f l) = filterMap (fun x => option_map g (f x)) l.
Proof. induction l as [|x l IH]; simpl; [reflexivity|destruct (f x); simpl; rewrite ?IH; reflexivity]. Qed.

Lemma filterMap_ext {A B} (f g : A -> option B) l : (forall x, f x = g x) -> filterMap f l = filterMap g l.
Proof. intros H; induction l as [|x l IH]; simpl; [reflexivity|rewrite H, IH; reflexivity]. Qed.

Lemma abs_set_cols (s : FState) j col :
  map (map absC) (set (fcols s) j col) = set (cols (absS s)) j (map absC col).
Proof. apply map_set. Qed.

Lemma nth_app_len {A} (l m : list A) x d : nth (length l) (l ++ x :: m) d = x.
Proof. induction l as [|y l IH]; simpl; auto. Qed.

Lemma set_app_len {A} (l m : list A) x y : set (l ++ x :: m) (length l) y = l ++ y :: m.
Proof. induction l as [|z l IH]; simpl; [reflexivity|rewrite IH; reflexivity]. Qed.

Lemma walk_seq {B} f (g : nat -> option B) L :
  (forall j pre col rest, j = length pre -> rev pre ++ col :: rest = L -> f j pre col rest = g j) ->
  forall rest pre j, j = length pre -> rev pre ++ rest = L -> walk f j pre rest = filterMap g (seq j (length rest)).
Proof.
  intros H; induction rest as [|col rest IH]; intros pre j Hj HL; simpl; [reflexivity|].
  rewrite (H j pre col rest Hj HL).
  rewrite (IH (col :: pre) (S j)) by (simpl; first [lia|rewrite <- app_assoc; exact HL]).
  reflexivity.
Qed.

(** Column `j` of `rev pre ++ col :: rest`, and that list with column `j` replaced. *)
Lemma walk_nth (pre : list (list FCard)) col rest j :
  j = length pre -> nth j (rev pre ++ col :: rest) [] = col.
Proof. intros ->; rewrite <- rev_length; apply nth_app_len. Qed.

Lemma walk_set (pre : list (list FCard)) col rest j x :
  j = length pre -> set (rev pre ++ col :: rest) j x = rev_append pre (x :: rest).
Proof. intros ->; rewrite rev_append_rev, <- rev_length; apply set_app_len. Qed.

Lemma eightCols_length l : eightCols l = true -> length l = 8.
Proof. do 9 (destruct l as [|? l]; try discriminate); reflexivity. Qed.

Lemma toColsWalk_walk s c src j pre rest :
  toColsWalk s c src j pre rest =
  walk (fun j pre col rest =>
      if match src with Some i => i =? j | None => false end then None else
      match col with
      | [] => Some (fwithCols s (rev_append pre ([c] :: rest)))
      | p :: ps => if fcanStack c p then Some (fwithCols s (rev_append pre ((c :: p :: ps) :: rest))) else None
      end) j pre rest.
Proof.
  revert j pre; induction rest as [|col rest IH]; intros j pre; simpl; [reflexivity|rewrite IH].
  destruct (match src with Some i => i =? j | None => false end); [reflexivity|].
  destruct col as [|p ps]; [reflexivity|destruct (fcanStack c p); reflexivity].
Qed.

Lemma fromColsWalk_walk s i pre rest :
  fromColsWalk s i pre rest =
  walk (fun i pre col rest =>
      match col with
      | [] => None
      | c :: r => Some (c, fwithCols s (rev_append pre (r :: rest)), Some i)
      end) i pre rest.
Proof.
  revert i pre; induction rest as [|col rest IH]; intros i pre; simpl; [reflexivity|rewrite IH].
  destruct col; reflexivity.
Qed.

Lemma ftoCols_spec s c src : ftoCols s c src = ftoColsSpec s c src.
Proof.
  unfold ftoCols; destruct (eightCols (fcols s)) eqn:E8; [|reflexivity].
  apply eightCols_length in E8; rewrite toColsWalk_walk; unfold ftoColsSpec; rewrite <- E8.
  apply (walk_seq _ _ (fcols s)); [|reflexivity|reflexivity].
  intros j pre col rest Hj HL; rewrite <- HL, walk_nth by exact Hj.
  destruct (match src with Some i => i =? j | None => false end); [reflexivity|].
  destruct col as [|p ps]; [rewrite walk_set by exact Hj; reflexivity|].
  destruct (fcanStack c p); [rewrite walk_set by exact Hj|]; reflexivity.
Qed.

Lemma ffromCols_spec s : ffromCols s = ffromColsSpec s.
Proof.
  unfold ffromCols; destruct (eightCols (fcols s)) eqn:E8; [|reflexivity].
  apply eightCols_length in E8; rewrite fromColsWalk_walk; unfold ffromColsSpec; rewrite <- E8.
  apply (walk_seq _ _ (fcols s)); [|reflexivity|reflexivity].
  intros j pre col rest Hj HL; rewrite <- HL, walk_nth by exact Hj.
  destruct col as [|c r]; [reflexivity|rewrite walk_set by exact Hj; reflexivity].
Qed.

Lemma ftoCols_abs s c src : map absS (ftoCols s c src) = toCols (absS s) (absC c) src.
Proof.
  rewrite ftoCols_spec; unfold ftoColsSpec, toCols; rewrite map_filterMap; apply filterMap_ext; intros j.
  destruct (match src with Some i => i =? j | None => false end); [reflexivity|].
  simpl cols at 1; rewrite nth_map_nil by reflexivity.
  destruct (nth j (fcols s) []) as [|p ps]; simpl.
  - unfold absS, withCols; simpl; rewrite map_set; reflexivity.
  - rewrite fcanStack_abs; destruct (canStack (absC c) (absC p)); simpl; [|reflexivity].
    unfold absS, withCols; simpl; rewrite map_set; reflexivity.
Qed.

Lemma finsertSorted_abs c l : map absC (finsertSorted c l) = insertSorted (absC c) (map absC l).
Proof.
  induction l as [|d l IH]; simpl; [reflexivity|].
  rewrite fkeyLeb_abs; destruct (key (absC c) <=? key (absC d)); simpl; rewrite ?IH; reflexivity.
Qed.

Lemma erase_abs l c : map absC (erase fcardEqb l c) = erase cardEqb (map absC l) (absC c).
Proof.
  induction l as [|d l IH]; simpl; [reflexivity|].
  rewrite fcardEqb_abs; destruct (cardEqb (absC d) (absC c)); simpl; rewrite ?IH; reflexivity.
Qed.

Definition absX (x : FCard * FState * option nat) : Card * State * option nat :=
  let '(c, s, src) := x in (absC c, absS s, src).

Lemma ffromCols_abs s : map absX (ffromCols s) = fromColsOf (absS s).
Proof.
  rewrite ffromCols_spec; unfold ffromColsSpec, fromColsOf; rewrite map_filterMap; apply filterMap_ext; intros i.
  simpl cols at 1; rewrite nth_map_nil by reflexivity.
  destruct (nth i (fcols s) []) as [|c rest]; simpl; [reflexivity|].
  unfold absS, withCols; simpl; rewrite map_set; reflexivity.
Qed.

Lemma ffromCells_abs s : map absX (ffromCells s) = fromCellsOf (absS s).
Proof.
  unfold ffromCells, fromCellsOf; rewrite map_map; simpl cells; rewrite map_map; apply map_ext; intros c.
  simpl; unfold absS, withCells; simpl; rewrite erase_abs; reflexivity.
Qed.

Lemma fplace_abs r s x : map absS (fplace r s x) = place r (absS s) (absX x).
Proof.
  destruct x as [[c s'] src]; unfold fplace, place; simpl absX.
  rewrite !map_app; f_equal; [|f_equal].
  - simpl home; rewrite fcanHome_abs; destruct (canHome (map numNat (fhome s)) (absC c)); [|reflexivity].
    simpl; unfold absS, withHome; simpl; rewrite map_set; reflexivity.
  - apply ftoCols_abs.
  - simpl cells; rewrite map_length.
    destruct (isSome src && (length (fcells s') <? freeCells r)); [|reflexivity].
    simpl; unfold absS, withCells; simpl; rewrite finsertSorted_abs; reflexivity.
Qed.

Lemma flat_map_ext_in {A B} (f g : A -> list B) l :
  (forall x, In x l -> f x = g x) -> flat_map f l = flat_map g l.
Proof.
  induction l as [|x l IH]; intros H; simpl; [reflexivity|].
  rewrite (H x (or_introl eq_refl)), IH by (intros; apply H; right; assumption); reflexivity.
Qed.

Lemma suitNat_ofNat k : k < 4 -> suitNat (suitOfNat k) = k.
Proof. intros H; do 4 (destruct k as [|k]; [reflexivity|]); lia. Qed.

Lemma absC_mk n s : n <> r0 -> absC (mkCard n s) = card (numNat n) (suitNat s).
Proof. destruct n, s; intros H; solve [reflexivity|congruence]. Qed.

Lemma ffromHome_abs r s : map absS (ffromHome r s) = fromHome r (absS s).
Proof.
  unfold ffromHome, fromHome; destruct (foundationReturn r); [|reflexivity].
  rewrite map_flat_map'; apply flat_map_ext_in; intros k Hk; apply in_seq in Hk.
  assert (En : nth k (map numNat (fhome s)) 0 = numNat (nth k (fhome s) r0)) by exact (map_nth numNat (fhome s) r0 k).
  simpl home; rewrite En, numEqb_nat.
  destruct (nth k (fhome s) r0) as [] eqn:E; [reflexivity|..]; cbn [numEqb numNat Nat.eqb];
    rewrite ftoCols_abs, absC_mk by discriminate; unfold absS, withHome; simpl;
    rewrite map_set, suitNat_ofNat by lia; reflexivity.
Qed.

Theorem fmoves_abs r s : map absS (fmoves r s) = moves r (absS s).
Proof.
  rewrite moves_parts; unfold fmoves; rewrite map_app, ffromHome_abs; f_equal.
  rewrite <- ffromCols_abs, <- ffromCells_abs, <- map_app.
  rewrite map_flat_map', flat_map_map'.
  apply flat_map_ext; intros x; apply fplace_abs.
Qed.

(** ** Equality, and won positions *)

Lemma fcardsEqb_eq l m : fcardsEqb l m = true -> l = m.
Proof.
  revert m; induction l as [|x l IH]; intros [|y m]; simpl; try discriminate; [reflexivity|].
  destruct (fcardEqb x y) eqn:E; [|discriminate]; intros H; rewrite (fcardEqb_eq _ _ E), (IH _ H); reflexivity.
Qed.

Lemma fcolsEqb_eq l m : fcolsEqb l m = true -> l = m.
Proof.
  revert m; induction l as [|x l IH]; intros [|y m]; simpl; try discriminate; [reflexivity|].
  destruct (fcardsEqb x y) eqn:E; [|discriminate]; intros H; rewrite (fcardsEqb_eq _ _ E), (IH _ H); reflexivity.
Qed.

Lemma numsEqb_eq l m : numsEqb l m = true -> l = m.
Proof.
  revert m; induction l as [|x l IH]; intros [|y m]; simpl; try discriminate; [reflexivity|].
  destruct (numEqb x y) eqn:E; [|discriminate]; intros H; rewrite (numEqb_eq _ _ E), (IH _ H); reflexivity.
Qed.

Lemma fstateEqb_eq s t : fstateEqb s t = true -> s = t.
Proof.
  destruct s as [c1 e1 h1], t as [c2 e2 h2]; unfold fstateEqb; simpl.
  destruct (fcolsEqb c1 c2) eqn:E1; [|discriminate]; destruct (fcardsEqb e1 e2) eqn:E2; [|discriminate].
  intros E3; rewrite (fcolsEqb_eq _ _ E1), (fcardsEqb_eq _ _ E2), (numsEqb_eq _ _ E3); reflexivity.
Qed.

Lemma fwon_abs s : fwon s = false -> ~ Won (absS s).
Proof.
  unfold fwon, Won, absS; simpl; intros H E.
  destruct (fhome s) as [|a [|b [|c [|d [|e l]]]]]; try discriminate.
  simpl in E; injection E as Ea Eb Ec Ed.
  rewrite (numNat_inj a r13 Ea), (numNat_inj b r13 Eb), (numNat_inj c r13 Ec), (numNat_inj d r13 Ed) in H.
  discriminate.
Qed.

(** ** The column order of `CertUpTo.v` *)

Lemma last_map {A B} (f : A -> B) l d : last (map f l) (f d) = f (last l d).
Proof. induction l as [|x [|y l] IH]; simpl in *; [reflexivity|reflexivity|exact IH]. Qed.

Lemma key_le c : key (absC c) <= 51.
Proof. destruct c; unfold key, absC; simpl; lia. Qed.

(** `colKey a <=? colKey b` (an empty column's 52 is above every card's key). *)
Definition fcolLeb (a b : list FCard) : bool :=
  match a, b with
  | [], [] => true
  | [], _ :: _ => false
  | _ :: _, [] => true
  | c :: _, d :: _ => fkeyLeb (last a c) (last b d)
  end.

Lemma colKey_abs c a : colKey (map absC (c :: a)) = key (absC (last (c :: a) c)).
Proof. rewrite <- last_map; reflexivity. Qed.

Lemma fcolLeb_abs a b : fcolLeb a b = (colKey (map absC a) <=? colKey (map absC b)).
Proof.
  destruct a as [|c a], b as [|d b]; [reflexivity|..].
  - rewrite colKey_abs; change (colKey (map absC [])) with 52; symmetry; apply Nat.leb_gt.
    pose proof (key_le (last (d :: b) d)); lia.
  - rewrite colKey_abs; change (colKey (map absC [])) with 52; symmetry; apply Nat.leb_le.
    pose proof (key_le (last (c :: a) c)); lia.
  - rewrite !colKey_abs, <- fkeyLeb_abs; reflexivity.
Qed.

Fixpoint finsertCol (col : list FCard) (l : list (list FCard)) : list (list FCard) :=
  match l with
  | [] => [col]
  | d :: ds => if fcolLeb col d then col :: d :: ds else d :: finsertCol col ds
  end.

Definition fcanon (s : FState) : FState := fwithCols s (fold_right finsertCol [] (fcols s)).

Lemma fcanon_abs s : absS (fcanon s) = canon (absS s).
Proof.
  unfold fcanon, canon, absS, withCols, sortCols; simpl; f_equal.
  induction (fcols s) as [|col l IH]; simpl; [reflexivity|rewrite <- IH].
  clear IH; induction (fold_right finsertCol [] l) as [|d ds IH]; simpl; [reflexivity|].
  rewrite fcolLeb_abs; destruct (colKey (map absC col) <=? colKey (map absC d)); simpl; rewrite ?IH;
    reflexivity.
Qed.

(** ** The safe automatic moves of `CertAuto.v` *)

(** `if`, not `&&`: the virtual machine evaluates both arguments of `andb`, and `lowSafe` (on `Spec.v`'s
unary ranks) is needed only for a card that can go home. *)
Definition fhomeBy (h : list Num) (c : FCard) : bool := if fcanHome h c then lowSafe (map numNat h) (absC c) else false.

Definition fautoCol (s : FState) (i : nat) : option FState :=
  match nth i (fcols s) [] with
  | [] => None
  | c :: rest =>
    if fhomeBy (fhome s) c
    then Some (fstate (set (fcols s) i rest) (fcells s) (set (fhome s) (suitNat (fsuit c)) (frank c)))
    else None
  end.

Definition fautoCell (s : FState) (c : FCard) : option FState :=
  if fhomeBy (fhome s) c
  then Some (fstate (fcols s) (erase fcardEqb (fcells s) c) (set (fhome s) (suitNat (fsuit c)) (frank c)))
  else None.

Definition fautoStep (s : FState) : option FState :=
  match firstSome (fautoCol s) (seq 0 8) with
  | Some t => Some t
  | None => firstSome (fautoCell s) (fcells s)
  end.

Fixpoint fautoplayN (n : nat) (s : FState) : FState :=
  match n with
  | O => s
  | S n => match fautoStep s with Some t => fautoplayN n t | None => s end
  end.

Definition fautoplay (s : FState) : FState := fautoplayN 52 s.

Definition fsettled (s : FState) : bool := match fautoStep s with None => true | Some _ => false end.

Lemma fhomeBy_abs h c : fhomeBy h c = homeBy lowSafe (map numNat h) (absC c).
Proof. unfold fhomeBy, homeBy; rewrite fcanHome_abs; destruct (canHome (map numNat h) (absC c)); reflexivity. Qed.

Lemma firstSome_map_option {A B C} (f : A -> option B) (g : B -> C) l :
  option_map g (firstSome f l) = firstSome (fun x => option_map g (f x)) l.
Proof. induction l as [|x l IH]; simpl; [reflexivity|destruct (f x); simpl; auto]. Qed.

Lemma firstSome_ext {A B} (f g : A -> option B) l : (forall x, f x = g x) -> firstSome f l = firstSome g l.
Proof. intros H; induction l as [|x l IH]; simpl; [reflexivity|rewrite H, IH; reflexivity]. Qed.

Lemma firstSome_map {A B C} (f : B -> option C) (g : A -> B) l :
  firstSome f (map g l) = firstSome (fun x => f (g x)) l.
Proof. induction l as [|x l IH]; simpl; [reflexivity|rewrite IH; reflexivity]. Qed.

Lemma fautoStep_abs s : option_map absS (fautoStep s) = autoStep (absS s).
Proof.
  unfold fautoStep, autoStep.
  assert (Hc : option_map absS (firstSome (fautoCol s) (seq 0 8)) = firstSome (autoCol (absS s)) (seq 0 8)).
  { rewrite firstSome_map_option; apply firstSome_ext; intros i; unfold fautoCol, autoCol.
    simpl cols; rewrite nth_map_nil by reflexivity.
    destruct (nth i (fcols s) []) as [|c rest]; [reflexivity|].
    cbn [map]; simpl home; rewrite fhomeBy_abs; destruct (homeBy lowSafe (map numNat (fhome s)) (absC c)); [|reflexivity].
    simpl; unfold absS; simpl; rewrite !map_set; reflexivity. }
  destruct (firstSome (fautoCol s) (seq 0 8)) as [t|]; cbn [option_map] in Hc; rewrite <- Hc; [reflexivity|].
  rewrite firstSome_map_option; simpl cells; rewrite firstSome_map; apply firstSome_ext; intros c.
  unfold fautoCell, autoCell; simpl home; rewrite fhomeBy_abs.
  destruct (homeBy lowSafe (map numNat (fhome s)) (absC c)); [|reflexivity].
  simpl; unfold absS; simpl; rewrite map_set, erase_abs; reflexivity.
Qed.

Lemma fautoplay_abs s : absS (fautoplay s) = autoplay (absS s).
Proof.
  unfold fautoplay, autoplay; generalize 52 as n; intros n; revert s.
  induction n as [|n IH]; intros s; simpl; [reflexivity|].
  rewrite <- fautoStep_abs; destruct (fautoStep s); simpl; [apply IH|reflexivity].
Qed.

Lemma fsettled_abs s : fsettled s = settled (absS s).
Proof. unfold fsettled, settled; rewrite <- fautoStep_abs; destruct (fautoStep s); reflexivity. Qed.

(** ** The set, and the checks *)

(** A certificate: buckets of positions, filed under their key. *)
Definition FSet := PositiveMap.t (list FState).

Section Check.

Variable hash : FState -> positive.

(** `s` is in the bucket (compared position by position, stopping at the first equal one). *)
Fixpoint fmemb (s : FState) (bucket : list FState) : bool :=
  match bucket with
  | [] => false
  | t :: bucket => if fstateEqb s t then true else fmemb s bucket
  end.

Definition fcontains (c : FSet) (s : FState) : bool :=
  match PositiveMap.find (hash s) c with
  | Some bucket => fmemb s bucket
  | None => false
  end.

(** A member: in a bucket of the trie, under any key. *)
Definition FMember (c : FSet) (s : FState) : Prop := exists k bucket, PositiveMap.find k c = Some bucket /\ In s bucket.

Lemma fmemb_In s bucket : fmemb s bucket = true -> In s bucket.
Proof.
  induction bucket as [|t bucket IH]; simpl; [discriminate|].
  destruct (fstateEqb s t) eqn:E; [left; symmetry; apply fstateEqb_eq, E|right; apply IH, H].
Qed.

Lemma fcontains_member c s : fcontains c s = true -> FMember c s.
Proof.
  unfold fcontains; intros H.
  destruct (PositiveMap.find (hash s) c) as [bucket|] eqn:F; [|discriminate].
  exists (hash s), bucket; split; [exact F|apply fmemb_In, H].
Qed.

(** `f` holds on every member: a walk down the trie (no keys, no list of the members built). *)
Fixpoint fforall (f : FState -> bool) (c : FSet) : bool :=
  match c with
  | PositiveMap.Leaf _ => true
  | PositiveMap.Node l o r =>
    if fforall f l then
      if match o with Some bucket => forallb f bucket | None => true end then fforall f r else false
    else false
  end.

Lemma fforall_member f c : fforall f c = true -> forall s, FMember c s -> f s = true.
Proof.
  intros H s (k & bucket & F & Hs); revert k F H.
  induction c as [|l IHl o r IHr]; intros k F H; [destruct k; discriminate|].
  simpl in H; destruct (fforall f l); [|discriminate].
  destruct (match o with Some bucket => forallb f bucket | None => true end) eqn:Eo; [|discriminate].
  destruct k as [k|k|]; simpl in F.
  - exact (IHr k F H).
  - exact (IHl k F eq_refl).
  - rewrite F, forallb_forall in Eo; apply Eo, Hs.
Qed.

(** The positions of `Spec.v` the set stands for. *)
Definition Holds (c : FSet) (s : State) : Prop := exists m, FMember c m /\ absS m = s.

Lemma member_Holds c s : FMember c s -> Holds c (absS s).
Proof. intros H; exists s; split; [exact H|reflexivity]. Qed.

Lemma fcontains_Holds c s : fcontains c s = true -> Holds c (absS s).
Proof. intros H; apply member_Holds, fcontains_member, H. Qed.

Lemma ofState_abs s0 : stateEqb (absS (ofState s0)) s0 = true -> absS (ofState s0) = s0.
Proof. apply stateEqb_eq. Qed.

(** The fence test (`Cert.v`'s `checkCert`): `c` holds the start, and every member is not won and has
all its moves in `c`. *)
Definition checkFast (r : Rules) (s0 : State) (c : FSet) : bool :=
  let f0 := ofState s0 in
  stateEqb (absS f0) s0 && fcontains c f0 &&
  fforall (fun s => negb (fwon s) && forallb (fcontains c) (fmoves r s)) c.

Lemma fmoves_in r s t : In t (moves r (absS s)) -> exists u, In u (fmoves r s) /\ absS u = t.
Proof. rewrite <- fmoves_abs, in_map_iff; intros (u & E & H); exists u; auto. Qed.

Theorem unwinnable_of_fast r s0 c : checkFast r s0 c = true -> forall s, Reachable r s0 s -> ~ Won s.
Proof.
  unfold checkFast; rewrite !andb_true_iff; intros [[H0 Hstart] Hall]; pose proof (fforall_member _ _ Hall) as Hall'; clear Hall; rename Hall' into Hall.
  assert (Hin : forall s, Reachable r s0 s -> Holds c s).
  { intros s Hr; induction Hr as [|s t _ (m & Hm & <-) Ht].
    - rewrite <- (ofState_abs s0 H0); apply fcontains_Holds, Hstart.
    - destruct (fmoves_in r m t Ht) as (u & Hu & <-); apply fcontains_Holds.
      specialize (Hall m Hm); cbv beta in Hall; rewrite andb_true_iff, forallb_forall in Hall; apply (proj2 Hall), Hu. }
  intros s Hr; destruct (Hin s Hr) as (m & Hm & <-); apply fwon_abs.
  specialize (Hall m Hm); cbv beta in Hall; rewrite andb_true_iff, negb_true_iff in Hall; apply Hall.
Qed.

(** Up to column order (`CertUpTo.v`'s `checkCertUpTo`): each position is looked up with its columns in
the order `fcanon` gives. *)
Definition checkFastUpTo (r : Rules) (s0 : State) (c : FSet) : bool :=
  let f0 := ofState s0 in
  stateEqb (absS f0) s0 && fcontains c (fcanon f0) &&
  fforall (fun s => negb (fwon s) && forallb (fun t => fcontains c (fcanon t)) (fmoves r s)) c.

Lemma fcanon_Holds c s : FMember c (fcanon s) -> exists m, Holds c m /\ SameUpToOrder (absS s) m.
Proof.
  intros H; exists (absS (fcanon s)); split; [apply member_Holds, H|].
  rewrite fcanon_abs; apply canon_same.
Qed.

Theorem unwinnable_of_fast_up_to_column_order r s0 c :
  length (cols s0) = 8 -> checkFastUpTo r s0 c = true -> forall s, Reachable r s0 s -> ~ Won s.
Proof.
  intros H8; unfold checkFastUpTo; rewrite !andb_true_iff; intros [[H0 Hstart] Hall].
  pose proof (fforall_member _ _ Hall) as Hall'; clear Hall; rename Hall' into Hall.
  apply (unwinnable_of_fence_up_to_column_order r s0 (Holds c) H8).
  - destruct (fcanon_Holds c _ (fcontains_member _ _ Hstart)) as (m & Hm & Hs); rewrite (ofState_abs s0 H0) in Hs; eauto.
  - intros s t (m & Hm & <-) Ht; destruct (fmoves_in r m t Ht) as (u & Hu & <-); apply fcanon_Holds, fcontains_member.
    specialize (Hall m Hm); cbv beta in Hall; rewrite andb_true_iff, forallb_forall in Hall; apply (proj2 Hall), Hu.
  - intros s (m & Hm & <-); apply fwon_abs.
    specialize (Hall m Hm); cbv beta in Hall; rewrite andb_true_iff, negb_true_iff in Hall; apply Hall.
Qed.

(** With safe automatic moves (`CertAuto.v`'s `checkCertAuto`): no foundation returns, the start a valid
position, each position looked up after its safe automatic moves, up to column order, every member
settled. *)
Definition checkFastAuto (r : Rules) (s0 : State) (c : FSet) : bool :=
  let f0 := ofState s0 in
  stateEqb (absS f0) s0 && negb (foundationReturn r) && validb s0 && fcontains c (fcanon (fautoplay f0)) &&
  fforall (fun s => negb (fwon s) && fsettled s &&
                    forallb (fun t => fcontains c (fcanon (fautoplay t))) (fmoves r s)) c.

Lemma fauto_Holds c s : FMember c (fcanon (fautoplay s)) ->
  exists m, Holds c m /\ exists u, AutoReachBy lowSafe (absS s) u /\ SameUpToOrder u m.
Proof.
  intros H; destruct (fcanon_Holds c _ H) as (m & Hm & Hsame); exists m; split; [exact Hm|].
  exists (absS (fautoplay s)); split; [rewrite fautoplay_abs; apply autoplay_reach|exact Hsame].
Qed.

Theorem unwinnable_of_fast_auto r s0 c : checkFastAuto r s0 c = true -> forall s, Reachable r s0 s -> ~ Won s.
Proof.
  unfold checkFastAuto; rewrite !andb_true_iff, negb_true_iff.
  intros [[[[H0 Hr] Hv] Hstart] Hall]; pose proof (fforall_member _ _ Hall) as Hall'; clear Hall; rename Hall' into Hall.
  apply (unwinnable_of_safe_autoplay_fence_up_to_column_order r s0 (Holds c) Hr (validb_Valid s0 Hv)).
  - destruct (fauto_Holds c _ (fcontains_member _ _ Hstart)) as (m & Hm & Hs); rewrite (ofState_abs s0 H0) in Hs; eauto.
  - intros s t (m & Hm & <-) Ht; destruct (fmoves_in r m t Ht) as (u & Hu & <-); apply fauto_Holds, fcontains_member.
    specialize (Hall m Hm); cbv beta in Hall; rewrite !andb_true_iff, forallb_forall in Hall; apply (proj2 Hall), Hu.
  - intros s (m & Hm & <-); apply fwon_abs.
    specialize (Hall m Hm); cbv beta in Hall; rewrite !andb_true_iff, negb_true_iff in Hall; apply Hall.
Qed.

End Check.
