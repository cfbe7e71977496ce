(** * Automatic moves to the foundations (kernel-checked)

What this file proves, about the Coq spec (`Spec.v`), for rules without foundation returns
(`foundationReturn r = false`): playing a card to its foundation by the C core's rules "horne",
"safe" or "twos" never loses a win, in the form a search that makes such moves automatically can use.

  - A rule is a test `low h c` on a card `c` that may go home (`canHome h c`), on foundations of
    heights `h` (`homeBy low h c := canHome h c && low h c`). For a red card the suits of the
    other colour are clubs 0 and spades 3, for a black card diamonds 1 and hearts 2; the other suit
    of its colour is `3 - suit c`.
    "horne", `lowOthers`: an ace, or both foundations of the other colour reach rank − 1;
    `safeHome h c` (`homeBy lowOthers`).
    "safe", `lowSafe`: rank ≤ 2, or both foundations of the other colour reach rank − 1, or both
    reach rank − 2 and the other suit of its colour reaches rank − 3.
    "twos", `lowTwos`: rank ≤ 2.
  - `AutoStepBy low s t`: `t` is `s` with one card allowed by the rule, on top of a column or in a
    free cell, moved to its foundation; `AutoStepBy_move`: it is a move (`In t (moves r s)`, any
    rules). `AutoReachBy low`: any number of them (reflexive-transitive closure). `AutoStep` and
    `AutoReach` are "horne"'s (`AutoStepBy lowOthers`, `AutoReachBy lowOthers`); `AutoStep_move`.
  - `Valid s`: eight columns, four foundations, and the 52 cards (`deck`) each exactly once among
    the columns, the free cells and the foundations (`homeCards`: ranks 1 … height of each suit):
    `Permutation (concat (cols s) ++ cells s ++ homeCards (home s)) deck`. `validb` is a boolean
    check of it (`validb_Valid`); `msDeal_11982_valid` shows it, by the kernel's virtual machine, for
    deal 11982.
  - `unwinnable_of_autoplay_fence` ("horne"): for a valid start `s0`, a set `C` that holds, after
    some automatic moves, the start and every move of each member, and holds no won state, shows
    `forall s, Reachable r s0 s -> ~ Won s`; `unwinnable_of_autoplay_fence_up_to_column_order`: the
    same with "holds" up to column order (after the automatic moves, some member has the same free
    cells and foundations and its columns in some order, `Columns.v`'s `SameUpToOrder`), by
    `Columns.v`'s `moves_ColEquiv` and `AutoStep_swapCols` (automatic moves commute with swapping
    two columns). The first is the second with each member standing for itself.
    `unwinnable_of_safe_autoplay_fence` and `..._up_to_column_order`: the same with `AutoReachBy
    lowSafe`; `unwinnable_of_twos_autoplay_fence` and `..._up_to_column_order`: with `AutoReachBy
    lowTwos`. All six are instances of `unwinnable_of_autoplay_by_fence` (and `..._up_to_column_order`)
    for any rule with `LowRule` (`lowOthers_rule`, `lowSafe_rule`, `lowTwos_rule`).

`LowRule low`, what the proof needs of a rule: it still holds on higher foundations (`low_mono`),
and (`low_stack`) a card `y` that stacks on a card `p` home on `h` and allowed by the rule there is
home on `h` too, or is the next card of its suit there and allowed by the rule. (For "safe": if `p`
passes by its loose clause, `y`'s foundation reaches rank `p` − 2 = rank `y` − 1, and `y` passes by
the loose clause: its other colour is `p`'s, whose suits reach rank `p` and rank `p` − 3.)

The proof is a simulation. `Dom low t s` ("`t` dominates `s`"): `t` is `s` with the cards of ranks
(height in `s`, height in `t`] of each suit (the set `S`) moved home, each of them allowed by the
rule on `t`'s foundations (`low (home t)`); the columns of `t` are those of `s` without these cards,
and its free cells too (up to order). A move of `s` either moves a card of `S` (then `t` still
dominates the result, `skip_Dom`: `sim`'s left disjunct), or is matched by a move of `t` to a state
that dominates the result (`sim`'s right disjunct): the same move when the card it moves is not in
`S` and it does not land on a card of `S`; when it lands on a card of `S`, the card is the next of
its suit in `t` and allowed by the rule (`stack_on_S`), and `t` sends it home instead (an automatic
move, `AutoStep_Dom`, after which the move of `s` moves a card of `S`). Automatic moves keep `t`
dominating `s` (`AutoStep_Dom`), and a state that dominates a won state is won (`Dom_Won`). Along the
way every position reachable from a valid start has its cards all different, above their
foundations, of ranks 1 … 13 (`Inv`, `moves_Inv`).

What it does not prove: nothing here looks at the C core (that its automatic moves are these, or
that its search is complete, is NOT verified: solver/fc_internal.h's `safe_home` was read beside `lowOthers`,
`lowSafe` and `lowTwos`, not proved equal to them); nothing about rules with foundation returns.
Coq's standard library only; no axiom (`Print Assumptions unwinnable_of_safe_autoplay_fence`:
"Closed under the global context", and the same for the other five). *)

From Coq Require Import List Bool Arith NArith Lia Permutation.
From FreeCell Require Import Spec Columns.
Import ListNotations.

(** ** Lemmas on lists *)

Lemma cardEqb_true x y : cardEqb x y = true <-> x = y.
Proof.
  destruct x as [a b], y as [c d]; unfold cardEqb; simpl; rewrite andb_true_iff, !Nat.eqb_eq.
  split; [intros [-> ->]; reflexivity|intros E; injection E as -> ->; auto].
Qed.

Lemma cardEqb_refl x : cardEqb x x = true.
Proof. apply cardEqb_true; reflexivity. Qed.

Lemma card_eq x y : rank x = rank y -> suit x = suit y -> x = y.
Proof. destruct x, y; simpl; intros -> ->; reflexivity. Qed.

Lemma Permutation_filter' {A} (p : A -> bool) l l' :
  Permutation l l' -> Permutation (filter p l) (filter p l').
Proof.
  induction 1; simpl; try constructor; auto.
  - destruct (p x); auto.
  - destruct (p x), (p y); try constructor; reflexivity.
  - eapply perm_trans; eauto.
Qed.

Lemma filter_filter' {A} (p q : A -> bool) l :
  filter p (filter q l) = filter (fun x => q x && p x) l.
Proof.
  induction l as [|x l IH]; simpl; [auto|].
  destruct (q x); simpl; [destruct (p x); simpl; rewrite IH; auto|exact IH].
Qed.

Lemma filter_all {A} (p : A -> bool) l : (forall x, In x l -> p x = true) -> filter p l = l.
Proof.
  intros H; rewrite (filter_ext_in p (fun _ => true)) by auto; clear H.
  induction l as [|x l IH]; simpl; [auto|rewrite IH; auto].
Qed.

Lemma filter_length_le' {A} (p : A -> bool) l : length (filter p l) <= length l.
Proof. induction l as [|x l IH]; simpl; [auto|destruct (p x); simpl; lia]. Qed.

Lemma map_set {A B} (f : A -> B) l i a : map f (set l i a) = set (map f l) i (f a).
Proof. revert i; induction l as [|x l IH]; intros [|i]; simpl; f_equal; auto. Qed.

Lemma nth_map_nil {A B} (f : list A -> list B) l i :
  f [] = [] -> nth i (map f l) [] = f (nth i l []).
Proof. intros H; rewrite <- H at 1; apply map_nth. Qed.

Lemma set_nth_self {A} (l : list A) i d : set l i (nth i l d) = l.
Proof. revert i; induction l as [|x l IH]; intros [|i]; simpl; f_equal; auto. Qed.

Lemma set_set {A} (l : list A) i a b : set (set l i a) i b = set l i b.
Proof. revert i; induction l as [|x l IH]; intros [|i]; simpl; f_equal; auto. Qed.

Lemma nth_set_same {A} (l : list A) i a d : i < length l -> nth i (set l i a) d = a.
Proof. intros H; rewrite nth_set by exact H; rewrite Nat.eqb_refl; reflexivity. Qed.

Lemma concat_map_filter {A} (p : A -> bool) ls :
  concat (map (filter p) ls) = filter p (concat ls).
Proof. induction ls as [|l ls IH]; simpl; [auto|rewrite filter_app, IH; auto]. Qed.

(** The columns with the one at `i` replaced by `a`: the cards of the old column traded for `a`'s. *)
Lemma Permutation_concat_set {A} (ls : list (list A)) i a :
  i < length ls -> Permutation (nth i ls [] ++ concat (set ls i a)) (a ++ concat ls).
Proof.
  revert i; induction ls as [|l ls IH]; intros [|i] Hi; simpl in *; try lia.
  - apply Permutation_app_swap_app.
  - eapply perm_trans; [apply Permutation_app_swap_app|].
    eapply perm_trans; [apply Permutation_app_head, IH; lia|].
    apply Permutation_app_swap_app.
Qed.

Lemma Permutation_concat_take {A} (ls : list (list A)) i y rest :
  i < length ls -> nth i ls [] = y :: rest -> Permutation (concat ls) (y :: concat (set ls i rest)).
Proof.
  intros Hi E; pose proof (Permutation_concat_set ls i rest Hi) as P; rewrite E in P.
  apply (Permutation_app_inv_l rest); symmetry.
  eapply perm_trans; [|exact P]; simpl; apply Permutation_sym, Permutation_middle.
Qed.

Lemma Permutation_concat_put {A} (ls : list (list A)) j y :
  j < length ls -> Permutation (concat (set ls j (y :: nth j ls []))) (y :: concat ls).
Proof.
  intros Hj; pose proof (Permutation_concat_set ls j (y :: nth j ls []) Hj) as P.
  apply (Permutation_app_inv_l (nth j ls [])).
  eapply perm_trans; [exact P|]; simpl; apply Permutation_middle.
Qed.

Lemma Permutation_insertSorted c l : Permutation (insertSorted c l) (c :: l).
Proof.
  induction l as [|d l IH]; simpl; [auto|].
  destruct (key c <=? key d); [auto|].
  eapply perm_trans; [apply perm_skip, IH|apply perm_swap].
Qed.

Lemma Permutation_erase l c : In c l -> Permutation l (c :: erase cardEqb l c).
Proof.
  induction l as [|d l IH]; simpl; [intros []|intros H].
  destruct (cardEqb d c) eqn:E.
  - apply cardEqb_true in E; subst; auto.
  - destruct H as [->|H]; [rewrite cardEqb_refl in E; discriminate|].
    eapply perm_trans; [apply perm_skip, IH, H|apply perm_swap].
Qed.

Lemma filter_erase_out (p : Card -> bool) l c :
  p c = false -> filter p (erase cardEqb l c) = filter p l.
Proof.
  intros Hp; induction l as [|d l IH]; simpl; [auto|].
  destruct (cardEqb d c) eqn:E.
  - apply cardEqb_true in E; subst; rewrite Hp; auto.
  - simpl; rewrite IH; auto.
Qed.

Lemma NoDup_app_l {A} (l m : list A) : NoDup (l ++ m) -> NoDup l.
Proof.
  induction l as [|x l IH]; simpl; intros H; [constructor|].
  inversion H; subst; constructor; [rewrite in_app_iff in *; tauto|auto].
Qed.

Lemma NoDup_app_disj {A} (l m : list A) x : NoDup (l ++ m) -> In x l -> ~ In x m.
Proof.
  induction l as [|y l IH]; simpl; intros H Hx; [destruct Hx|].
  inversion H; subst; destruct Hx as [->|Hx]; [rewrite in_app_iff in *; tauto|auto].
Qed.

(** ** A move, taken apart (rules without foundation returns) *)

Definition piles (s : State) : list Card := concat (cols s) ++ cells s.

Inductive Src (s : State) : Card -> State -> option nat -> Prop :=
  | src_col : forall i y rest, i < 8 -> nth i (cols s) [] = y :: rest ->
      Src s y (withCols s (set (cols s) i rest)) (Some i)
  | src_cell : forall y, In y (cells s) -> Src s y (withCells s (erase cardEqb (cells s) y)) None.

Inductive Dest (r : Rules) (s : State) (y : Card) (s1 : State) (src : option nat) : State -> Prop :=
  | dest_home : canHome (home s) y = true ->
      Dest r s y s1 src (withHome s1 (set (home s1) (suit y) (rank y)))
  | dest_col : forall j, j < 8 -> src <> Some j ->
      (nth j (cols s1) [] = [] \/ exists p ps, nth j (cols s1) [] = p :: ps /\ canStack y p = true) ->
      Dest r s y s1 src (withCols s1 (set (cols s1) j (y :: nth j (cols s1) [])))
  | dest_cell : forall i, src = Some i -> length (cells s1) < freeCells r ->
      Dest r s y s1 src (withCells s1 (insertSorted y (cells s1))).

Lemma Src_iff s y s1 src : In (y, s1, src) (fromColsOf s ++ fromCellsOf s) <-> Src s y s1 src.
Proof.
  rewrite in_app_iff; split.
  - intros [H|H].
    + unfold fromColsOf in H; apply in_filterMap in H as (k & Hk & Hf); apply in_seq in Hk.
      destruct (nth k (cols s) []) as [|c rest] eqn:E; [discriminate|].
      injection Hf as <- <- <-; constructor; [lia|exact E].
    + unfold fromCellsOf in H; apply in_map_iff in H as (c & Hf & Hin).
      injection Hf as <- <- <-; constructor; exact Hin.
  - intros [i y' rest Hi E|y' Hin].
    + left; unfold fromColsOf; apply in_filterMap; exists i; split; [apply in_seq; lia|].
      rewrite E; reflexivity.
    + right; unfold fromCellsOf; apply in_map_iff; exists y'; auto.
Qed.

Lemma place_iff r s y s1 src t : In t (place r s (y, s1, src)) <-> Dest r s y s1 src t.
Proof.
  unfold place; rewrite !in_app_iff; split.
  - intros [H|[H|H]].
    + destruct (canHome (home s) y) eqn:E; simpl in H; [|contradiction].
      destruct H as [<-|[]]; constructor; exact E.
    + unfold toCols in H; apply in_filterMap in H as (j & Hj & Hf); apply in_seq in Hj.
      destruct (match src with Some i => i =? j | None => false end) eqn:Es; [discriminate|].
      assert (Hs : src <> Some j).
      { destruct src; [intros E; injection E as ->; rewrite Nat.eqb_refl in Es|]; discriminate. }
      destruct (nth j (cols s1) []) as [|p ps] eqn:E.
      * injection Hf as <-.
        pose proof (dest_col r s y s1 src j ltac:(lia) Hs (or_introl E)) as Hd.
        rewrite E in Hd; exact Hd.
      * destruct (canStack y p) eqn:Ec; [|discriminate]; injection Hf as <-.
        pose proof (dest_col r s y s1 src j ltac:(lia) Hs
                      (or_intror (ex_intro _ p (ex_intro _ ps (conj E Ec))))) as Hd.
        rewrite E in Hd; exact Hd.
    + destruct (isSome src && (length (cells s1) <? freeCells r)) eqn:E; simpl in H; [|contradiction].
      destruct H as [<-|[]]; apply andb_true_iff in E as [E1 E2].
      destruct src as [i|]; [|discriminate].
      apply (dest_cell r s y s1 (Some i) i eq_refl); apply Nat.ltb_lt; exact E2.
  - intros [E|j Hj Hs Hc|i Ei Hl].
    + left; rewrite E; left; reflexivity.
    + right; left; unfold toCols; apply in_filterMap; exists j; split; [apply in_seq; lia|].
      replace (match src with Some i => i =? j | None => false end) with false
        by (destruct src as [i|]; [symmetry; apply Nat.eqb_neq; intros ->; apply Hs; reflexivity
                                   |reflexivity]).
      destruct Hc as [E|(p & ps & E & Ec)]; rewrite E; [reflexivity|rewrite Ec; reflexivity].
    + right; right; subst src; simpl; apply Nat.ltb_lt in Hl; rewrite Hl; left; reflexivity.
Qed.

Lemma moves_iff r s t : foundationReturn r = false ->
  In t (moves r s) <-> exists y s1 src, Src s y s1 src /\ Dest r s y s1 src t.
Proof.
  intros Hr; rewrite moves_parts; unfold fromHome; rewrite Hr, app_nil_r, in_flat_map; split.
  - intros ([[y s1] src] & Hin & Ht); exists y, s1, src; split;
      [apply Src_iff; exact Hin|apply place_iff; exact Ht].
  - intros (y & s1 & src & Hs & Hd); exists (y, s1, src); split;
      [apply Src_iff; exact Hs|apply place_iff; exact Hd].
Qed.

Lemma Src_home s y s1 src : Src s y s1 src -> home s1 = home s /\ length (cols s1) = length (cols s).
Proof. intros [i y' rest _ _|y' _]; simpl; rewrite ?length_set; auto. Qed.

Lemma Src_piles s y s1 src :
  length (cols s) = 8 -> Src s y s1 src -> Permutation (piles s) (y :: piles s1).
Proof.
  intros H8 [i y' rest Hi E|y' Hin]; unfold piles; simpl.
  - change (y' :: concat (set (cols s) i rest) ++ cells s)
      with ((y' :: concat (set (cols s) i rest)) ++ cells s).
    apply (Permutation_app_tail (cells s)), (Permutation_concat_take _ i); [lia|exact E].
  - eapply perm_trans; [apply Permutation_app_head, Permutation_erase, Hin|].
    apply Permutation_sym, Permutation_middle.
Qed.

Lemma Dest_piles r s y s1 src t :
  length (cols s1) = 8 -> Dest r s y s1 src t ->
  length (cols t) = 8 /\
  ((home t = set (home s1) (suit y) (rank y) /\ piles t = piles s1 /\ canHome (home s) y = true)
   \/ (home t = home s1 /\ Permutation (piles t) (y :: piles s1))).
Proof.
  intros H8 [E|j Hj Hs Hc|i Ei Hl]; simpl; rewrite ?length_set; split; auto.
  - right; split; [reflexivity|]; unfold piles; simpl.
    change (y :: concat (cols s1) ++ cells s1) with ((y :: concat (cols s1)) ++ cells s1).
    apply (Permutation_app_tail (cells s1)), Permutation_concat_put; lia.
  - right; split; [reflexivity|]; unfold piles; simpl.
    eapply perm_trans; [apply Permutation_app_head, Permutation_insertSorted|].
    apply Permutation_sym, Permutation_middle.
Qed.

(** ** What every position reachable from a valid one has *)

Record Inv (s : State) : Prop := {
  inv_cols : length (cols s) = 8;
  inv_home : length (home s) = 4;
  inv_nodup : NoDup (piles s);
  inv_cards : forall x, In x (piles s) -> suit x < 4 /\ nth (suit x) (home s) 0 < rank x /\ rank x <= 13;
  inv_13 : forall k, nth k (home s) 0 <= 13 }.

Lemma moves_Inv r s t : foundationReturn r = false -> Inv s -> In t (moves r s) -> Inv t.
Proof.
  intros Hr [H8 H4 Hnd Hc H13] Ht; apply moves_iff in Ht as (y & s1 & src & Hs & Hd); [|exact Hr].
  destruct (Src_home s y s1 src Hs) as [Hh1 Hl1].
  pose proof (Src_piles s y s1 src H8 Hs) as Hp.
  assert (Hy := Hc y (Permutation_in _ (Permutation_sym Hp) (in_eq _ _))).
  assert (Hnd1 : NoDup (y :: piles s1)) by (eapply Permutation_NoDup; eauto).
  assert (Hin1 : forall x, In x (piles s1) -> In x (piles s))
    by (intros x Hx; apply (Permutation_in _ (Permutation_sym Hp)); right; exact Hx).
  destruct (Dest_piles r s y s1 src t ltac:(lia) Hd) as (Ht8 & [(Hh & Hpt & Hch)|(Hh & Hpt)]).
  - constructor.
    + exact Ht8.
    + rewrite Hh, length_set, Hh1; exact H4.
    + rewrite Hpt; inversion Hnd1; assumption.
    + intros x Hx; rewrite Hpt in Hx.
      assert (Hxy : x <> y) by (intros ->; inversion Hnd1; contradiction).
      destruct (Hc x (Hin1 x Hx)) as (Hs4 & Hlt & H13x).
      rewrite Hh, Hh1, nth_set by lia.
      destruct (Nat.eqb_spec (suit x) (suit y)) as [e|]; [|auto].
      split; [auto|split; [|auto]].
      unfold canHome in Hch; apply Nat.eqb_eq in Hch; rewrite e in Hlt.
      assert (rank x <> rank y) by (intros E; apply Hxy, card_eq; auto).
      lia.
    + intros k; rewrite Hh, Hh1.
      destruct (Nat.lt_ge_cases k 4).
      * rewrite nth_set by lia; destruct (k =? suit y); [lia|auto].
      * rewrite nth_overflow by (rewrite length_set; lia); lia.
  - constructor.
    + exact Ht8.
    + rewrite Hh, Hh1; exact H4.
    + eapply Permutation_NoDup; [apply Permutation_sym, Hpt|exact Hnd1].
    + intros x Hx; rewrite Hh, Hh1; apply Hc.
      apply (Permutation_in _ Hpt) in Hx as [<-|Hx]; [|apply Hin1]; auto.
      apply (Permutation_in _ (Permutation_sym Hp)); left; reflexivity.
    + rewrite Hh, Hh1; exact H13.
Qed.

(** ** Valid positions: the 52 cards, each once *)

(** A fresh deck, as `Spec.v`'s `dealOrder` spells it: A♣ A♦ A♥ A♠ 2♣ … K♠. *)
Definition deck : list Card := map (fun i => card (i / 4 + 1) (i mod 4)) (seq 0 52).

(** The cards on the foundations of heights `h`: ranks 1 … `nth k h 0` of each suit `k`. *)
Definition homeCards (h : list nat) : list Card :=
  flat_map (fun k => map (fun r => card r k) (seq 1 (nth k h 0))) (seq 0 4).

(** Eight columns, four foundations, and the 52 cards each exactly once among the columns, the free
cells and the foundations. *)
Definition Valid (s : State) : Prop :=
  length (cols s) = 8 /\ length (home s) = 4 /\
  Permutation (concat (cols s) ++ cells s ++ homeCards (home s)) deck.

Definition card_eq_dec (a b : Card) : {a = b} + {a <> b}.
Proof. decide equality; apply Nat.eq_dec. Defined.

(** The same, as a check the kernel can run: each card as often as in the deck. *)
Definition validb (s : State) : bool :=
  (length (cols s) =? 8) && (length (home s) =? 4) &&
  let l := concat (cols s) ++ cells s ++ homeCards (home s) in
  forallb (fun x => count_occ card_eq_dec l x =? count_occ card_eq_dec deck x) (l ++ deck).

Lemma validb_Valid s : validb s = true -> Valid s.
Proof.
  unfold validb, Valid; rewrite !andb_true_iff, !Nat.eqb_eq, forallb_forall.
  intros ((H8 & H4) & Hc); repeat split; auto.
  apply (Permutation_count_occ card_eq_dec); intros x.
  destruct (in_dec card_eq_dec x ((concat (cols s) ++ cells s ++ homeCards (home s)) ++ deck))
    as [Hx|Hx].
  - apply Nat.eqb_eq, Hc, Hx.
  - rewrite in_app_iff in Hx; rewrite !(proj1 (count_occ_not_In _ _ _)) by tauto; reflexivity.
Qed.

Lemma in_homeCards h x : In x (homeCards h) <-> suit x < 4 /\ 1 <= rank x <= nth (suit x) h 0.
Proof.
  unfold homeCards; rewrite in_flat_map; split.
  - intros (k & Hk & Hx); apply in_seq in Hk; apply in_map_iff in Hx as (r0 & <- & Hr).
    apply in_seq in Hr; simpl; lia.
  - intros (H4 & H1 & H2); exists (suit x); split; [apply in_seq; lia|].
    apply in_map_iff; exists (rank x); split; [destruct x; reflexivity|apply in_seq; lia].
Qed.

Lemma deck_cards x : In x deck -> suit x < 4 /\ 1 <= rank x <= 13.
Proof.
  intros H.
  assert (F : forallb (fun c => (suit c <? 4) && (1 <=? rank c) && (rank c <=? 13)) deck = true)
    by (vm_compute; reflexivity).
  rewrite forallb_forall in F; specialize (F x H).
  rewrite !andb_true_iff, Nat.ltb_lt, !Nat.leb_le in F; lia.
Qed.

Lemma deck_NoDup : NoDup deck.
Proof.
  apply (NoDup_map_inv key).
  replace (map key deck) with (seq 0 52) by (vm_compute; reflexivity).
  apply seq_NoDup.
Qed.

Lemma Valid_Inv s : Valid s -> Inv s.
Proof.
  intros (H8 & H4 & Hp); rewrite app_assoc in Hp.
  assert (Hnd : NoDup (piles s ++ homeCards (home s)))
    by (eapply Permutation_NoDup; [apply Permutation_sym, Hp|apply deck_NoDup]).
  assert (Hdeck : forall x, In x (piles s ++ homeCards (home s)) -> suit x < 4 /\ 1 <= rank x <= 13)
    by (intros x Hx; apply deck_cards, (Permutation_in _ Hp), Hx).
  constructor; auto.
  - eapply NoDup_app_l; exact Hnd.
  - intros x Hx.
    destruct (Hdeck x ltac:(apply in_or_app; left; exact Hx)) as (Hs & Hr).
    pose proof (NoDup_app_disj _ _ x Hnd Hx) as Hn; rewrite in_homeCards in Hn; lia.
  - intros k; destruct (Nat.lt_ge_cases k 4); [|rewrite nth_overflow by lia; lia].
    destruct (nth k (home s) 0) as [|n] eqn:E; [lia|].
    assert (Hin : In (card (S n) k) (homeCards (home s))) by (apply in_homeCards; simpl; rewrite E; lia).
    destruct (Hdeck _ ltac:(apply in_or_app; right; exact Hin)) as (_ & Hr); simpl in Hr; lia.
Qed.

(** ** Rules for automatic moves *)

(** A rule for automatic moves is a test `low h c`: may `c`, the next card of its suit (`canHome`),
go home by itself on foundations of heights `h`. Three rules, the C core's (solver/fc_internal.h,
`safe_home`), for a red card `o1`, `o2` = clubs 0 and spades 3, for a black card diamonds 1 and
hearts 2 (the suits of the other colour), and `3 - suit c` the other suit of its colour:

  - "horne", `lowOthers`: an ace, or both `o1`, `o2` reach rank − 1;
  - "safe", `lowSafe`: rank at most 2, or both `o1`, `o2` reach rank − 1, or both reach rank − 2 and
    `3 - suit c` reaches rank − 3;
  - "twos", `lowTwos`: rank at most 2. *)
Definition lowOthers (h : list nat) (c : Card) : bool :=
  (rank c =? 1) ||
  ((rank c - 1 <=? nth (if red c then 0 else 1) h 0) && (rank c - 1 <=? nth (if red c then 3 else 2) h 0)).

Definition lowSafe (h : list nat) (c : Card) : bool :=
  (rank c <=? 2) ||
  ((rank c - 1 <=? nth (if red c then 0 else 1) h 0) && (rank c - 1 <=? nth (if red c then 3 else 2) h 0)) ||
  ((rank c - 2 <=? nth (if red c then 0 else 1) h 0) && (rank c - 2 <=? nth (if red c then 3 else 2) h 0) &&
   (rank c - 3 <=? nth (3 - suit c) h 0)).

Definition lowTwos (h : list nat) (c : Card) : bool := rank c <=? 2.

(** `c` goes home by itself under the rule `low`. *)
Definition homeBy (low : list nat -> Card -> bool) (h : list nat) (c : Card) : bool :=
  canHome h c && low h c.

(** The C core's "horne" rule: `c` may go home, and it is an ace or both foundations of the other
colour reach its rank − 1. *)
Definition safeHome (h : list nat) (c : Card) : bool := homeBy lowOthers h c.

(** One automatic move by the rule `low`: a card from the top of a column or from a free cell to its
foundation. *)
Inductive AutoStepBy (low : list nat -> Card -> bool) (s : State) : State -> Prop :=
  | auto_col : forall i c rest, i < 8 -> nth i (cols s) [] = c :: rest -> homeBy low (home s) c = true ->
      AutoStepBy low s (state (set (cols s) i rest) (cells s) (set (home s) (suit c) (rank c)))
  | auto_cell : forall c, In c (cells s) -> homeBy low (home s) c = true ->
      AutoStepBy low s (state (cols s) (erase cardEqb (cells s) c) (set (home s) (suit c) (rank c))).

(** Any number of automatic moves by the rule `low`. *)
Inductive AutoReachBy (low : list nat -> Card -> bool) : State -> State -> Prop :=
  | ar_refl : forall s, AutoReachBy low s s
  | ar_step : forall s t u, AutoStepBy low s t -> AutoReachBy low t u -> AutoReachBy low s u.

(** The "horne" rule's: a safe card (`safeHome`) home, and any number of them. *)
Definition AutoStep : State -> State -> Prop := AutoStepBy lowOthers.
Definition AutoReach : State -> State -> Prop := AutoReachBy lowOthers.

Lemma AutoStepBy_Src low s t : AutoStepBy low s t ->
  exists c s1 src, Src s c s1 src /\ homeBy low (home s) c = true /\
                   t = withHome s1 (set (home s1) (suit c) (rank c)).
Proof.
  intros [i c rest Hi E Hc|c Hin Hc].
  - exists c, (withCols s (set (cols s) i rest)), (Some i); split; [constructor; auto|auto].
  - exists c, (withCells s (erase cardEqb (cells s) c)), None; split; [constructor; auto|auto].
Qed.

(** The other way: a card taken from its place and sent home, by the rule, is an automatic move. *)
Lemma Src_AutoStepBy low s y s1 src : Src s y s1 src -> homeBy low (home s) y = true ->
  AutoStepBy low s (withHome s1 (set (home s1) (suit y) (rank y))).
Proof.
  intros [i y' rest Hi E|y' Hin] Hy; [exact (auto_col low s i y' rest Hi E Hy)|exact (auto_cell low s y' Hin Hy)].
Qed.

(** An automatic move is a move, under any rules. *)
Lemma AutoStepBy_move low r s t : AutoStepBy low s t -> In t (moves r s).
Proof.
  intros Ha; destruct (AutoStepBy_Src low s t Ha) as (c & s1 & src & Hs & Hc & ->).
  rewrite moves_parts; apply in_or_app; left; apply in_flat_map.
  exists (c, s1, src); split; [apply Src_iff; exact Hs|apply place_iff].
  apply dest_home; unfold homeBy in Hc; apply andb_true_iff in Hc; apply Hc.
Qed.

Theorem AutoStep_move r s t : AutoStep s t -> In t (moves r s).
Proof. apply AutoStepBy_move. Qed.

(** What the proof needs of a rule: it holds on higher foundations too, and a card `y` that stacks on
a card `p` home on `h` and allowed by the rule there is home on `h` too, or the next card of its suit
and allowed by the rule. *)
Record LowRule (low : list nat -> Card -> bool) : Prop := {
  low_mono : forall h h' x, (forall k, nth k h 0 <= nth k h' 0) -> low h x = true -> low h' x = true;
  low_stack : forall h y p, length h = 4 -> suit y < 4 -> 1 <= rank y -> rank p <= nth (suit p) h 0 ->
    low h p = true -> canStack y p = true ->
    rank y <= nth (suit y) h 0 \/ (nth (suit y) h 0 + 1 = rank y /\ low h y = true) }.

(** The cases of a rule's `low_stack`: four foundations, the suits of `y` and `p`, then arithmetic. *)
Ltac low_cases :=
  let a := fresh "a" in let b := fresh "b" in let c := fresh "c" in let d := fresh "d" in
  intros h y p Hl Hy4 Hy1 Hp Hlo Hst;
  assert (Hp4 : suit p < 4)
    by (destruct (Nat.lt_ge_cases (suit p) 4) as [?|?]; [assumption|rewrite nth_overflow in Hp by lia];
        unfold canStack in Hst; apply andb_true_iff in Hst as [Hst _]; apply Nat.eqb_eq in Hst; lia);
  destruct y as [ry sy], p as [rp sp];
  destruct h as [|a [|b [|c [|d [|? ?]]]]]; simpl in Hl; try discriminate;
  unfold canStack, red in *; simpl in *;
  destruct sy as [|[|[|[|sy]]]]; try lia;
  destruct sp as [|[|[|[|sp]]]]; simpl in *; try discriminate; try lia;
  repeat rewrite ?orb_true_iff, ?andb_true_iff, ?Nat.leb_le, ?Nat.eqb_eq in *; lia.

Lemma lowOthers_rule : LowRule lowOthers.
Proof.
  constructor.
  - intros h h' x H; unfold lowOthers; rewrite !orb_true_iff, !andb_true_iff, !Nat.leb_le.
    pose proof (H (if red x then 0 else 1)); pose proof (H (if red x then 3 else 2)); intuition lia.
  - unfold lowOthers; low_cases.
Qed.

Lemma lowSafe_rule : LowRule lowSafe.
Proof.
  constructor.
  - intros h h' x H; unfold lowSafe; rewrite !orb_true_iff, !andb_true_iff, !Nat.leb_le.
    pose proof (H (if red x then 0 else 1)); pose proof (H (if red x then 3 else 2));
      pose proof (H (3 - suit x)); intuition lia.
  - unfold lowSafe; low_cases.
Qed.

Lemma lowTwos_rule : LowRule lowTwos.
Proof.
  constructor.
  - intros h h' x H; unfold lowTwos; auto.
  - unfold lowTwos; low_cases.
Qed.

Lemma le_set h i v : nth i h 0 <= v -> forall k, nth k h 0 <= nth k (set h i v) 0.
Proof.
  revert i; induction h as [|a h IH]; intros [|i] Hv [|k]; simpl in *; auto.
Qed.

(** ** `t` dominates `s`: `t` is `s` with the cards of ranks (home s, home t] moved home, each safe *)

Definition inS (hs ht : list nat) (x : Card) : bool :=
  (nth (suit x) hs 0 <? rank x) && (rank x <=? nth (suit x) ht 0).

Definition keep (hs ht : list nat) (x : Card) : bool := negb (inS hs ht x).

Record Dom (low : list nat -> Card -> bool) (t s : State) : Prop := {
  dom_cols : cols t = map (filter (keep (home s) (home t))) (cols s);
  dom_cells : Permutation (cells t) (filter (keep (home s) (home t)) (cells s));
  dom_len : length (home t) = 4;
  dom_le : forall k, nth k (home s) 0 <= nth k (home t) 0;
  dom_13 : forall k, nth k (home t) 0 <= 13;
  dom_safe : forall x, inS (home s) (home t) x = true -> low (home t) x = true }.

Ltac bdestr :=
  repeat match goal with
  | |- context [?a <? ?b] => destruct (Nat.ltb_spec a b)
  | |- context [?a <=? ?b] => destruct (Nat.leb_spec a b)
  | |- context [?a =? ?b] => destruct (Nat.eqb_spec a b)
  end; simpl; auto; try lia.

Lemma filter_ext' {A} (p q : A -> bool) l : (forall x, p x = q x) -> filter p l = filter q l.
Proof. intros H; apply filter_ext_in; auto. Qed.

Lemma map_filter_ext {A} (p q : A -> bool) ls :
  (forall x, p x = q x) -> map (filter p) ls = map (filter q) ls.
Proof. intros H; apply map_ext; intros l; apply filter_ext', H. Qed.

Lemma piles_Dom low t s : Dom low t s -> Permutation (piles t) (filter (keep (home s) (home t)) (piles s)).
Proof.
  intros Hd; unfold piles; rewrite (dom_cols low t s Hd), concat_map_filter, filter_app.
  apply Permutation_app_head, (dom_cells low t s Hd).
Qed.

Lemma Dom_refl low s : Inv s -> Dom low s s.
Proof.
  intros [H8 H4 Hnd Hc H13].
  assert (K : forall x, keep (home s) (home s) x = true)
    by (intros x; unfold keep, inS; bdestr).
  assert (F : forall l, filter (keep (home s) (home s)) l = l) by (intros l; apply filter_all; auto).
  constructor; auto.
  - rewrite (map_ext _ (fun l => l) F), map_id; reflexivity.
  - rewrite F; reflexivity.
  - intros x; unfold inS; bdestr.
Qed.

Lemma Dom_same_home low t s t' s' :
  Dom low t s -> home t' = home t -> home s' = home s ->
  cols t' = map (filter (keep (home s) (home t))) (cols s') ->
  Permutation (cells t') (filter (keep (home s) (home t)) (cells s')) -> Dom low t' s'.
Proof.
  intros [Dc Dce Dl Dle D13 Dsafe] Ht Hs Hc Hce; constructor; rewrite ?Ht, ?Hs; auto.
Qed.

(** Without `y` (a card of the piles, all different): what taking `y` from its place leaves. *)
Definition without (y : Card) : Card -> bool := fun x => negb (cardEqb x y).

Lemma without_notin y l : ~ In y l -> filter (without y) l = l.
Proof.
  intros H; apply filter_all; intros x Hx; unfold without.
  destruct (cardEqb x y) eqn:E; [apply cardEqb_true in E; subst; contradiction|reflexivity].
Qed.

Lemma map_without_notin y ls : ~ In y (concat ls) -> map (filter (without y)) ls = ls.
Proof.
  intros H; rewrite (map_ext_in _ (fun l => l)); [apply map_id|].
  intros l Hl; apply without_notin; intros Hy; apply H, in_concat; eauto.
Qed.

Lemma Src_unique u y u1 src :
  length (cols u) = 8 -> NoDup (piles u) -> Src u y u1 src ->
  cols u1 = map (filter (without y)) (cols u) /\
  Permutation (cells u1) (filter (without y) (cells u)).
Proof.
  intros H8 Hnd Hs.
  pose proof (Src_piles u y u1 src H8 Hs) as Hp.
  assert (Hy : ~ In y (piles u1))
    by (apply (Permutation_NoDup Hp) in Hnd; inversion Hnd; assumption).
  unfold piles in Hy; rewrite in_app_iff in Hy.
  destruct Hs as [i y' rest Hi E|y' Hin]; simpl in *.
  - assert (Hr : nth i (set (cols u) i rest) [] = rest) by (apply nth_set_same; lia).
    split; [|rewrite without_notin by tauto; reflexivity].
    rewrite <- (set_nth_self (cols u) i []) at 2; rewrite E.
    rewrite <- (set_set (cols u) i rest (y' :: rest)), map_set, map_without_notin by tauto.
    simpl; replace (without y' y') with false by (unfold without; rewrite cardEqb_refl; reflexivity).
    rewrite without_notin, set_set; [reflexivity|].
    intros Hy'; apply Hy; left; apply in_concat; exists rest; split; [|exact Hy'].
    rewrite <- Hr at 1; apply nth_In; rewrite length_set; lia.
  - split; [rewrite map_without_notin by tauto; reflexivity|].
    eapply perm_trans; [|apply Permutation_filter'; symmetry; apply Permutation_erase, Hin].
    simpl; replace (without y' y') with false by (unfold without; rewrite cardEqb_refl; reflexivity).
    rewrite without_notin by tauto; reflexivity.
Qed.

Lemma card_neq_rank x y : suit x = suit y -> cardEqb x y = false -> rank x <> rank y.
Proof.
  intros Hs E Hr; assert (x = y) by (apply card_eq; auto); subst; rewrite cardEqb_refl in E; discriminate.
Qed.

Lemma card_neq_suit x y : suit x <> suit y -> cardEqb x y = false.
Proof. intros Hs; destruct (cardEqb x y) eqn:E; [apply cardEqb_true in E; subst; congruence|auto]. Qed.

(** An automatic move of `y` adds `y` to the cards home in `t` but not in `s`. *)
Lemma inS_auto hs ht y x :
  suit y < 4 -> length ht = 4 -> nth (suit y) hs 0 < rank y -> rank y = nth (suit y) ht 0 + 1 ->
  inS hs (set ht (suit y) (rank y)) x = inS hs ht x || cardEqb x y.
Proof.
  intros Hy4 Hl Hlt Hr; unfold inS; rewrite nth_set by lia.
  destruct (Nat.eqb_spec (suit x) (suit y)) as [e|n].
  - destruct (cardEqb x y) eqn:E.
    + apply cardEqb_true in E; subst; rewrite orb_true_r; bdestr.
    + pose proof (card_neq_rank x y e E); rewrite orb_false_r, e; bdestr.
  - rewrite card_neq_suit, orb_false_r by exact n; reflexivity.
Qed.

(** Moving `y` home in `s` takes it out of the cards home in `t` but not in `s`. *)
Lemma inS_src hs ht y x :
  suit y < 4 -> length hs = 4 -> rank y = nth (suit y) hs 0 + 1 ->
  inS (set hs (suit y) (rank y)) ht x = inS hs ht x && negb (cardEqb x y).
Proof.
  intros Hy4 Hl Hr; unfold inS; rewrite nth_set by lia.
  destruct (Nat.eqb_spec (suit x) (suit y)) as [e|n].
  - destruct (cardEqb x y) eqn:E.
    + apply cardEqb_true in E; subst; rewrite andb_false_r; bdestr.
    + pose proof (card_neq_rank x y e E); rewrite andb_true_r, e; bdestr.
  - rewrite card_neq_suit, andb_true_r by exact n; reflexivity.
Qed.

(** Moving `y` home in both, where both foundations of its suit agree, changes nothing. *)
Lemma inS_both hs ht y x :
  suit y < 4 -> length hs = 4 -> length ht = 4 -> rank y = nth (suit y) hs 0 + 1 ->
  nth (suit y) ht 0 = nth (suit y) hs 0 ->
  inS (set hs (suit y) (rank y)) (set ht (suit y) (rank y)) x = inS hs ht x.
Proof.
  intros Hy4 Hl Hl' Hr He; unfold inS; rewrite !nth_set by lia.
  destruct (Nat.eqb_spec (suit x) (suit y)) as [e|n]; [rewrite e; bdestr|reflexivity].
Qed.

(** A card `y` that stacks on a card `p` of `S` (home in `t`, allowed by the rule there) is in `S`
too, or it is the next card of its suit in `t` and allowed by the rule (`LowRule`'s `low_stack`). *)
Lemma stack_on_S low hs ht y p :
  LowRule low -> length ht = 4 -> suit y < 4 -> nth (suit y) hs 0 < rank y -> canStack y p = true ->
  inS hs ht p = true -> low ht p = true ->
  inS hs ht y = true \/ (nth (suit y) ht 0 + 1 = rank y /\ low ht y = true).
Proof.
  intros Hlow Hl Hy4 Hlt Hst HpS Hlo.
  unfold inS in HpS; apply andb_true_iff in HpS as [_ Hp]; apply Nat.leb_le in Hp.
  destruct (low_stack low Hlow ht y p Hl Hy4 ltac:(lia) Hp Hlo Hst) as [H|H]; [left|right; exact H].
  unfold inS; apply andb_true_iff; rewrite Nat.ltb_lt, Nat.leb_le; auto.
Qed.

Lemma AutoStep_Dom low s t t' : LowRule low -> Inv s -> Dom low t s -> AutoStepBy low t t' -> Dom low t' s.
Proof.
  intros Hlow Hs Hd Ha; pose proof Hs as [H8 H4 Hnd Hc H13].
  destruct (AutoStepBy_Src low t t' Ha) as (y & t1 & src & Hsrc & Hsafe & ->).
  assert (Ht8 : length (cols t) = 8) by (rewrite (dom_cols low t s Hd), map_length; exact H8).
  pose proof (piles_Dom low t s Hd) as Hpt.
  assert (Hndt : NoDup (piles t))
    by (eapply Permutation_NoDup; [apply Permutation_sym, Hpt|apply NoDup_filter, Hnd]).
  assert (Hyt : In y (piles t))
    by (apply (Permutation_in _ (Permutation_sym (Src_piles _ _ _ _ Ht8 Hsrc))); left; reflexivity).
  apply (Permutation_in _ Hpt), filter_In in Hyt as [Hys Hky].
  destruct (Hc y Hys) as (Hy4 & Hylt & Hy13).
  destruct (Src_home _ _ _ _ Hsrc) as [Hh1 _].
  destruct (Src_unique _ _ _ _ Ht8 Hndt Hsrc) as [Uc Uce].
  unfold homeBy in Hsafe; apply andb_true_iff in Hsafe as [Hch Hlo].
  unfold canHome in Hch; apply Nat.eqb_eq in Hch.
  pose proof Hd as [Dc Dce Dl Dle D13 Dsafe].
  assert (EK : forall x, keep (home s) (set (home t) (suit y) (rank y)) x
                         = keep (home s) (home t) x && without y x).
  { intros x; unfold keep, without; rewrite inS_auto by lia.
    destruct (inS (home s) (home t) x), (cardEqb x y); reflexivity. }
  assert (Hmono : forall k, nth k (home t) 0 <= nth k (set (home t) (suit y) (rank y)) 0)
    by (apply le_set; lia).
  constructor; simpl; rewrite ?Hh1.
  - rewrite Uc, Dc, map_map; apply map_ext; intros l; rewrite filter_filter'.
    apply filter_ext'; intros x; rewrite EK; reflexivity.
  - eapply perm_trans; [exact Uce|]; eapply perm_trans; [apply Permutation_filter', Dce|].
    rewrite filter_filter', (filter_ext' _ (keep (home s) (set (home t) (suit y) (rank y))));
      [reflexivity|intros x; rewrite EK; reflexivity].
  - rewrite length_set; exact Dl.
  - intros k; eapply Nat.le_trans; [apply Dle|apply Hmono].
  - intros k; destruct (Nat.lt_ge_cases k 4).
    + rewrite nth_set by lia; destruct (k =? suit y); [lia|apply D13].
    + rewrite nth_overflow by (rewrite length_set; lia); lia.
  - intros x Hx; rewrite inS_auto in Hx by lia; apply orb_true_iff in Hx as [Hx|Hx];
      apply (low_mono low Hlow (home t)); auto.
    apply cardEqb_true in Hx; subst; exact Hlo.
Qed.

Lemma AutoReach_Dom low s t u : LowRule low -> Inv s -> AutoReachBy low t u -> Dom low t s -> Dom low u s.
Proof. intros Hlow Hs; induction 1; intros Hd; [exact Hd|apply IHAutoReachBy; eapply AutoStep_Dom; eauto]. Qed.

Lemma Dom_Won low t s : Dom low t s -> Won s -> Won t.
Proof.
  intros [_ _ Dl Dle D13 _]; unfold Won; intros Hw; rewrite Hw in Dle.
  destruct (home t) as [|a [|b [|c [|d [|e h]]]]]; simpl in Dl; try discriminate.
  pose proof (Dle 0); pose proof (Dle 1); pose proof (Dle 2); pose proof (Dle 3).
  pose proof (D13 0); pose proof (D13 1); pose proof (D13 2); pose proof (D13 3).
  simpl in *; repeat f_equal; lia.
Qed.

(** ** The simulation: a move of `s` is matched by `t`, or skipped *)

(** A move of `s` that moves a card of `S` (home in `t` already): `t` still dominates the result. *)
Lemma skip_Dom low r s y s1 src s' t :
  Inv s -> Dom low t s -> Src s y s1 src -> Dest r s y s1 src s' -> keep (home s) (home t) y = false ->
  Dom low t s'.
Proof.
  intros Hs Hd Hsrc Hdst Ky; pose proof Hs as [H8 H4 Hnd Hc H13]; pose proof Hd as [Dc Dce Dl Dle D13 Dsafe].
  destruct (Src_home _ _ _ _ Hsrc) as [Hh1 Hl1].
  pose proof (Src_piles _ _ _ _ H8 Hsrc) as Hp.
  destruct (Hc y (Permutation_in _ (Permutation_sym Hp) (in_eq _ _))) as (Hy4 & Hylt & Hy13).
  assert (Hny : ~ In y (piles s1)) by (apply (Permutation_NoDup Hp) in Hnd; inversion Hnd; assumption).
  set (K := keep (home s) (home t)) in *.
  assert (Hs1 : cols t = map (filter K) (cols s1) /\ Permutation (cells t) (filter K (cells s1))).
  { destruct Hsrc as [i y' rest Hi E|y' Hin]; simpl.
    - split; [|exact Dce].
      rewrite map_set, <- Dc, <- (set_nth_self (cols t) i []) at 1; f_equal.
      rewrite Dc, nth_map_nil by reflexivity; rewrite E; simpl; rewrite Ky; reflexivity.
    - split; [exact Dc|]; rewrite filter_erase_out by exact Ky; exact Dce. }
  destruct Hs1 as [Hc1 Hce1].
  destruct Hdst as [Ech|j Hj Hsj Hcj|i Ei Hl].
  + (* `y` goes home in `s` *)
    assert (Hcs : rank y = nth (suit y) (home s) 0 + 1)
      by (unfold canHome in Ech; apply Nat.eqb_eq in Ech; lia).
    assert (HyS : inS (home s) (home t) y = true)
      by (unfold K, keep in Ky; apply negb_false_iff in Ky; exact Ky).
    assert (EK : forall x, x <> y -> keep (set (home s) (suit y) (rank y)) (home t) x = K x).
    { intros x Hx; unfold K, keep; rewrite inS_src by lia.
      destruct (cardEqb x y) eqn:E; [apply cardEqb_true in E; contradiction|].
      rewrite andb_true_r; reflexivity. }
    unfold piles in Hny; rewrite in_app_iff in Hny.
    constructor; simpl; rewrite ?Hh1.
    * rewrite Hc1; apply map_ext_in; intros l Hl; apply filter_ext_in; intros x Hx; symmetry.
      apply EK; intros ->; apply Hny; left; apply in_concat; eauto.
    * rewrite (filter_ext_in _ K (cells s1)); [exact Hce1|].
      intros x Hx; apply EK; intros ->; apply Hny; right; exact Hx.
    * exact Dl.
    * intros k; destruct (Nat.lt_ge_cases k 4).
      -- rewrite nth_set by lia; destruct (Nat.eqb_spec k (suit y)); [subst k|apply Dle].
         unfold inS in HyS; apply andb_true_iff in HyS as [_ HyS]; apply Nat.leb_le in HyS; lia.
      -- rewrite nth_overflow by (rewrite length_set; lia); lia.
    * exact D13.
    * intros x Hx; rewrite inS_src in Hx by lia; apply andb_true_iff in Hx as [Hx _].
      apply Dsafe, Hx.
  + (* onto a column *)
    apply (Dom_same_home low t s); [exact Hd|reflexivity|simpl; exact Hh1| |simpl; exact Hce1].
    simpl; fold K; rewrite map_set; cbn [filter]; rewrite Ky, <- Hc1.
    rewrite <- (set_nth_self (cols t) j []) at 1; f_equal.
    rewrite Hc1, nth_map_nil by reflexivity; reflexivity.
  + (* into a free cell *)
    apply (Dom_same_home low t s); [exact Hd|reflexivity|simpl; exact Hh1|simpl; exact Hc1|simpl; fold K].
    eapply perm_trans; [exact Hce1|].
    eapply perm_trans; [|apply Permutation_filter', Permutation_sym, Permutation_insertSorted].
    simpl; rewrite Ky; reflexivity.
Qed.

Lemma sim low r s s' t : LowRule low -> foundationReturn r = false -> Inv s -> Dom low t s ->
  In s' (moves r s) -> Dom low t s' \/ exists t', In t' (moves r t) /\ Dom low t' s'.
Proof.
  intros Hlow Hr Hs Hd Hm; pose proof Hs as [H8 H4 Hnd Hc H13]; pose proof Hd as [Dc Dce Dl Dle D13 Dsafe].
  apply (moves_iff r s s' Hr) in Hm as (y & s1 & src & Hsrc & Hdst).
  destruct (Src_home _ _ _ _ Hsrc) as [Hh1 Hl1].
  pose proof (Src_piles _ _ _ _ H8 Hsrc) as Hp.
  destruct (Hc y (Permutation_in _ (Permutation_sym Hp) (in_eq _ _))) as (Hy4 & Hylt & Hy13).
  assert (Hny : ~ In y (piles s1)) by (apply (Permutation_NoDup Hp) in Hnd; inversion Hnd; assumption).
  set (K := keep (home s) (home t)) in *.
  destruct (K y) eqn:Ky; [|left; apply (skip_Dom low r s y s1 src s' t Hs Hd Hsrc Hdst Ky)].
  (* `y` is not home in `t`: `t` makes the same move, or sends `y` home *)
  right.
  assert (Hsrc' : exists t1, Src t y t1 src /\ home t1 = home t /\
                  cols t1 = map (filter K) (cols s1) /\ Permutation (cells t1) (filter K (cells s1))).
  { destruct Hsrc as [i y' rest Hi E|y' Hin].
    - exists (withCols t (set (cols t) i (filter K rest))); split; [|split; [reflexivity|split]].
      + constructor; [exact Hi|].
        rewrite Dc, nth_map_nil by reflexivity; rewrite E; simpl; rewrite Ky; reflexivity.
      + simpl; rewrite Dc, map_set; reflexivity.
      + simpl; exact Dce.
    - assert (Hin' : In y' (cells t))
        by (apply (Permutation_in _ (Permutation_sym Dce)), filter_In; auto).
      exists (withCells t (erase cardEqb (cells t) y')); split; [|split; [reflexivity|split]].
      + constructor; exact Hin'.
      + simpl; exact Dc.
      + simpl; apply Permutation_cons_inv with y'.
        eapply perm_trans; [apply Permutation_sym, Permutation_erase, Hin'|].
        eapply perm_trans; [exact Dce|].
        eapply perm_trans; [apply Permutation_filter', Permutation_erase, Hin|].
        simpl; rewrite Ky; reflexivity. }
  destruct Hsrc' as (t1 & Ht1 & Hth & Htc & Htce).
  destruct Hdst as [Ech|j Hj Hsj Hcj|i Ei Hl].
  + (* to its foundation *)
    assert (Hcs : rank y = nth (suit y) (home s) 0 + 1)
      by (unfold canHome in Ech; apply Nat.eqb_eq in Ech; lia).
    assert (Het : nth (suit y) (home t) 0 = nth (suit y) (home s) 0).
    { pose proof (Dle (suit y)); unfold K, keep, inS in Ky.
      apply negb_true_iff, andb_false_iff in Ky; destruct Ky as [Ky|Ky];
        [apply Nat.ltb_ge in Ky|apply Nat.leb_gt in Ky]; lia. }
    exists (withHome t1 (set (home t1) (suit y) (rank y))); split.
    * apply moves_iff; [exact Hr|]; exists y, t1, src; split; [exact Ht1|]; apply dest_home.
      unfold canHome; apply Nat.eqb_eq; lia.
    * assert (EK : forall x, keep (set (home s) (suit y) (rank y)) (set (home t) (suit y) (rank y)) x = K x)
        by (intros x; unfold K, keep; rewrite inS_both by lia; reflexivity).
      constructor; simpl; rewrite ?Hth, ?Hh1.
      -- rewrite Htc; apply map_filter_ext; intros x; symmetry; apply EK.
      -- rewrite (filter_ext' _ K) by exact EK; exact Htce.
      -- rewrite length_set; exact Dl.
      -- intros k; destruct (Nat.lt_ge_cases k 4).
         ++ rewrite !nth_set by lia; destruct (k =? suit y); [lia|apply Dle].
         ++ rewrite !nth_overflow by (rewrite length_set; lia); lia.
      -- intros k; destruct (Nat.lt_ge_cases k 4).
         ++ rewrite !nth_set by lia; destruct (k =? suit y); [lia|apply D13].
         ++ rewrite !nth_overflow by (rewrite length_set; lia); lia.
      -- intros x Hx; rewrite inS_both in Hx by lia.
         apply (low_mono low Hlow (home t)); [apply le_set; lia|apply Dsafe, Hx].
  + (* onto a column: onto an empty one or a card not in `S`, or onto a card `p` of `S` *)
    assert (Hcase : (nth j (cols t1) [] = [] \/
                     exists p ps, nth j (cols t1) [] = p :: ps /\ canStack y p = true) \/
                    (nth (suit y) (home t) 0 + 1 = rank y /\ low (home t) y = true)).
    { rewrite Htc, nth_map_nil by reflexivity.
      destruct Hcj as [E|(p & ps & E & Ec)]; rewrite E; [left; left; reflexivity|simpl].
      destruct (K p) eqn:Kp; [left; right; exists p, (filter K ps); auto|].
      assert (HpS : inS (home s) (home t) p = true)
        by (unfold K, keep in Kp; apply negb_false_iff in Kp; exact Kp).
      destruct (stack_on_S low (home s) (home t) y p Hlow Dl Hy4 Hylt Ec HpS (Dsafe p HpS))
        as [HyS|Hnext]; [|right; exact Hnext].
      unfold K, keep in Ky; rewrite HyS in Ky; discriminate. }
    destruct Hcase as [Hcj'|[Hnext Hlowy]].
    * (* `t` makes the same move *)
      exists (withCols t1 (set (cols t1) j (y :: nth j (cols t1) []))); split.
      -- apply moves_iff; [exact Hr|]; exists y, t1, src; split; [exact Ht1|]; apply dest_col; auto.
      -- apply (Dom_same_home low t s); [exact Hd|simpl; exact Hth|simpl; exact Hh1| |simpl; exact Htce].
         simpl; fold K; rewrite Htc, nth_map_nil, map_set by reflexivity; simpl; rewrite Ky; reflexivity.
    * (* `p` is in `S` and `y` is next on its foundation in `t`: `t` sends `y` home automatically,
         then `y` is in `S` and the move of `s` is skipped *)
      set (t' := withHome t1 (set (home t1) (suit y) (rank y))).
      assert (Ha : AutoStepBy low t t').
      { apply Src_AutoStepBy with src; [exact Ht1|].
        unfold homeBy, canHome; rewrite Hlowy, andb_true_r; apply Nat.eqb_eq; exact Hnext. }
      exists t'; split; [apply AutoStepBy_move with low, Ha|].
      apply (skip_Dom low r s y s1 src _ t' Hs (AutoStep_Dom low s t t' Hlow Hs Hd Ha) Hsrc
               (dest_col r s y s1 src j Hj Hsj Hcj)).
      unfold keep; apply negb_false_iff; unfold t', inS; simpl; rewrite Hth, nth_set by lia.
      rewrite Nat.eqb_refl; apply andb_true_iff; rewrite Nat.ltb_lt, Nat.leb_le; lia.
  + (* into a free cell *)
    exists (withCells t1 (insertSorted y (cells t1))); split.
    * apply moves_iff; [exact Hr|]; exists y, t1, src; split; [exact Ht1|].
      apply (dest_cell r t y t1 src i Ei).
      rewrite (Permutation_length Htce); eapply Nat.le_lt_trans; [apply filter_length_le'|exact Hl].
    * apply (Dom_same_home low t s);
        [exact Hd|simpl; exact Hth|simpl; exact Hh1|simpl; exact Htc|simpl; fold K].
      eapply perm_trans; [apply Permutation_insertSorted|].
      eapply perm_trans; [|apply Permutation_filter', Permutation_sym, Permutation_insertSorted].
      simpl; rewrite Ky; apply perm_skip, Htce.
Qed.

(** ** The fence with automatic moves, up to column order, and without *)

Lemma AutoStep_swapCols low i j a b :
  length (cols a) = 8 -> i < 8 -> j < 8 -> AutoStepBy low a b ->
  AutoStepBy low (swapCols i j a) (swapCols i j b).
Proof.
  intros H8 Hi Hj [k c rest Hk E Hc|c Hin Hc].
  - unfold swapCols at 2, withCols; simpl; rewrite <- set_swapList by lia.
    apply (auto_col low (swapCols i j a) (swapIdx i j k) c rest); [apply swapIdx_lt; lia| |exact Hc].
    rewrite nth_swapCols by assumption; exact E.
  - apply (auto_cell low (swapCols i j a) c Hin Hc).
Qed.

Lemma AutoStep_length low a b : length (cols a) = 8 -> AutoStepBy low a b -> length (cols b) = 8.
Proof. intros H8 Ha; apply (moves_keep_8_columns standard a b H8), (AutoStepBy_move low), Ha. Qed.

Lemma AutoReach_length low a b : length (cols a) = 8 -> AutoReachBy low a b -> length (cols b) = 8.
Proof. intros H8 H; induction H; auto; apply IHAutoReachBy; eapply AutoStep_length; eauto. Qed.

Lemma AutoStep_ColEquiv low a b a' :
  length (cols a) = 8 -> ColEquiv a b -> AutoStepBy low a a' ->
  exists b', AutoStepBy low b b' /\ ColEquiv a' b'.
Proof.
  intros H8 H; revert a'; induction H as [a|i j a b Hij H IH]; intros a' Ha.
  - exists a'; split; [exact Ha|constructor].
  - destruct (IH ltac:(rewrite length_swapCols; exact H8) (swapCols i j a')) as (b' & Hb' & Hab').
    { apply AutoStep_swapCols; (assumption || lia). }
    exists b'; split; [exact Hb'|]; apply ce_swap with i j; assumption.
Qed.

Lemma AutoReach_ColEquiv low a b w :
  length (cols a) = 8 -> ColEquiv a b -> AutoReachBy low a w ->
  exists w', AutoReachBy low b w' /\ ColEquiv w w'.
Proof.
  intros H8 Hab H; revert b H8 Hab; induction H as [a|a a' w Ha _ IH]; intros b H8 Hab.
  - exists b; split; [constructor|exact Hab].
  - destruct (AutoStep_ColEquiv low a b a' H8 Hab Ha) as (b' & Hb' & Hab').
    destruct (IH b' (AutoStep_length low a a' H8 Ha) Hab') as (w' & Hw' & Hww').
    exists w'; split; [apply ar_step with b'; assumption|exact Hww'].
Qed.

Lemma Dom_length low u s : Inv s -> Dom low u s -> length (cols u) = 8.
Proof. intros Hs Hd; rewrite (dom_cols low u s Hd), map_length; apply (inv_cols s Hs). Qed.

(** For any rule with `LowRule`. *)
Theorem unwinnable_of_autoplay_by_fence_up_to_column_order low r s0 (C : State -> Prop) :
  LowRule low -> foundationReturn r = false -> Valid s0 ->
  (exists c, C c /\ exists u, AutoReachBy low s0 u /\ SameUpToOrder u c) ->
  (forall s t, C s -> In t (moves r s) ->
     exists c, C c /\ exists u, AutoReachBy low t u /\ SameUpToOrder u c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof.
  intros Hlow Hr Hv Hstart Hclosed Hnone s Hs.
  assert (H : Inv s /\ exists c u, C c /\ Dom low u s /\ ColEquiv c u).
  { induction Hs as [|s t Hs IH Ht].
    - pose proof (Valid_Inv s0 Hv) as Hi; split; [exact Hi|].
      destruct Hstart as (c & Hc & u & Ha & Hsame).
      assert (Hd : Dom low u s0)
        by (apply AutoReach_Dom with s0; [exact Hlow|exact Hi|exact Ha|apply Dom_refl, Hi]).
      assert (Hu8 := Dom_length low u s0 Hi Hd).
      exists c, u; split; [exact Hc|split; [exact Hd|]].
      apply ColEquiv_sym; [exact Hu8|apply ColEquiv_iff; assumption].
    - destruct IH as (Hi & c & u & Hc & Hd & Hcu).
      assert (Hit : Inv t) by (eapply moves_Inv; eauto).
      split; [exact Hit|].
      assert (Hu8 := Dom_length low u s Hi Hd).
      assert (Hc8 : length (cols c) = 8) by (rewrite <- (ColEquiv_length c u Hcu); exact Hu8).
      destruct (sim low r s t u Hlow Hr Hi Hd Ht) as [Hd'|(u' & Hu' & Hd')]; [exists c, u; auto|].
      destruct (moves_ColEquiv r u c u' Hu8 (ColEquiv_sym c u Hc8 Hcu) Hu') as (m & Hm & Hu'm).
      destruct (Hclosed c m Hc Hm) as (c' & Hc' & w & Hw & Hsame).
      pose proof (moves_keep_8_columns r u u' Hu8 Hu') as Hu'8.
      pose proof (moves_keep_8_columns r c m Hc8 Hm) as Hm8.
      destruct (AutoReach_ColEquiv low m u' w Hm8 (ColEquiv_sym u' m Hu'8 Hu'm) Hw) as (w' & Hw' & Hww').
      pose proof (AutoReach_length low m w Hm8 Hw) as Hw8.
      exists c', w'; split; [exact Hc'|split; [apply AutoReach_Dom with u'; assumption|]].
      apply ColEquiv_trans with w; [|exact Hww'].
      apply ColEquiv_sym; [exact Hw8|apply ColEquiv_iff; assumption]. }
  destruct H as (_ & c & u & Hc & Hd & Hcu); intros Hw.
  apply (Hnone c Hc), (proj2 (Won_ColEquiv c u Hcu)), (Dom_Won low u s Hd Hw).
Qed.

(** The fence without column order: each member stands for itself. *)
Theorem unwinnable_of_autoplay_by_fence low r s0 (C : State -> Prop) :
  LowRule low -> foundationReturn r = false -> Valid s0 ->
  (exists c, C c /\ AutoReachBy low s0 c) ->
  (forall s t, C s -> In t (moves r s) -> exists c, C c /\ AutoReachBy low t c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof.
  assert (Hsame : forall c, SameUpToOrder c c)
    by (intros c; split; [apply Permutation_refl|split; reflexivity]).
  intros Hlow Hr Hv Hstart Hclosed Hnone.
  apply (unwinnable_of_autoplay_by_fence_up_to_column_order low r s0 C Hlow Hr Hv); [| |exact Hnone].
  - destruct Hstart as (c & Hc & Ha); exists c; split; [exact Hc|exists c; auto].
  - intros s t Hs Ht; destruct (Hclosed s t Hs Ht) as (c & Hc & Ha).
    exists c; split; [exact Hc|exists c; auto].
Qed.

(** The "horne" rule (`AutoReach`, `safeHome`). *)
Theorem unwinnable_of_autoplay_fence_up_to_column_order r s0 (C : State -> Prop) :
  foundationReturn r = false -> Valid s0 ->
  (exists c, C c /\ exists u, AutoReach s0 u /\ SameUpToOrder u c) ->
  (forall s t, C s -> In t (moves r s) -> exists c, C c /\ exists u, AutoReach t u /\ SameUpToOrder u c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof. apply unwinnable_of_autoplay_by_fence_up_to_column_order, lowOthers_rule. Qed.

Theorem unwinnable_of_autoplay_fence r s0 (C : State -> Prop) :
  foundationReturn r = false -> Valid s0 ->
  (exists c, C c /\ AutoReach s0 c) ->
  (forall s t, C s -> In t (moves r s) -> exists c, C c /\ AutoReach t c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof. apply unwinnable_of_autoplay_by_fence, lowOthers_rule. Qed.

(** The "safe" rule (`lowSafe`). *)
Theorem unwinnable_of_safe_autoplay_fence_up_to_column_order r s0 (C : State -> Prop) :
  foundationReturn r = false -> Valid s0 ->
  (exists c, C c /\ exists u, AutoReachBy lowSafe s0 u /\ SameUpToOrder u c) ->
  (forall s t, C s -> In t (moves r s) ->
     exists c, C c /\ exists u, AutoReachBy lowSafe t u /\ SameUpToOrder u c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof. apply unwinnable_of_autoplay_by_fence_up_to_column_order, lowSafe_rule. Qed.

Theorem unwinnable_of_safe_autoplay_fence r s0 (C : State -> Prop) :
  foundationReturn r = false -> Valid s0 ->
  (exists c, C c /\ AutoReachBy lowSafe s0 c) ->
  (forall s t, C s -> In t (moves r s) -> exists c, C c /\ AutoReachBy lowSafe t c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof. apply unwinnable_of_autoplay_by_fence, lowSafe_rule. Qed.

(** The "twos" rule (`lowTwos`). *)
Theorem unwinnable_of_twos_autoplay_fence_up_to_column_order r s0 (C : State -> Prop) :
  foundationReturn r = false -> Valid s0 ->
  (exists c, C c /\ exists u, AutoReachBy lowTwos s0 u /\ SameUpToOrder u c) ->
  (forall s t, C s -> In t (moves r s) ->
     exists c, C c /\ exists u, AutoReachBy lowTwos t u /\ SameUpToOrder u c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof. apply unwinnable_of_autoplay_by_fence_up_to_column_order, lowTwos_rule. Qed.

Theorem unwinnable_of_twos_autoplay_fence r s0 (C : State -> Prop) :
  foundationReturn r = false -> Valid s0 ->
  (exists c, C c /\ AutoReachBy lowTwos s0 c) ->
  (forall s t, C s -> In t (moves r s) -> exists c, C c /\ AutoReachBy lowTwos t c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof. apply unwinnable_of_autoplay_by_fence, lowTwos_rule. Qed.

(** ** A deal is valid: the kernel's virtual machine counts its cards *)

Example msDeal_11982_valid : Valid (msDeal 11982%N).
Proof. apply validb_Valid; vm_compute; reflexivity. Qed.
