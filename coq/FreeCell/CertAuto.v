(** * Certificates with safe automatic moves, up to column order (kernel-checked)

A certificate of this form (header rules `"column_order": true, "autoplay": "safe"`; the enumeration of
`solver explore --canonical --autoplay safe`) holds one position for each class of positions that differ
only in the order of their columns, each taken after the safe automatic moves: no card on top of a
column or in a free cell may go home by the "safe" rule (`Autoplay.v`'s `lowSafe`).

`checkCertAuto` is `CertUpTo.v`'s `checkCertUpTo` with three changes: every position (the start, and
each move of each member) is looked up after the safe automatic moves (`autoplay`: one card home at a
time, the first column from the left whose top card may go, else the first free cell's card, until
none may, at most 52 times), then with its columns in the order `canon` gives; every member must be
settled (`settled`: no card of it may go home by the rule); and the check itself computes that the
start is a valid position (`Autoplay.v`'s `validb`: eight columns, four foundations, each of the 52
cards once) and that the rules have no foundation returns, the two hypotheses of `Autoplay.v`'s lemma
that are not about the set.

`checkCertAuto_fence`: a certificate that passes the check gives exactly the hypotheses of `Autoplay.v`'s
`unwinnable_of_safe_autoplay_fence_up_to_column_order` for the set of its members, so
`unwinnable_of_cert_auto`: `checkCertAuto hash r s0 c = true -> forall s, Reachable r s0 s -> ~ Won s`,
about `Spec.v`'s `Reachable` and `Won`, for any start (its validity is part of the computation). Which
card `autoplay` sends home first, and whether it stops early, do not matter to the proof: every step it
takes is an automatic move (`autoStep_step`), so a wrong choice can only make the check fail; `settled`
is not needed for soundness (it makes the check refuse a member that is not after its automatic moves,
as the other checkers do). The key `hash` is a parameter, as in `Cert.v`. Coq's standard library only;
no axiom. This is Coq only: no Lean file proves the lemma on automatic moves. *)

From Coq Require Import List Bool Arith Lia PArith FMapPositive Permutation.
From FreeCell Require Import Spec Cert Columns Autoplay CertUpTo.
Import ListNotations.

(** ** The safe automatic moves, as a function *)

(** The first `Some` of `f` along `l`. *)
Fixpoint firstSome {A B} (f : A -> option B) (l : list A) : option B :=
  match l with
  | [] => None
  | x :: xs => match f x with Some y => Some y | None => firstSome f xs end
  end.

Lemma firstSome_In {A B} (f : A -> option B) l b :
  firstSome f l = Some b -> exists a, In a l /\ f a = Some b.
Proof.
  induction l as [|x xs IH]; simpl; [discriminate|].
  destruct (f x) as [y|] eqn:E.
  - intros H; injection H as <-; exists x; auto.
  - intros H; destruct (IH H) as (a & Ha & Hf); exists a; auto.
Qed.

(** The top card of column `i` home, when the rule allows it. *)
Definition autoCol (s : State) (i : nat) : option State :=
  match nth i (cols s) [] with
  | [] => None
  | c :: rest =>
    if homeBy lowSafe (home s) c
    then Some (state (set (cols s) i rest) (cells s) (set (home s) (suit c) (rank c))) else None
  end.

(** The free cell's card `c` home, when the rule allows it. *)
Definition autoCell (s : State) (c : Card) : option State :=
  if homeBy lowSafe (home s) c
  then Some (state (cols s) (erase cardEqb (cells s) c) (set (home s) (suit c) (rank c))) else None.

(** One safe automatic move: the first column (0 … 7) whose top card may go home, else the first free
cell whose card may; `None` when no card may. *)
Definition autoStep (s : State) : option State :=
  match firstSome (autoCol s) (seq 0 8) with
  | Some t => Some t
  | None => firstSome (autoCell s) (cells s)
  end.

(** Safe automatic moves until none is left (at most `n`). *)
Fixpoint autoplayN (n : nat) (s : State) : State :=
  match n with
  | O => s
  | S n => match autoStep s with Some t => autoplayN n t | None => s end
  end.

(** At most 52: each move sends a card home. *)
Definition autoplay (s : State) : State := autoplayN 52 s.

(** No card may go home by the rule. *)
Definition settled (s : State) : bool := match autoStep s with None => true | Some _ => false end.

Lemma autoStep_step s t : autoStep s = Some t -> AutoStepBy lowSafe s t.
Proof.
  unfold autoStep.
  destruct (firstSome (autoCol s) (seq 0 8)) as [u|] eqn:E.
  - intros H; injection H as <-.
    destruct (firstSome_In _ _ _ E) as (i & Hi & Hu); apply in_seq in Hi.
    unfold autoCol in Hu; destruct (nth i (cols s) []) as [|c rest] eqn:En; [discriminate|].
    destruct (homeBy lowSafe (home s) c) eqn:Hc; [|discriminate].
    injection Hu as <-; apply auto_col; [lia|exact En|exact Hc].
  - intros H; destruct (firstSome_In _ _ _ H) as (c & Hin & Hu).
    unfold autoCell in Hu; destruct (homeBy lowSafe (home s) c) eqn:Hc; [|discriminate].
    injection Hu as <-; apply auto_cell; assumption.
Qed.

Lemma autoplayN_reach n s : AutoReachBy lowSafe s (autoplayN n s).
Proof.
  revert s; induction n as [|n IH]; intros s; simpl; [constructor|].
  destruct (autoStep s) as [t|] eqn:E; [|constructor].
  apply ar_step with t; [apply autoStep_step, E|apply IH].
Qed.

(** `autoplay s` is reached from `s` by safe automatic moves. *)
Lemma autoplay_reach s : AutoReachBy lowSafe s (autoplay s).
Proof. apply autoplayN_reach. Qed.

(** ** The check *)

Section CheckAuto.

Variable hash : State -> positive.

(** `s` is in the set after its safe automatic moves, up to column order. *)
Definition containsAuto (c : CertSet) (s : State) : bool := containsUpTo hash c (autoplay s).

(** The fence test: the rules have no foundation returns, the start is a valid position and is in `c`
after its automatic moves, up to column order; every member is not won, is settled, and has every move
in `c` after its automatic moves, up to column order. *)
Definition checkCertAuto (r : Rules) (s0 : State) (c : CertSet) : bool :=
  negb (foundationReturn r) && validb s0 && containsAuto c s0 &&
  forallb (fun s => negb (won s) && settled s && forallb (containsAuto c) (moves r s)) (members c).

Lemma containsAuto_member c s : containsAuto c s = true ->
  exists m, In m (members c) /\ exists u, AutoReachBy lowSafe s u /\ SameUpToOrder u m.
Proof.
  intros H; destruct (containsUpTo_member hash c (autoplay s) H) as (m & Hm & Hsame).
  exists m; split; [exact Hm|exists (autoplay s); split; [apply autoplay_reach|exact Hsame]].
Qed.

(** A certificate that passes the check gives the hypotheses of `Autoplay.v`'s
`unwinnable_of_safe_autoplay_fence_up_to_column_order`, for the set of its members. *)
Theorem checkCertAuto_fence r s0 c : checkCertAuto r s0 c = true ->
  foundationReturn r = false /\ Valid s0 /\
  (exists m, In m (members c) /\ exists u, AutoReachBy lowSafe s0 u /\ SameUpToOrder u m) /\
  (forall s t, In s (members c) -> In t (moves r s) ->
     exists m, In m (members c) /\ exists u, AutoReachBy lowSafe t u /\ SameUpToOrder u m) /\
  (forall s, In s (members c) -> ~ Won s).
Proof.
  unfold checkCertAuto; rewrite !andb_true_iff, negb_true_iff, forallb_forall.
  intros (((Hr & Hv) & Hstart) & Hall); split; [exact Hr|split; [apply validb_Valid, Hv|split]].
  - apply containsAuto_member, Hstart.
  - split.
    + intros s t Hs Ht; specialize (Hall s Hs); rewrite !andb_true_iff, forallb_forall in Hall.
      apply containsAuto_member, (proj2 Hall t Ht).
    + intros s Hs; specialize (Hall s Hs); rewrite !andb_true_iff, negb_true_iff in Hall.
      apply not_Won_of_won, Hall.
Qed.

(** The theorem such a certificate buys: no position reachable from `s0` is won. *)
Theorem unwinnable_of_cert_auto : forall r s0 c, checkCertAuto r s0 c = true ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof.
  intros r s0 c H; destruct (checkCertAuto_fence r s0 c H) as (Hr & Hv & Hstart & Hclosed & Hnone).
  exact (unwinnable_of_safe_autoplay_fence_up_to_column_order r s0 (fun m => In m (members c)) Hr Hv
           Hstart Hclosed Hnone).
Qed.

End CheckAuto.
