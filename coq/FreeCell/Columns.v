(** * Reordering the columns (kernel-checked)

What this file proves, about the Coq spec (`Spec.v`, the twin of `lean/FreeCell/Spec.lean`), for any
rules `r`. `swapCols i j s` is `s` with its columns `i` and `j` exchanged; `ColEquiv s u` ("equal up
to column order") is the reflexive-transitive closure of such swaps with `i < j < 8`; for states with
eight columns it is the same as `SameUpToOrder s u`: the same free cells, the same foundations, and
columns that are a permutation of each other (`ColEquiv_iff`).

  - `moves_swapCols_perm`: for `i, j < 8` and `length (cols s) = 8`,
    `Permutation (moves r (swapCols i j s)) (map (swapCols i j) (moves r s))`: the moves of the
    swapped state are those of `s`, swapped, each as many times, in another order; and its
    membership form `moves_swapCols_iff`:
    `In t (moves r s) <-> In (swapCols i j t) (moves r (swapCols i j s))`.
  - `moves_keep_8_columns`: `length (cols s) = 8 -> In t (moves r s) -> length (cols t) = 8`;
    `msDeal_8_columns`: every Microsoft deal has 8 columns.
  - `Won_swapCols`: `Won (swapCols i j s) <-> Won s`;
    `Won_ColEquiv`: `ColEquiv s u -> (Won s <-> Won u)`.
  - `Reachable_ColEquiv`: if `length (cols s0) = 8`, `ColEquiv s0 s0'` and `Reachable r s0 t`, then
    some `t'` has `Reachable r s0' t'` and `ColEquiv t t'`; hence `winnable_ColEquiv`: `s0` and `s0'`
    are both winnable or both not.
  - `unwinnable_of_fence_up_to_order` and `unwinnable_of_fence_up_to_column_order`: for a start `s0`
    with eight columns (`length (cols s0) = 8`), a set `C` of states that holds the start up to
    column order, holds every move of each member up to column order, and holds no won state, shows `forall s, Reachable r s0 s -> ~ Won s`. This is the
    mathematical lemma that enumerating positions up to column order (the C core's canonical mode,
    used by the difficulty survey) stands on.

What it does not prove: nothing here looks at the C core. That its canonical form of a position is a
reordering of the columns, that its enumeration is complete, or that the survey reads it correctly is
NOT verified here. It does not need to be for a certificate: `CertUpTo.v` checks a certificate up to
column order with its own `canon` (`checkCertUpTo`) and proves the theorem from it through
`unwinnable_of_fence_up_to_column_order` (`certgen prove-coq --canonical`); a survey's classification
that keeps no certificate stays unchecked. Lean checks no such certificate. The lemma is proved in Coq
about the Coq spec, not in Lean about Spec.lean. Coq's standard library only;
no axiom (`Print Assumptions` of each theorem above: "Closed under the global context",
`tests/certgen/test_coq.py`). *)

From Coq Require Import List Bool Arith Lia Permutation FinFun.
From FreeCell Require Import Spec.
Import ListNotations.

(** ** Swapping two columns

Where index `k` goes when places `i` and `j` are exchanged. *)
Definition swapIdx (i j k : nat) : nat := if k =? i then j else if k =? j then i else k.

(** The list with its elements at `i` and `j` exchanged (`Spec.v`'s `set` and `nth`). *)
Definition swapList {A} (i j : nat) (d : A) (l : list A) : list A :=
  set (set l i (nth j l d)) j (nth i l d).

(** The state with its columns `i` and `j` exchanged. *)
Definition swapCols (i j : nat) (s : State) : State := withCols s (swapList i j [] (cols s)).

(** ** Lemmas on lists *)

Lemma in_filterMap {A B} (f : A -> option B) (l : list A) (y : B) :
  In y (filterMap f l) <-> exists x, In x l /\ f x = Some y.
Proof.
  induction l as [|a l IH]; simpl.
  - split; [intros []|intros (x & [] & _)].
  - destruct (f a) as [b|] eqn:E; simpl; rewrite IH; split.
    + intros [<-|(x & Hx & Hf)]; [exists a; auto|exists x; auto].
    + intros (x & [<-|Hx] & Hf); [left; congruence|right; exists x; auto].
    + intros (x & Hx & Hf); exists x; auto.
    + intros (x & [<-|Hx] & Hf); [congruence|exists x; auto].
Qed.

Lemma length_set {A} (l : list A) i a : length (set l i a) = length l.
Proof. revert i; induction l as [|x l IH]; intros [|i]; simpl; auto. Qed.

Lemma nth_set {A} (l : list A) i a k d :
  i < length l -> nth k (set l i a) d = if k =? i then a else nth k l d.
Proof.
  revert i k; induction l as [|x l IH]; intros [|i] [|k] H; simpl in *; auto.
  - inversion H.
  - inversion H.
  - apply IH. apply Nat.succ_lt_mono. exact H.
Qed.

Lemma swapIdx_invol i j k : swapIdx i j (swapIdx i j k) = k.
Proof.
  unfold swapIdx.
  destruct (Nat.eqb_spec k i); destruct (Nat.eqb_spec k j); subst;
    repeat (rewrite Nat.eqb_refl || match goal with
    | |- context [?a =? ?b] => destruct (Nat.eqb_spec a b) end); subst; auto; congruence.
Qed.

Lemma swapIdx_eqb i j a b : (swapIdx i j a =? swapIdx i j b) = (a =? b).
Proof.
  destruct (Nat.eqb_spec a b), (Nat.eqb_spec (swapIdx i j a) (swapIdx i j b)); subst; auto.
  exfalso; apply n; rewrite <- (swapIdx_invol i j a), <- (swapIdx_invol i j b); congruence.
Qed.

Lemma swapIdx_lt i j k n : i < n -> j < n -> k < n -> swapIdx i j k < n.
Proof. unfold swapIdx; destruct (k =? i), (k =? j); auto. Qed.

Lemma length_swapList {A} i j (d : A) l : length (swapList i j d l) = length l.
Proof. unfold swapList; rewrite !length_set; reflexivity. Qed.

Lemma nth_swapList {A} i j (d : A) l k :
  i < length l -> j < length l -> nth k (swapList i j d l) d = nth (swapIdx i j k) l d.
Proof.
  intros Hi Hj; unfold swapList, swapIdx.
  rewrite nth_set by (rewrite length_set; exact Hj).
  rewrite nth_set by exact Hi.
  destruct (Nat.eqb_spec k j), (Nat.eqb_spec k i); subst; auto.
Qed.

Lemma set_swapList {A} i j (d : A) l k x :
  i < length l -> j < length l ->
  set (swapList i j d l) (swapIdx i j k) x = swapList i j d (set l k x).
Proof.
  intros Hi Hj.
  apply nth_ext with (d := d) (d' := d).
  - rewrite length_set, !length_swapList, length_set; reflexivity.
  - intros m _.
    rewrite nth_swapList by (rewrite length_set; assumption).
    destruct (Nat.lt_ge_cases k (length l)) as [Hk|Hk].
    + rewrite nth_set by (rewrite length_swapList; apply swapIdx_lt; assumption).
      rewrite nth_set by exact Hk.
      rewrite <- (swapIdx_eqb i j m (swapIdx i j k)), swapIdx_invol.
      destruct (swapIdx i j m =? k); [reflexivity|].
      apply nth_swapList; assumption.
    + (* out of range: both sets leave the list alone *)
      assert (Hs : forall B (l' : list B) n y, length l' <= n -> set l' n y = l').
      { intros B l'; induction l' as [|z l' IH]; intros [|n] y Hn; simpl in *; auto.
        - inversion Hn.
        - f_equal; apply IH, le_S_n, Hn. }
      assert (Hk' : swapIdx i j k = k).
      { unfold swapIdx; destruct (Nat.eqb_spec k i), (Nat.eqb_spec k j); lia. }
      rewrite Hk', !Hs by (rewrite ?length_swapList; exact Hk).
      apply nth_swapList; assumption.
Qed.

(** ** `moves`, cut into its parts (the same terms: `moves_parts` is `reflexivity`)

`fromColsOf` and `fromCellsOf` are where a card is taken from, `place` where it goes, `fromHome`
the moves back from a foundation. *)
Definition fromColsOf (s : State) : list (Card * State * option nat) :=
  filterMap (fun i =>
    match nth i (cols s) [] with
    | [] => None
    | c :: rest => Some (c, withCols s (set (cols s) i rest), Some i)
    end) (seq 0 8).

Definition fromCellsOf (s : State) : list (Card * State * option nat) :=
  map (fun c => (c, withCells s (erase cardEqb (cells s) c), None)) (cells s).

Definition place (r : Rules) (s : State) : Card * State * option nat -> list State :=
  fun '(c, s', src) =>
    (if canHome (home s) c then [withHome s' (set (home s') (suit c) (rank c))] else []) ++
    toCols s' c src ++
    (if isSome src && (length (cells s') <? freeCells r)
     then [withCells s' (insertSorted c (cells s'))] else []).

Definition fromHome (r : Rules) (s : State) : list State :=
  if foundationReturn r then
     flat_map (fun k =>
       let h := nth k (home s) 0 in
       if h =? 0 then [] else toCols (withHome s (set (home s) k (h - 1))) (card h k) None)
     (seq 0 4)
   else [].

Lemma moves_parts r s :
  moves r s = flat_map (place r s) (fromColsOf s ++ fromCellsOf s) ++ fromHome r s.
Proof. reflexivity. Qed.

(** Moves keep the number of columns. *)
Lemma toCols_length s c src t : In t (toCols s c src) -> length (cols t) = length (cols s).
Proof.
  unfold toCols; rewrite in_filterMap; intros (k & _ & Hf).
  destruct (match src with Some i => i =? k | None => false end); [discriminate|].
  destruct (nth k (cols s) []) as [|p ps]; [|destruct (canStack c p); [|discriminate]];
    injection Hf as <-; apply length_set.
Qed.

Lemma sources_length s c s' src :
  In (c, s', src) (fromColsOf s ++ fromCellsOf s) -> length (cols s') = length (cols s).
Proof.
  intros Hin; apply in_app_iff in Hin as [Hin|Hin].
  - unfold fromColsOf in Hin; rewrite in_filterMap in Hin.
    destruct Hin as (k & _ & Hf).
    destruct (nth k (cols s) []) as [|c0 rest]; [discriminate|].
    injection Hf as _ <- _; apply length_set.
  - unfold fromCellsOf in Hin; apply in_map_iff in Hin as (c0 & Hf & _).
    injection Hf as _ <- _; reflexivity.
Qed.

Lemma moves_length r s t : In t (moves r s) -> length (cols t) = length (cols s).
Proof.
  rewrite moves_parts, in_app_iff, in_flat_map.
  intros [([[c s'] src] & Hin & Ht) | Ht].
  - pose proof (sources_length s c s' src Hin) as Hs'.
    unfold place in Ht; rewrite !in_app_iff in Ht.
    destruct Ht as [Ht|[Ht|Ht]].
    + destruct (canHome (home s) c); simpl in Ht; [destruct Ht as [<-|[]]|contradiction]; exact Hs'.
    + rewrite <- Hs'; eapply toCols_length; eauto.
    + destruct (isSome src && (length (cells s') <? freeCells r)); simpl in Ht;
        [destruct Ht as [<-|[]]|contradiction]; exact Hs'.
  - unfold fromHome in Ht; destruct (foundationReturn r); [|contradiction].
    apply in_flat_map in Ht as (k & _ & Ht).
    destruct (nth k (home s) 0 =? 0); [contradiction|].
    apply toCols_length in Ht; exact Ht.
Qed.

Theorem moves_keep_8_columns r s t : length (cols s) = 8 -> In t (moves r s) -> length (cols t) = 8.
Proof. intros H8 Ht; rewrite (moves_length r s t Ht); exact H8. Qed.

(** ** Moves commute with swapping two columns

Lemma 1: the moves of the swapped state are those of `s`, swapped, in another order. *)
Lemma swapCols_cols i j s : cols (swapCols i j s) = swapList i j [] (cols s).
Proof. reflexivity. Qed.

Lemma length_swapCols i j s : length (cols (swapCols i j s)) = length (cols s).
Proof. apply length_swapList. Qed.

Lemma nth_swapCols i j s k :
  length (cols s) = 8 -> i < 8 -> j < 8 ->
  nth (swapIdx i j k) (cols (swapCols i j s)) [] = nth k (cols s) [].
Proof.
  intros H8 Hi Hj; rewrite swapCols_cols, nth_swapList by congruence.
  rewrite swapIdx_invol; reflexivity.
Qed.

Lemma set_swapCols i j s k x :
  length (cols s) = 8 -> i < 8 -> j < 8 ->
  withCols (swapCols i j s) (set (cols (swapCols i j s)) (swapIdx i j k) x)
  = swapCols i j (withCols s (set (cols s) k x)).
Proof.
  intros H8 Hi Hj; rewrite swapCols_cols, set_swapList by congruence; reflexivity.
Qed.

Lemma Permutation_seq_swapIdx i j :
  i < 8 -> j < 8 -> Permutation (map (swapIdx i j) (seq 0 8)) (seq 0 8).
Proof.
  intros Hi Hj; apply NoDup_Permutation.
  - apply Injective_map_NoDup; [|apply seq_NoDup].
    intros a b E; rewrite <- (swapIdx_invol i j a), E, swapIdx_invol; reflexivity.
  - apply seq_NoDup.
  - intros k; rewrite in_map_iff, in_seq; split.
    + intros (m & <- & Hm); apply in_seq in Hm; split; [lia|apply swapIdx_lt; lia].
    + intros Hk; exists (swapIdx i j k); split; [apply swapIdx_invol|apply in_seq; split; [lia|]].
      apply swapIdx_lt; lia.
Qed.

Lemma filterMap_map {A B C} (f : B -> option C) (g : A -> B) l :
  filterMap f (map g l) = filterMap (fun x => f (g x)) l.
Proof. induction l as [|x l IH]; simpl; [reflexivity|rewrite IH; reflexivity]. Qed.

Lemma Permutation_filterMap {A B} (f : A -> option B) l l' :
  Permutation l l' -> Permutation (filterMap f l) (filterMap f l').
Proof.
  induction 1 as [|x l l' _ IH|x y l|l l' l'' _ IH1 _ IH2]; simpl.
  - constructor.
  - destruct (f x); [apply perm_skip|]; exact IH.
  - destruct (f x), (f y); try apply perm_swap; reflexivity.
  - eapply perm_trans; eauto.
Qed.

Lemma filterMap_option_map {A B C} (f : A -> option B) (h : B -> C) f' l :
  (forall x, In x l -> f' x = option_map h (f x)) -> filterMap f' l = map h (filterMap f l).
Proof.
  induction l as [|x l IH]; intros H; simpl; [reflexivity|].
  rewrite H by (left; reflexivity); destruct (f x); simpl;
    rewrite IH by (intros; apply H; right; assumption); reflexivity.
Qed.

(** A choice of column, swapped: the same choices, the swapped way round. *)
Lemma Permutation_filterMap_swap {B C} i j (f : nat -> option B) (f' : nat -> option C) (h : B -> C) :
  i < 8 -> j < 8 ->
  (forall k, k < 8 -> f' (swapIdx i j k) = option_map h (f k)) ->
  Permutation (filterMap f' (seq 0 8)) (map h (filterMap f (seq 0 8))).
Proof.
  intros Hi Hj H.
  rewrite <- (filterMap_option_map f h (fun k => f' (swapIdx i j k)))
    by (intros k Hk; apply in_seq in Hk; apply H; lia).
  rewrite <- (filterMap_map f' (swapIdx i j)).
  apply Permutation_filterMap, Permutation_sym, (Permutation_seq_swapIdx i j Hi Hj).
Qed.

Lemma toCols_swap_perm i j s c src :
  length (cols s) = 8 -> i < 8 -> j < 8 ->
  Permutation (toCols (swapCols i j s) c (option_map (swapIdx i j) src))
              (map (swapCols i j) (toCols s c src)).
Proof.
  intros H8 Hi Hj; unfold toCols; apply (Permutation_filterMap_swap i j); [assumption|assumption|].
  intros k Hk; cbv beta.
  assert (Hsrc :
    match option_map (swapIdx i j) src with Some a => a =? swapIdx i j k | None => false end
    = match src with Some a => a =? k | None => false end).
  { destruct src; simpl; [apply swapIdx_eqb|reflexivity]. }
  rewrite Hsrc, nth_swapCols by assumption.
  destruct (match src with Some a => a =? k | None => false end); [reflexivity|].
  destruct (nth k (cols s) []) as [|p ps].
  - simpl; rewrite set_swapCols by assumption; reflexivity.
  - destruct (canStack c p); simpl; [rewrite set_swapCols by assumption|]; reflexivity.
Qed.

Definition swapSource i j (x : Card * State * option nat) : Card * State * option nat :=
  let '(c, s', src) := x in (c, swapCols i j s', option_map (swapIdx i j) src).

Lemma sources_swap_perm i j s :
  length (cols s) = 8 -> i < 8 -> j < 8 ->
  Permutation (fromColsOf (swapCols i j s) ++ fromCellsOf (swapCols i j s))
              (map (swapSource i j) (fromColsOf s ++ fromCellsOf s)).
Proof.
  intros H8 Hi Hj; rewrite map_app; apply Permutation_app.
  - unfold fromColsOf; apply (Permutation_filterMap_swap i j); [assumption|assumption|].
    intros k Hk; cbv beta; rewrite nth_swapCols by assumption.
    destruct (nth k (cols s) []) as [|c rest]; [reflexivity|].
    simpl; rewrite set_swapCols by assumption; reflexivity.
  - unfold fromCellsOf; rewrite map_map; reflexivity.
Qed.

Lemma Permutation_flat_map_pointwise {A B} (f g : A -> list B) l :
  (forall x, In x l -> Permutation (f x) (g x)) -> Permutation (flat_map f l) (flat_map g l).
Proof.
  induction l as [|x l IH]; intros H; simpl; [constructor|].
  apply Permutation_app; [apply H; left; reflexivity|apply IH; intros; apply H; right; assumption].
Qed.

Lemma map_flat_map' {A B C} (h : B -> C) (f : A -> list B) l :
  map h (flat_map f l) = flat_map (fun x => map h (f x)) l.
Proof. induction l as [|x l IH]; simpl; [reflexivity|rewrite map_app, IH; reflexivity]. Qed.

Lemma flat_map_map' {A B C} (f : B -> list C) (g : A -> B) l :
  flat_map f (map g l) = flat_map (fun x => f (g x)) l.
Proof. induction l as [|x l IH]; simpl; [reflexivity|rewrite IH; reflexivity]. Qed.

(** Lemma 1: `moves r (swapCols i j s)` is `map (swapCols i j) (moves r s)` in another order. *)
Theorem moves_swapCols_perm r i j s :
  length (cols s) = 8 -> i < 8 -> j < 8 ->
  Permutation (moves r (swapCols i j s)) (map (swapCols i j) (moves r s)).
Proof.
  intros H8 Hi Hj; rewrite !moves_parts, map_app; apply Permutation_app.
  - eapply perm_trans; [apply Permutation_flat_map, sources_swap_perm; assumption|].
    rewrite map_flat_map', flat_map_map'; apply Permutation_flat_map_pointwise.
    intros [[c s'] src] Hin; apply sources_length in Hin; rewrite H8 in Hin.
    unfold place; simpl; rewrite !map_app; apply Permutation_app.
    + destruct (canHome (home s) c); apply Permutation_refl.
    + apply Permutation_app; [apply toCols_swap_perm; assumption|].
      replace (isSome (option_map (swapIdx i j) src)) with (isSome src) by (destruct src; reflexivity).
      destruct (isSome src && (length (cells s') <? freeCells r)); apply Permutation_refl.
  - unfold fromHome; destruct (foundationReturn r); [|constructor].
    rewrite map_flat_map'; apply Permutation_flat_map_pointwise; intros k _; simpl.
    destruct (nth k (home s) 0 =? 0); [apply Permutation_refl|].
    apply (toCols_swap_perm i j (withHome s _) _ None); assumption.
Qed.

(** Lemma 1, membership form: a move of `s` is, columns swapped, a move of the swapped `s`. *)
Theorem moves_swapCols r i j s t :
  length (cols s) = 8 -> i < 8 -> j < 8 ->
  In t (moves r s) -> In (swapCols i j t) (moves r (swapCols i j s)).
Proof.
  intros H8 Hi Hj Ht; eapply Permutation_in;
    [apply Permutation_sym, moves_swapCols_perm; assumption|apply in_map, Ht].
Qed.

(** Lemma 3: `Won` does not look at the columns. *)
Theorem Won_swapCols i j s : Won (swapCols i j s) <-> Won s.
Proof. reflexivity. Qed.

(** The swap is its own inverse (on states whose two columns exist). *)
Lemma swapList_invol {A} i j (d : A) l :
  i < length l -> j < length l -> swapList i j d (swapList i j d l) = l.
Proof.
  intros Hi Hj; apply nth_ext with (d := d) (d' := d); rewrite ?length_swapList; [reflexivity|].
  intros m _; rewrite !nth_swapList, swapIdx_invol by (rewrite ?length_swapList; assumption).
  reflexivity.
Qed.

Lemma swapCols_invol i j s :
  length (cols s) = 8 -> i < 8 -> j < 8 -> swapCols i j (swapCols i j s) = s.
Proof.
  intros H8 Hi Hj; destruct s as [cs ce h]; unfold swapCols, withCols; simpl in *.
  rewrite swapList_invol by lia; reflexivity.
Qed.

(** Lemma 1, both ways: `t` is a move of `s` iff the swapped `t` is a move of the swapped `s`. *)
Theorem moves_swapCols_iff r i j s t :
  length (cols s) = 8 -> i < 8 -> j < 8 ->
  In t (moves r s) <-> In (swapCols i j t) (moves r (swapCols i j s)).
Proof.
  intros H8 Hi Hj; split; [apply moves_swapCols; assumption|].
  intros Ht.
  assert (Ht8 : length (cols (swapCols i j t)) = 8).
  { eapply moves_keep_8_columns; [rewrite length_swapCols; exact H8|exact Ht]. }
  apply (moves_swapCols r i j) in Ht; [|rewrite length_swapCols; exact H8|exact Hi|exact Hj].
  rewrite !swapCols_invol in Ht by (rewrite ?length_swapCols in *; assumption).
  exact Ht.
Qed.

(** ** Equal up to column order

Equal up to the order of the columns: the reflexive-transitive closure of swapping two of the
eight columns. *)
Inductive ColEquiv : State -> State -> Prop :=
  | ce_refl : forall s, ColEquiv s s
  | ce_swap : forall i j s u, i < j < 8 -> ColEquiv (swapCols i j s) u -> ColEquiv s u.

Lemma ColEquiv_trans s u v : ColEquiv s u -> ColEquiv u v -> ColEquiv s v.
Proof. induction 1; intros; [assumption|eapply ce_swap; eauto]. Qed.

Lemma ColEquiv_length s u : ColEquiv s u -> length (cols u) = length (cols s).
Proof. induction 1; [reflexivity|rewrite IHColEquiv; apply length_swapCols]. Qed.

Lemma ColEquiv_cells_home s u : ColEquiv s u -> cells u = cells s /\ home u = home s.
Proof. induction 1; [auto|exact IHColEquiv]. Qed.

Lemma ColEquiv_sym s u : length (cols s) = 8 -> ColEquiv s u -> ColEquiv u s.
Proof.
  intros H8 H; revert H8; induction H as [s|i j s u Hij H IH]; intros H8; [constructor|].
  apply ColEquiv_trans with (swapCols i j s).
  - apply IH; rewrite length_swapCols; exact H8.
  - apply ce_swap with i j; [exact Hij|].
    rewrite swapCols_invol by (assumption || lia); constructor.
Qed.

(** `Won` is the same for states equal up to column order. *)
Theorem Won_ColEquiv s u : ColEquiv s u -> (Won s <-> Won u).
Proof. intros H; apply ColEquiv_cells_home in H as [_ H]; unfold Won; rewrite H; reflexivity. Qed.

(** A move of `s` has a counterpart, up to column order, among the moves of any `u` equal to `s` up
to column order. *)
Theorem moves_ColEquiv r s u t :
  length (cols s) = 8 -> ColEquiv s u -> In t (moves r s) ->
  exists t', In t' (moves r u) /\ ColEquiv t t'.
Proof.
  intros H8 H; revert t; induction H as [s|i j s u Hij H IH]; intros t Ht.
  - exists t; split; [exact Ht|constructor].
  - destruct (IH ltac:(rewrite length_swapCols; exact H8) (swapCols i j t)) as (t' & Ht' & Htt').
    { apply moves_swapCols; (assumption || lia). }
    exists t'; split; [exact Ht'|].
    apply ce_swap with i j; assumption.
Qed.

Lemma Reachable_length r s0 s : length (cols s0) = 8 -> Reachable r s0 s -> length (cols s) = 8.
Proof.
  intros H8; induction 1 as [|s t _ IH Ht]; [exact H8|].
  eapply moves_keep_8_columns; eauto.
Qed.

(** Theorem 4: what is reachable from `s0` is, up to column order, reachable from any `s0'` equal
to `s0` up to column order. *)
Theorem Reachable_ColEquiv r s0 s0' t :
  length (cols s0) = 8 -> ColEquiv s0 s0' -> Reachable r s0 t ->
  exists t', Reachable r s0' t' /\ ColEquiv t t'.
Proof.
  intros H8 H0; induction 1 as [|s t Hs IH Ht].
  - exists s0'; split; [constructor|exact H0].
  - destruct IH as (s' & Hs' & Hss').
    destruct (moves_ColEquiv r s s' t) as (t' & Ht' & Htt');
      [eapply Reachable_length; eauto|exact Hss'|exact Ht|].
    exists t'; split; [eapply step; eauto|exact Htt'].
Qed.

(** Hence a deal and any reordering of its columns are both winnable or both not. *)
Theorem winnable_ColEquiv r s0 s0' :
  length (cols s0) = 8 -> ColEquiv s0 s0' ->
  (exists t, Reachable r s0 t /\ Won t) <-> (exists t, Reachable r s0' t /\ Won t).
Proof.
  intros H8 H0; split; intros (t & Ht & Hw).
  - destruct (Reachable_ColEquiv r s0 s0' t H8 H0 Ht) as (t' & Ht' & Htt').
    exists t'; split; [exact Ht'|apply (Won_ColEquiv t t'); assumption].
  - assert (H8' : length (cols s0') = 8) by (rewrite (ColEquiv_length s0 s0' H0); exact H8).
    destruct (Reachable_ColEquiv r s0' s0 t H8' (ColEquiv_sym s0 s0' H8 H0) Ht) as (t' & Ht' & Htt').
    exists t'; split; [exact Ht'|apply (Won_ColEquiv t t'); assumption].
Qed.

(** ** Any reordering of the columns is a chain of swaps, and conversely

The same closure on plain lists, with the swapped positions below the list's length. *)
Inductive SwapEq {A} (d : A) : list A -> list A -> Prop :=
  | se_refl : forall l, SwapEq d l l
  | se_swap : forall i j l l', i < j < length l -> SwapEq d (swapList i j d l) l' -> SwapEq d l l'.

Lemma SwapEq_trans {A} (d : A) l m n : SwapEq d l m -> SwapEq d m n -> SwapEq d l n.
Proof. induction 1; intros; [assumption|eapply se_swap; eauto]. Qed.

Lemma SwapEq_cons {A} (d : A) x l l' : SwapEq d l l' -> SwapEq d (x :: l) (x :: l').
Proof.
  induction 1 as [l|i j l l' Hij _ IH]; [constructor|].
  apply se_swap with (S i) (S j); [simpl; lia|exact IH].
Qed.

Lemma SwapEq_of_Permutation {A} (d : A) l l' : Permutation l l' -> SwapEq d l l'.
Proof.
  induction 1 as [|x l l' _ IH|x y l|l l' l'' _ IH1 _ IH2].
  - constructor.
  - apply SwapEq_cons; exact IH.
  - apply se_swap with 0 1; [simpl; lia|constructor].
  - eapply SwapEq_trans; eauto.
Qed.

Lemma ColEquiv_of_SwapEq s cs :
  length (cols s) = 8 -> SwapEq [] (cols s) cs -> ColEquiv s (withCols s cs).
Proof.
  intros H8 H; remember (cols s) as l eqn:E; revert s E H8.
  induction H as [l|i j l l' Hij _ IH]; intros s E H8; subst.
  - destruct s; constructor.
  - apply ce_swap with i j; [lia|].
    apply (IH (swapCols i j s)); [reflexivity|rewrite length_swapList; exact H8].
Qed.

(** Two states with the same free cells and foundations whose columns are the same list up to
order are equal up to column order. *)
Theorem ColEquiv_of_Permutation s u :
  length (cols s) = 8 -> Permutation (cols s) (cols u) -> cells u = cells s -> home u = home s ->
  ColEquiv s u.
Proof.
  intros H8 Hp Hc Hh.
  replace u with (withCols s (cols u)) by (destruct s, u; simpl in *; subst; reflexivity).
  apply ColEquiv_of_SwapEq; [exact H8|apply SwapEq_of_Permutation; exact Hp].
Qed.

Lemma Permutation_nth_set {A} (d : A) x l k :
  k < length l -> Permutation (nth k l d :: set l k x) (x :: l).
Proof.
  revert k; induction l as [|y l IH]; intros [|k] Hk; simpl in *; try lia.
  - apply perm_swap.
  - eapply perm_trans; [apply perm_swap|].
    eapply perm_trans; [apply perm_skip, IH; lia|apply perm_swap].
Qed.

Lemma Permutation_swapList {A} (d : A) i j l : i < j < length l -> Permutation (swapList i j d l) l.
Proof.
  revert i j; induction l as [|x l IH]; intros [|i] [|j] Hij; simpl in *; try lia.
  - apply (Permutation_nth_set d x l j); lia.
  - apply perm_skip, IH; lia.
Qed.

(** Equal up to column order, in plain words: the same free cells, the same foundations, and the
same columns in some order. *)
Definition SameUpToOrder (s u : State) : Prop :=
  Permutation (cols s) (cols u) /\ cells u = cells s /\ home u = home s.

Theorem ColEquiv_iff s u : length (cols s) = 8 -> ColEquiv s u <-> SameUpToOrder s u.
Proof.
  intros H8; split.
  - intros H; revert H8; induction H as [s|i j s u Hij _ IH]; intros H8.
    + repeat split; reflexivity.
    + destruct (IH ltac:(rewrite length_swapCols; exact H8)) as (Hp & Hc & Hh).
      repeat split; [|exact Hc|exact Hh].
      eapply perm_trans; [|exact Hp].
      apply Permutation_sym, Permutation_swapList; lia.
  - intros (Hp & Hc & Hh); apply ColEquiv_of_Permutation; assumption.
Qed.

(** ** The survey's fence, up to column order

A set `C` that holds the start up to column order, holds every move of its members up to column
order, and holds no won state, shows that nothing reachable from the start is won. `R` is how "up to
column order" is spelled: `ColEquiv` or `SameUpToOrder` (the two theorems below). *)
Lemma unwinnable_of_fence_up_to r s0 (C : State -> Prop) (R : State -> State -> Prop) :
  (forall t c, length (cols t) = 8 -> R t c -> ColEquiv t c) ->
  length (cols s0) = 8 ->
  (exists c, C c /\ R s0 c) ->
  (forall s t, C s -> In t (moves r s) -> exists c, C c /\ R t c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof.
  intros HR H8 Hstart Hclosed Hnone s Hs.
  assert (Hin : exists c, C c /\ ColEquiv s c).
  { induction Hs as [|s t Hs IH Ht].
    - destruct Hstart as (c & Hc & Hsc); exists c; split; [exact Hc|apply HR; assumption].
    - destruct IH as (c & Hc & Hsc).
      assert (Hs8 : length (cols s) = 8) by (eapply Reachable_length; eauto).
      destruct (moves_ColEquiv r s c t Hs8 Hsc Ht) as (t' & Ht' & Htt').
      destruct (Hclosed c t' Hc Ht') as (c' & Hc' & Htc').
      exists c'; split; [exact Hc'|].
      apply ColEquiv_trans with t'; [exact Htt'|].
      apply HR; [|exact Htc'].
      eapply moves_keep_8_columns; [|exact Ht'].
      rewrite (ColEquiv_length s c Hsc); exact Hs8. }
  destruct Hin as (c & Hc & Hsc); intros Hw.
  apply (Hnone c Hc), (Won_ColEquiv s c Hsc), Hw.
Qed.

Theorem unwinnable_of_fence_up_to_order r s0 (C : State -> Prop) :
  length (cols s0) = 8 ->
  (exists c, C c /\ ColEquiv s0 c) ->
  (forall s t, C s -> In t (moves r s) -> exists c, C c /\ ColEquiv t c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof. apply unwinnable_of_fence_up_to; auto. Qed.

(** The same with "equal up to column order" in plain words: the start, and every move of a member,
is in `C` with its columns in some order. *)
Theorem unwinnable_of_fence_up_to_column_order r s0 (C : State -> Prop) :
  length (cols s0) = 8 ->
  (exists c, C c /\ SameUpToOrder s0 c) ->
  (forall s t, C s -> In t (moves r s) -> exists c, C c /\ SameUpToOrder t c) ->
  (forall s, C s -> ~ Won s) ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof. apply unwinnable_of_fence_up_to; intros t c H8; apply ColEquiv_iff, H8. Qed.

(** Every Microsoft deal has eight columns, so the theorems above apply to `msDeal n`. *)
Lemma msDeal_8_columns n : length (cols (msDeal n)) = 8.
Proof. unfold msDeal; cbv zeta; unfold cols; rewrite map_length, seq_length; reflexivity. Qed.
