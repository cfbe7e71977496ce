(** * The search, run by the kernel (kernel-checked)

`Fast.v`'s checks take a set of positions from outside and test that it is a fence. Here the kernel
builds the set itself: a search from the start over `Fast.v`'s positions (`fmoves`), each position
filed once in the trie of buckets of `Fast.v` (`FSet`, under a key `hash` no proof looks into), each
new one put on a list of positions still to expand. The search says `Done` only when that list is
empty; it stops with `Fail` at the first member that fails a test (`ok`: not won, and for safe
automatic moves settled).

Two parameters make the one search serve the three forms of certificate: `norm`, applied to the start
and to each move before it is filed (the identity; `fcanon`, the column order of `CertUpTo.v`; or
`fcanon ∘ fautoplay`, after the safe automatic moves of `CertAuto.v`), and `ok`. The invariant: every
position on the list is a member, and every member is on the list or passes `ok` with the `norm` of
each of its moves a member; members are never removed. So when the list is empty, the set is a fence
(`search_fence`), and the theorems `unwinnable_of_search`, `unwinnable_of_search_up_to_column_order`
and `unwinnable_of_search_auto` conclude `forall s, Reachable r s0 s -> ~ Won s` about `Spec.v`'s
`Reachable` and `Won`, through the lemmas `Fast.v` proves for its checks (`fmoves_abs`, `fwon_abs`,
`fcanon_abs`, `fautoplay_abs`, `fsettled_abs`) and the fence lemmas of `Columns.v` and `Autoplay.v`.

The search is bounded (`run n` takes at most 2ⁿ⁺¹ - 1 steps; the checks give `n` = 40), so it is a
function Coq accepts; a bound too small can only make it end without `Done`. The modules
`certgen/coq.py` writes hold no positions: they prove `checkSearch hashKey … = true` (or its column-order
or automatic-moves form) by the kernel's virtual machine. `hashKey` (the last section) computes the key
with Coq's primitive 63-bit integers; no proof looks into it (it is the parameter `hash`), so a bad key
can make the search slow, never make it end with `Done` wrongly: a lookup compares the positions
themselves (`fmemb`, through `Fast.v`'s proved `fstateEqb`). Coq's standard library only; no axiom. *)

From Coq Require Import List Bool Arith NArith PArith FMapPositive PrimInt63 Uint63.
From Coq Require PArray.
From FreeCell Require Import Spec Cert Columns Autoplay CertUpTo CertAuto Fast.
Import ListNotations.

(** ** The search *)

Inductive Search :=
  | Busy (c : FSet) (todo : list FState)   (* the members so far, and those still to expand *)
  | Done (c : FSet)                       (* every member expanded *)
  | Fail.                                 (* a member failed `ok` *)

Section Search.

Variable hash : FState -> positive.
Variable r : Rules.
Variable norm : FState -> FState.
Variable ok : FState -> bool.

(** `c` with `s` added, or `None` if `s` is a member already. *)
Definition fadd (c : FSet) (s : FState) : option FSet :=
  let k := hash s in
  match PositiveMap.find k c with
  | Some b => if fmemb s b then None else Some (PositiveMap.add k (s :: b) c)
  | None => Some (PositiveMap.add k [s] c)
  end.

(** File the `norm` of each position of `l`, putting each new one on `todo`. *)
Fixpoint push (c : FSet) (todo : list FState) (l : list FState) : FSet * list FState :=
  match l with
  | [] => (c, todo)
  | t :: l =>
    let u := norm t in
    match fadd c u with
    | Some c' => push c' (u :: todo) l
    | None => push c todo l
    end
  end.

(** Expand the first position still to expand. *)
Definition step (x : Search) : Search :=
  match x with
  | Busy c [] => Done c
  | Busy c (s :: todo) =>
    if ok s then let (c', todo') := push c todo (fmoves r s) in Busy c' todo' else Fail
  | y => y
  end.

(** At most 2ⁿ⁺¹ - 1 steps, stopping as soon as the search is not `Busy`. *)
Fixpoint run (n : nat) (x : Search) : Search :=
  match n with
  | O => step x
  | S n => match run n x with Busy _ _ as y => run n y | y => y end
  end.

Definition single (s : FState) : FSet := PositiveMap.add (hash s) [s] (PositiveMap.empty _).

(** The search from `s0`, bounded by `n`: `true` when it ended with every member expanded. *)
Definition searchDone (n : nat) (s0 : FState) : bool :=
  let f0 := norm s0 in
  match run n (Busy (single f0) [f0]) with Done _ => true | _ => false end.

(** ** Its invariant *)

Lemma member_add c k s b m :
  PositiveMap.find k c = Some b \/ (PositiveMap.find k c = None /\ b = []) ->
  FMember (PositiveMap.add k (s :: b) c) m <-> m = s \/ FMember c m.
Proof.
  intros Hb; split.
  - intros (k' & b' & F & Hm); destruct (Pos.eq_dec k' k) as [->|Hne].
    + rewrite PositiveMap.gss in F; injection F as <-; destruct Hm as [->|Hm]; [left; reflexivity|right].
      destruct Hb as [Hb|[_ ->]]; [exists k, b; auto|destruct Hm].
    + rewrite PositiveMap.gso in F by exact Hne; right; exists k', b'; auto.
  - intros [->|(k' & b' & F & Hm)].
    + exists k, (s :: b); rewrite PositiveMap.gss; split; [reflexivity|left; reflexivity].
    + destruct (Pos.eq_dec k' k) as [->|Hne].
      * exists k, (s :: b); rewrite PositiveMap.gss; split; [reflexivity|right].
        destruct Hb as [Hb|[Hb _]]; rewrite F in Hb; [injection Hb as ->; exact Hm|discriminate].
      * exists k', b'; rewrite PositiveMap.gso by exact Hne; auto.
Qed.

Lemma fadd_none c s : fadd c s = None -> FMember c s.
Proof.
  unfold fadd; destruct (PositiveMap.find (hash s) c) as [b|] eqn:F; [|discriminate].
  destruct (fmemb s b) eqn:E; [|discriminate]; intros _; exists (hash s), b; split; [exact F|apply fmemb_In, E].
Qed.

Lemma fadd_some c s c' : fadd c s = Some c' -> forall m, FMember c' m <-> m = s \/ FMember c m.
Proof.
  unfold fadd; destruct (PositiveMap.find (hash s) c) as [b|] eqn:F.
  - destruct (fmemb s b); [discriminate|]; intros E; injection E as <-; intros m; apply member_add; left; exact F.
  - intros E; injection E as <-; intros m; apply member_add; right; split; [exact F|reflexivity].
Qed.

Lemma push_spec l : forall c todo c' todo', push c todo l = (c', todo') ->
  (forall m, FMember c m -> FMember c' m) /\
  (forall t, In t l -> FMember c' (norm t)) /\
  (forall m, FMember c' m -> FMember c m \/ In m todo') /\
  (forall m, In m todo -> In m todo') /\
  (forall m, In m todo' -> In m todo \/ FMember c' m).
Proof.
  induction l as [|t l IH]; intros c todo c' todo' E; simpl in E.
  - injection E as <- <-; repeat split; auto; intros t [].
  - destruct (fadd c (norm t)) as [c1|] eqn:A.
    + destruct (IH _ _ _ _ E) as (Hgrow & Hin & Hnew & Hkeep & Htodo); pose proof (fadd_some _ _ _ A) as Hc1.
      repeat split.
      * intros m Hm; apply Hgrow, Hc1; right; exact Hm.
      * intros u [<-|Hu]; [apply Hgrow, Hc1; left; reflexivity|apply Hin, Hu].
      * intros m Hm; destruct (Hnew m Hm) as [H|H]; [|right; exact H].
        apply Hc1 in H as [->|H]; [right; apply Hkeep; left; reflexivity|left; exact H].
      * intros m Hm; apply Hkeep; right; exact Hm.
      * intros m Hm; destruct (Htodo m Hm) as [[<-|H]|H]; [right|left; exact H|right; exact H].
        apply Hgrow, Hc1; left; reflexivity.
    + destruct (IH _ _ _ _ E) as (Hgrow & Hin & Hnew & Hkeep & Htodo); pose proof (fadd_none _ _ A) as Hc.
      repeat split; auto.
      intros u [<-|Hu]; [apply Hgrow, Hc|apply Hin, Hu].
Qed.

(** A member expanded: it passes `ok`, and the `norm` of each of its moves is a member. *)
Definition Closed (c : FSet) (m : FState) : Prop :=
  ok m = true /\ forall t, In t (fmoves r m) -> FMember c (norm t).

Definition Inv (f0 : FState) (x : Search) : Prop :=
  match x with
  | Busy c todo => FMember c f0 /\ (forall m, In m todo -> FMember c m) /\
                   (forall m, FMember c m -> In m todo \/ Closed c m)
  | Done c => FMember c f0 /\ forall m, FMember c m -> Closed c m
  | Fail => True
  end.

Lemma step_inv f0 x : Inv f0 x -> Inv f0 (step x).
Proof.
  destruct x as [c [|s todo]|c|]; simpl; try exact (fun H => H).
  - intros (H0 & _ & Hall); split; [exact H0|intros m Hm; destruct (Hall m Hm) as [[]|H]; exact H].
  - intros (H0 & Hq & Hall); destruct (ok s) eqn:Ok; [|exact I].
    destruct (push c todo (fmoves r s)) as [c' todo'] eqn:E.
    destruct (push_spec _ _ _ _ _ E) as (Hgrow & Hin & Hnew & Hkeep & Htodo).
    assert (Hcl : forall m, Closed c m -> Closed c' m).
    { intros m [Hok Hm]; split; [exact Hok|intros t Ht; apply Hgrow, Hm, Ht]. }
    split; [apply Hgrow, H0|split].
    + intros m Hm; destruct (Htodo m Hm) as [H|H]; [apply Hgrow, Hq; right; exact H|exact H].
    + intros m Hm; destruct (Hnew m Hm) as [H|H]; [|left; exact H].
      destruct (Hall m H) as [[<-|H']|H']; [right; split; [exact Ok|exact Hin]|left; apply Hkeep, H'|].
      right; apply Hcl, H'.
Qed.

Lemma run_inv f0 n : forall x, Inv f0 x -> Inv f0 (run n x).
Proof.
  induction n as [|n IH]; intros x H; simpl; [apply step_inv, H|].
  pose proof (IH x H) as H'; destruct (run n x); [apply IH, H'|exact H'|exact I].
Qed.

(** The search ended with every member expanded: its set holds the start's `norm`, and every member
passes `ok` and has the `norm` of each of its moves in the set. *)
Theorem search_fence n s0 : searchDone n s0 = true ->
  exists c, FMember c (norm s0) /\ forall m, FMember c m -> Closed c m.
Proof.
  unfold searchDone; set (f0 := norm s0).
  assert (H : Inv f0 (Busy (single f0) [f0])).
  { assert (Hs : forall m, FMember (single f0) m <-> m = f0).
    { intros m; unfold single; rewrite member_add by (right; split; [apply PositiveMap.gempty|reflexivity]).
      split; [intros [H|(k & b & F & _)]; [exact H|rewrite PositiveMap.gempty in F; discriminate]|left; exact H]. }
    split; [apply Hs; reflexivity|split].
    - intros m [<-|[]]; apply Hs; reflexivity.
    - intros m Hm; left; left; symmetry; apply Hs, Hm. }
  pose proof (run_inv f0 n _ H) as Hr; destruct (run n _); try discriminate; intros _; exists c; exact Hr.
Qed.

End Search.

(** ** The theorems *)

(** The bound the checks give: about 2⁴¹ steps, never reached. *)
Definition bound := 40.

(** Fixed columns: `Fast.v`'s `checkFast`, the set built by the search. *)
Definition checkSearch (hash : FState -> positive) (r : Rules) (s0 : State) : bool :=
  let f0 := ofState s0 in
  stateEqb (absS f0) s0 && searchDone hash r (fun s => s) (fun s => negb (fwon s)) bound f0.

Theorem unwinnable_of_search hash r s0 : checkSearch hash r s0 = true -> forall s, Reachable r s0 s -> ~ Won s.
Proof.
  unfold checkSearch; rewrite andb_true_iff; intros [H0 Hs].
  destruct (search_fence _ _ _ _ _ _ Hs) as (c & Hstart & Hall); unfold Closed in Hall.
  assert (Hin : forall s, Reachable r s0 s -> Holds c s).
  { intros s Hr; induction Hr as [|s t _ (m & Hm & <-) Ht].
    - rewrite <- (ofState_abs s0 H0); apply member_Holds, Hstart.
    - destruct (fmoves_in r m t Ht) as (u & Hu & <-); apply member_Holds, (proj2 (Hall m Hm)), Hu. }
  intros s Hr; destruct (Hin s Hr) as (m & Hm & <-); apply fwon_abs, negb_true_iff, (proj1 (Hall m Hm)).
Qed.

(** Up to column order: each position filed with its columns in the order `fcanon` gives. *)
Definition checkSearchUpTo (hash : FState -> positive) (r : Rules) (s0 : State) : bool :=
  let f0 := ofState s0 in
  stateEqb (absS f0) s0 && searchDone hash r fcanon (fun s => negb (fwon s)) bound f0.

Theorem unwinnable_of_search_up_to_column_order hash r s0 :
  length (cols s0) = 8 -> checkSearchUpTo hash r s0 = true -> forall s, Reachable r s0 s -> ~ Won s.
Proof.
  intros H8; unfold checkSearchUpTo; rewrite andb_true_iff; intros [H0 Hs].
  destruct (search_fence _ _ _ _ _ _ Hs) as (c & Hstart & Hall); unfold Closed in Hall.
  apply (unwinnable_of_fence_up_to_column_order r s0 (Holds c) H8).
  - destruct (fcanon_Holds c _ Hstart) as (m & Hm & Hsame); rewrite (ofState_abs s0 H0) in Hsame; eauto.
  - intros s t (m & Hm & <-) Ht; destruct (fmoves_in r m t Ht) as (u & Hu & <-).
    apply fcanon_Holds, (proj2 (Hall m Hm)), Hu.
  - intros s (m & Hm & <-); apply fwon_abs, negb_true_iff, (proj1 (Hall m Hm)).
Qed.

(** With safe automatic moves, up to column order (`CertAuto.v`): no foundation returns, the start a valid
position, each position filed after its safe automatic moves with its columns in order, every member
settled. *)
Definition checkSearchAuto (hash : FState -> positive) (r : Rules) (s0 : State) : bool :=
  let f0 := ofState s0 in
  stateEqb (absS f0) s0 && negb (foundationReturn r) && validb s0 &&
  searchDone hash r (fun t => fcanon (fautoplay t)) (fun s => negb (fwon s) && fsettled s) bound f0.

Theorem unwinnable_of_search_auto hash r s0 : checkSearchAuto hash r s0 = true -> forall s, Reachable r s0 s -> ~ Won s.
Proof.
  unfold checkSearchAuto; rewrite !andb_true_iff, negb_true_iff; intros [[[H0 Hr] Hv] Hs].
  destruct (search_fence _ _ _ _ _ _ Hs) as (c & Hstart & Hall); unfold Closed in Hall.
  apply (unwinnable_of_safe_autoplay_fence_up_to_column_order r s0 (Holds c) Hr (validb_Valid s0 Hv)).
  - destruct (fauto_Holds c _ Hstart) as (m & Hm & Hsame); rewrite (ofState_abs s0 H0) in Hsame; eauto.
  - intros s t (m & Hm & <-) Ht; destruct (fmoves_in r m t Ht) as (u & Hu & <-).
    apply fauto_Holds, (proj2 (Hall m Hm)), Hu.
  - intros s (m & Hm & <-); pose proof (proj1 (Hall m Hm)) as Hok; cbv beta in Hok; apply andb_true_iff in Hok as [Hw _].
    apply fwon_abs, negb_true_iff, Hw.
Qed.

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
the position with its bucket card by card anyway, and positions of one search that agree on these
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
Definition keyTable : PArray.array positive :=
  snd (N.iter 4096 (fun '(i, t) => ((i + 1)%uint63, PArray.set t i (bitsPos 12 i xH))) (0%uint63, PArray.make 4096 xH)).

Definition hashKey (s : FState) : positive :=
  let h := hashCards (hashCols 1 (fcols s)) (fcells s) in
  let h := (h lxor (h >> 23) lxor (h >> 41))%uint63 in
  bitsPos 8 (h >> 12)%uint63 (PArray.get keyTable (h land 4095)%uint63).
