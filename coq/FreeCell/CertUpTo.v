(** * Certificates up to column order (kernel-checked)

A certificate up to column order holds one position for each class of positions that differ only in
the order of their eight columns (the enumeration of `solver explore --canonical`, the difficulty
survey's tiers 4 and 5). `checkCertUpTo` is `Cert.v`'s `checkCert` with one change: a position is
looked up after its columns are put in a fixed order, `canon` (sorted by the key of their bottom card,
empty columns last: `certgen/columns.py` is the Python twin, line for line). Its soundness is
`Columns.v`'s `unwinnable_of_fence_up_to_column_order`: `canon s` is `s` with its columns permuted,
so a set that passes the check holds, up to column order, the start and every move of each member.

`unwinnable_of_cert_up_to_column_order`: for a start with eight columns, a certificate that passes
`checkCertUpTo` proves `forall s, Reachable r s0 s -> ~ Won s`, about the same `Reachable` and `Won`
of `Spec.v` as `Cert.v`'s `unwinnable_of_cert`. Nothing here needs to be trusted but `Spec.v`: which
order `canon` chooses does not matter to the proof (any permutation would do; a wrong order can only
make the check fail), and the key `hash` is a parameter, as in `Cert.v`. Coq's standard library only;
no axiom. This is the Coq side only: no Lean file proves the column lemma. *)

From Coq Require Import List Bool Arith PArith FMapPositive Permutation.
From FreeCell Require Import Spec Cert Columns.
Import ListNotations.

(** ** The checkers' column order *)

(** The key a column is sorted by: its bottom card's key (a column lists its cards top first, so the
bottom card is the last), 52 for an empty column. *)
Definition colKey (col : list Card) : nat :=
  match col with
  | [] => 52
  | c :: _ => key (last col c)
  end.

(** Insert a column before the first one whose key is not below its own. *)
Fixpoint insertCol (col : list Card) (l : list (list Card)) : list (list Card) :=
  match l with
  | [] => [col]
  | d :: ds => if colKey col <=? colKey d then col :: d :: ds else d :: insertCol col ds
  end.

(** Insertion sort of the columns by `colKey`. *)
Definition sortCols (l : list (list Card)) : list (list Card) := fold_right insertCol [] l.

(** The position with its columns in that order; free cells and foundations unchanged. *)
Definition canon (s : State) : State := withCols s (sortCols (cols s)).

Lemma insertCol_perm col l : Permutation (col :: l) (insertCol col l).
Proof.
  induction l as [|d ds IH]; simpl; [reflexivity|].
  destruct (colKey col <=? colKey d); [reflexivity|].
  eapply perm_trans; [apply perm_swap|]. apply perm_skip, IH.
Qed.

Lemma sortCols_perm l : Permutation l (sortCols l).
Proof.
  induction l as [|c l IH]; simpl; [reflexivity|].
  eapply perm_trans; [apply perm_skip, IH|apply insertCol_perm].
Qed.

(** `canon s` is `s` up to column order. *)
Lemma canon_same s : SameUpToOrder s (canon s).
Proof.
  unfold SameUpToOrder, canon, withCols; simpl.
  split; [apply sortCols_perm|split; reflexivity].
Qed.

(** ** The check *)

Section CheckUpTo.

Variable hash : State -> positive.

(** `s` is in the set up to column order: its columns put in the order `canon` gives, it is a member. *)
Definition containsUpTo (c : CertSet) (s : State) : bool := contains hash c (canon s).

(** The fence test up to column order: `c` holds the start up to column order, and every member is
not won and has all its moves in `c` up to column order. *)
Definition checkCertUpTo (r : Rules) (s0 : State) (c : CertSet) : bool :=
  containsUpTo c s0 &&
  forallb (fun s => negb (won s) && forallb (containsUpTo c) (moves r s)) (members c).

Lemma containsUpTo_member c s :
  containsUpTo c s = true -> exists m, In m (members c) /\ SameUpToOrder s m.
Proof.
  intros H. exists (canon s). split; [exact (contains_members hash c (canon s) H)|apply canon_same].
Qed.

(** The theorem a certificate up to column order buys: no position reachable from `s0` is won. *)
Theorem unwinnable_of_cert_up_to_column_order : forall r s0 c,
  length (cols s0) = 8 -> checkCertUpTo r s0 c = true ->
  forall s, Reachable r s0 s -> ~ Won s.
Proof.
  intros r s0 c H8 H. unfold checkCertUpTo in H. apply andb_prop in H as [Hstart Hall].
  rewrite forallb_forall in Hall.
  apply (unwinnable_of_fence_up_to_column_order r s0 (fun m => In m (members c)) H8).
  - exact (containsUpTo_member c s0 Hstart).
  - intros s t Hs Ht. specialize (Hall s Hs). apply andb_prop in Hall as [_ Hmv].
    rewrite forallb_forall in Hmv. exact (containsUpTo_member c t (Hmv t Ht)).
  - intros s Hs. specialize (Hall s Hs). apply andb_prop in Hall as [Hnw _].
    apply not_Won_of_won, negb_true_iff, Hnw.
Qed.

End CheckUpTo.
