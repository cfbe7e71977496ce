import FreeCell.Spec
import Std.Data.HashSet

/-!
# Certificates (kernel-checked)

`fenceOk` tests that a finite set of positions is a fence: it holds the start, no member is won,
and every move from a member lands in the set. `fence_sound` (induction on `Reachable`) shows that
a fence holds every reachable position, so none of them is won. The set comes in two forms:
`checkCert` takes a `Std.HashSet` (fast: the generated modules run it as compiled code) and
`checkList` a plain list (slow, but Lean's kernel can evaluate it with `decide +kernel`). For
winnable positions, `replay` follows a list of move indices, and `winnable_of_check` turns a replay
ending in a won position into `∃ s, Reachable r s₀ s ∧ Won s`. Nothing here needs to be trusted:
Lean's kernel checks it. The hash of a position (`hashState`) only decides where the hash set
keeps it; it is no part of what a theorem says.
-/

namespace FreeCell

/-- One step of the position hash: `h * 1000003 + x` modulo the prime 2 ^ 31 - 1, so that every
number stays small (no big numbers, no `UInt64` arithmetic until the end). -/
def mixHashNat (h x : Nat) : Nat := (h * 1000003 + x) % 2147483647

/-- A column's share of the hash: its length and its top two cards. -/
def columnHash : List Card → Nat
  | [] => 0
  | [c] => 64 + c.key
  | c :: d :: rest => ((rest.length + 2) * 64 + c.key) * 64 + d.key

/-- A cheap hash of a position: the columns (length and top two cards), the free cells and the
foundations. The hash set compares positions with the `BEq` that `DecidableEq` gives, so any
function is a lawful hash; this one only has to spread the positions of a certificate
(`scripts/hash_collisions.py` measures how often two of them share a hash). -/
def hashState (s : State) : UInt64 :=
  let h := s.cols.foldl (fun (h : Nat) (col : List Card) => mixHashNat h (columnHash col)) 0
  let h := s.cells.foldl (fun (h : Nat) (c : Card) => mixHashNat h c.key) h
  UInt64.ofNat (s.home.foldl mixHashNat h)

instance : Hashable State := ⟨hashState⟩

/-- The fence test for a finite set of positions, given twice: `mem` decides membership and `l`
lists the members. `mem` holds `s₀`, and every member is not won and has all its moves in the set. -/
def fenceOk (r : Rules) (s₀ : State) (mem : State → Bool) (l : List State) : Bool :=
  mem s₀ && l.all fun s => !won s && (moves r s).all mem

theorem bool_and_split {a b : Bool} (h : (a && b) = true) : a = true ∧ b = true := by
  cases a <;> cases b <;> first | exact ⟨rfl, rfl⟩ | exact absurd h (by decide)

theorem bool_eq_false_of_not {b : Bool} (h : (!b) = true) : b = false := by
  cases b <;> first | rfl | exact absurd h (by decide)

theorem not_Won_of_won {s : State} (h : won s = false) : ¬ Won s := by
  show ¬ (s.home = [13, 13, 13, 13])
  exact of_decide_eq_false h

theorem Won_of_won {s : State} (h : won s = true) : Won s := by
  show s.home = [13, 13, 13, 13]
  exact of_decide_eq_true h

/-- A fence holds every reachable position, and none of them is won (when everything `mem`
accepts is listed in `l`). -/
theorem fence_sound {r : Rules} {s₀ : State} {mem : State → Bool} {l : List State}
    (hl : ∀ s, mem s = true → s ∈ l) (h : fenceOk r s₀ mem l = true) :
    ∀ s, Reachable r s₀ s → mem s = true ∧ won s = false := by
  obtain ⟨hstart, hall⟩ := bool_and_split h
  have key : ∀ s, mem s = true →
      won s = false ∧ ∀ t ∈ moves r s, mem t = true := by
    intro s hs
    obtain ⟨hnw, hmv⟩ := bool_and_split (List.all_eq_true.mp hall s (hl s hs))
    exact ⟨bool_eq_false_of_not hnw, List.all_eq_true.mp hmv⟩
  intro s hr
  induction hr with
  | deal => exact ⟨hstart, (key _ hstart).1⟩
  | step _ ht ih =>
    have hc := (key _ ih.1).2 _ ht
    exact ⟨hc, (key _ hc).1⟩

/-- The fence test on a hash set: what a generated module runs as compiled code. -/
def checkCert (r : Rules) (s₀ : State) (c : Std.HashSet State) : Bool :=
  fenceOk r s₀ c.contains c.toList

/-- A hash-set fence holds every reachable position, and none of them is won. -/
theorem cert_sound {r : Rules} {s₀ : State} {c : Std.HashSet State}
    (h : checkCert r s₀ c = true) :
    ∀ s, Reachable r s₀ s → c.contains s = true ∧ won s = false :=
  @fence_sound r s₀ c.contains c.toList
    (fun s hs => Std.HashSet.mem_toList.mpr (Std.HashSet.mem_iff_contains.mpr hs)) h

/-- The theorem a certificate buys: no position reachable from `s₀` is won. -/
theorem unwinnable_of_cert {r : Rules} {s₀ : State} {c : Std.HashSet State}
    (h : checkCert r s₀ c = true) : ∀ s, Reachable r s₀ s → ¬ Won s :=
  fun s hr => not_Won_of_won (cert_sound h s hr).2

/-- The fence test on a plain list of positions: slower than the hash set, but the kernel can
evaluate it (`decide +kernel`), so no compiler has to be trusted. -/
def checkList (r : Rules) (s₀ : State) (c : List State) : Bool :=
  fenceOk r s₀ c.contains c

/-- The theorem a list certificate buys: no position reachable from `s₀` is won. -/
theorem unwinnable_of_list {r : Rules} {s₀ : State} {c : List State}
    (h : checkList r s₀ c = true) : ∀ s, Reachable r s₀ s → ¬ Won s :=
  fun s hr => not_Won_of_won
    (@fence_sound r s₀ c.contains c (fun t ht => List.mem_of_elem_eq_true ht) h s hr).2

/-- Follow move indices from `s`: each index picks the next position out of `moves r s`. -/
def replay (r : Rules) : State → List Nat → Option State
  | s, [] => some s
  | s, i :: ms =>
    match (moves r s)[i]? with
    | some t => replay r t ms
    | none => none

/-- A replay from a reachable position ends in a reachable position. -/
theorem replay_reachable {r : Rules} {s₀ : State} :
    ∀ (ms : List Nat) (s t : State), Reachable r s₀ s → replay r s ms = some t →
      Reachable r s₀ t := by
  intro ms
  induction ms with
  | nil =>
    intro s t hs h
    have e : some s = some t := h
    cases e
    exact hs
  | cons i ms ih =>
    intro s t hs h
    cases hu : (moves r s)[i]? with
    | none =>
      simp only [replay, hu] at h <;> cases h
    | some u =>
      have h2 : replay r u ms = some t := by
        simp only [replay, hu] at h
        exact h
      exact ih u t (Reachable.step hs (List.mem_of_getElem? hu)) h2

/-- The winning-line check: the replay succeeds and ends in a won position. -/
def checkWin (r : Rules) (s₀ : State) (ms : List Nat) : Bool :=
  match replay r s₀ ms with
  | some t => won t
  | none => false

/-- The theorem a winning line buys: some position reachable from `s₀` is won. -/
theorem winnable_of_check {r : Rules} {s₀ : State} {ms : List Nat}
    (h : checkWin r s₀ ms = true) : ∃ s, Reachable r s₀ s ∧ Won s := by
  cases hr : replay r s₀ ms with
  | none =>
    simp only [checkWin, hr] at h <;> cases h
  | some t =>
    have hw : won t = true := by
      simp only [checkWin, hr] at h
      exact h
    exact ⟨t, replay_reachable ms s₀ t Reachable.deal hr, Won_of_won hw⟩

end FreeCell
