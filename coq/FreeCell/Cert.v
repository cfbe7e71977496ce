(** * Certificates (kernel-checked)

The Coq twin of `lean/FreeCell/Cert.lean`. `checkCert` tests that a set of positions is a fence:
it holds the start, no member is won, and every move from a member lands in the set. `cert_sound`
(induction on `Reachable`) shows that a fence holds every reachable position, so none of them is
won. For winnable positions, `replay` follows a list of move indices, and `winnable_of_check`
turns a replay ending in a won position into `exists s, Reachable r s0 s /\ Won s`. Nothing here
needs to be trusted: Coq's kernel checks every proof, and no proof depends on an axiom.

The set is a binary trie (`PositiveMap`, Coq's `FMapPositive`) from a key to the list of the
positions with that key (a bucket). The key function `hash` is a parameter of everything below and
no proof looks inside it: a bad hash can make the check slow or make it fail, never make it pass
wrongly, because `contains` compares the positions themselves (`stateEqb`, proved correct). *)

From Coq Require Import List Bool Arith PArith FMapPositive.
From FreeCell Require Import Spec.
Import ListNotations.

(** ** Boolean equality of positions, and its proof *)

(* Cards are compared suit first: that is where two different positions usually differ soonest. *)
Definition cardEqb' (c d : Card) : bool := (suit c =? suit d) && (rank c =? rank d).

Fixpoint cardsEqb (l m : list Card) : bool :=
  match l, m with
  | [], [] => true
  | x :: xs, y :: ys => cardEqb' x y && cardsEqb xs ys
  | _, _ => false
  end.

Fixpoint colsEqb (l m : list (list Card)) : bool :=
  match l, m with
  | [], [] => true
  | x :: xs, y :: ys => cardsEqb x y && colsEqb xs ys
  | _, _ => false
  end.

Fixpoint natsEqb (l m : list nat) : bool :=
  match l, m with
  | [], [] => true
  | x :: xs, y :: ys => (x =? y) && natsEqb xs ys
  | _, _ => false
  end.

Definition stateEqb (s t : State) : bool :=
  colsEqb (cols s) (cols t) && cardsEqb (cells s) (cells t) && natsEqb (home s) (home t).

Lemma cardsEqb_eq : forall l m, cardsEqb l m = true -> l = m.
Proof.
  induction l as [|[r s] xs IH]; destruct m as [|[r' s'] ys]; simpl; intro E; try discriminate; auto.
  unfold cardEqb' in E. simpl in E.
  apply andb_prop in E as [E E3]. apply andb_prop in E as [E1 E2].
  apply Nat.eqb_eq in E1. apply Nat.eqb_eq in E2. subst. rewrite (IH ys E3). reflexivity.
Qed.

Lemma colsEqb_eq : forall l m, colsEqb l m = true -> l = m.
Proof.
  induction l as [|x xs IH]; destruct m as [|y ys]; simpl; intro E; try discriminate; auto.
  apply andb_prop in E as [E1 E2]. rewrite (cardsEqb_eq x y E1), (IH ys E2). reflexivity.
Qed.

Lemma natsEqb_eq : forall l m, natsEqb l m = true -> l = m.
Proof.
  induction l as [|x xs IH]; destruct m as [|y ys]; simpl; intro E; try discriminate; auto.
  apply andb_prop in E as [E1 E2]. apply Nat.eqb_eq in E1. rewrite E1, (IH ys E2). reflexivity.
Qed.

Lemma stateEqb_eq : forall s t, stateEqb s t = true -> s = t.
Proof.
  intros [c1 e1 h1] [c2 e2 h2]. unfold stateEqb. simpl. intro E.
  apply andb_prop in E as [E E3]. apply andb_prop in E as [E1 E2].
  rewrite (colsEqb_eq _ _ E1), (cardsEqb_eq _ _ E2), (natsEqb_eq _ _ E3). reflexivity.
Qed.

(** ** The set of positions, and the fence test *)

(** A certificate: buckets of positions, filed under their key. *)
Definition CertSet := PositiveMap.t (list State).

Section Check.

Variable hash : State -> positive.

(** `s` is in the set: some position of its bucket equals it. *)
Definition contains (c : CertSet) (s : State) : bool :=
  match PositiveMap.find (hash s) c with
  | Some bucket => existsb (stateEqb s) bucket
  | None => false
  end.

(** Every position of every bucket. *)
Definition members (c : CertSet) : list State := flat_map snd (PositiveMap.elements c).

(** The fence test: `c` holds `s0`, and every member is not won and has all its moves in `c`. *)
Definition checkCert (r : Rules) (s0 : State) (c : CertSet) : bool :=
  contains c s0 && forallb (fun s => negb (won s) && forallb (contains c) (moves r s)) (members c).

Lemma contains_members : forall c s, contains c s = true -> In s (members c).
Proof.
  unfold contains, members. intros c s H.
  destruct (PositiveMap.find (hash s) c) as [bucket|] eqn:F; [|discriminate].
  apply existsb_exists in H as [t [Ht E]].
  rewrite <- (stateEqb_eq s t E) in Ht.
  apply in_flat_map. exists (hash s, bucket). split; [|exact Ht].
  apply PositiveMap.elements_correct. exact F.
Qed.

Lemma not_Won_of_won : forall s, won s = false -> ~ Won s.
Proof.
  unfold won, Won. intros s H E. destruct (list_eq_dec Nat.eq_dec (home s) [13; 13; 13; 13]).
  - discriminate.
  - contradiction.
Qed.

Lemma Won_of_won : forall s, won s = true -> Won s.
Proof.
  unfold won, Won. intros s H. destruct (list_eq_dec Nat.eq_dec (home s) [13; 13; 13; 13]).
  - assumption.
  - discriminate.
Qed.

(** A fence holds every reachable position, and none of them is won. *)
Theorem cert_sound : forall r s0 c, checkCert r s0 c = true ->
  forall s, Reachable r s0 s -> contains c s = true /\ won s = false.
Proof.
  intros r s0 c H. unfold checkCert in H. apply andb_prop in H as [Hstart Hall].
  assert (key : forall s, contains c s = true ->
            won s = false /\ forall t, In t (moves r s) -> contains c t = true).
  { intros s Hs. rewrite forallb_forall in Hall.
    specialize (Hall s (contains_members c s Hs)).
    apply andb_prop in Hall as [Hnw Hmv]. split.
    - apply negb_true_iff. exact Hnw.
    - rewrite forallb_forall in Hmv. exact Hmv. }
  intros s Hr. induction Hr as [|s t _ IH Ht].
  - split; [exact Hstart | exact (proj1 (key s0 Hstart))].
  - assert (Hc : contains c t = true) by exact (proj2 (key s (proj1 IH)) t Ht).
    split; [exact Hc | exact (proj1 (key t Hc))].
Qed.

(** The theorem a certificate buys: no position reachable from `s0` is won. *)
Theorem unwinnable_of_cert : forall r s0 c, checkCert r s0 c = true ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof.
  intros r s0 c H s Hr. exact (not_Won_of_won s (proj2 (cert_sound r s0 c H s Hr))).
Qed.

End Check.

(** ** Winning lines *)

(** Follow move indices from `s`: each index picks the next position out of `moves r s`. *)
Fixpoint replay (r : Rules) (s : State) (ms : list nat) : option State :=
  match ms with
  | [] => Some s
  | i :: ms => match nth_error (moves r s) i with Some t => replay r t ms | None => None end
  end.

(** A replay from a reachable position ends in a reachable position. *)
Lemma replay_reachable : forall r s0 ms s t,
  Reachable r s0 s -> replay r s ms = Some t -> Reachable r s0 t.
Proof.
  intros r s0 ms. induction ms as [|i ms IH]; simpl; intros s t Hs H.
  - injection H as E. subst. exact Hs.
  - destruct (nth_error (moves r s) i) as [u|] eqn:Hu; [|discriminate].
    apply (IH u t); [|exact H].
    apply (step r s0 s u Hs). apply (nth_error_In _ _ Hu).
Qed.

(** The winning-line check: the replay succeeds and ends in a won position. *)
Definition checkWin (r : Rules) (s0 : State) (ms : list nat) : bool :=
  match replay r s0 ms with Some t => won t | None => false end.

(** The theorem a winning line buys: some position reachable from `s0` is won. *)
Theorem winnable_of_check : forall r s0 ms, checkWin r s0 ms = true ->
  exists s, Reachable r s0 s /\ Won s.
Proof.
  unfold checkWin. intros r s0 ms H.
  destruct (replay r s0 ms) as [t|] eqn:Hr; [|discriminate].
  exists t. split.
  - exact (replay_reachable r s0 ms s0 t (deal r s0) Hr).
  - exact (Won_of_won t H).
Qed.
