import FreeCell.Spec
import Std.Data.HashSet

/-!
# Certificates (kernel-checked)

`checkCert` tests that a set of positions is a fence: it holds the start, no member is won, and
every move from a member lands in the set. `cert_sound` (induction on `Reachable`) shows that a
fence holds every reachable position, so none of them is won. For winnable positions, `replay`
follows a list of move indices, and `winnable_of_check` turns a replay ending in a won position
into `∃ s, Reachable r s₀ s ∧ Won s`. Nothing here needs to be trusted: Lean's kernel checks it.
-/

namespace FreeCell

/-- The fence test: `c` holds `s₀`, and every member is not won and has all its moves in `c`. -/
def checkCert (r : Rules) (s₀ : State) (c : Std.HashSet State) : Bool :=
  c.contains s₀ && c.toList.all fun s => !won s && (moves r s).all c.contains

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

/-- A fence holds every reachable position, and none of them is won. -/
theorem cert_sound {r : Rules} {s₀ : State} {c : Std.HashSet State}
    (h : checkCert r s₀ c = true) :
    ∀ s, Reachable r s₀ s → c.contains s = true ∧ won s = false := by
  obtain ⟨hstart, hall⟩ := bool_and_split h
  have key : ∀ s, c.contains s = true →
      won s = false ∧ ∀ t ∈ moves r s, c.contains t = true := by
    intro s hs
    have hmem : s ∈ c.toList :=
      Std.HashSet.mem_toList.mpr (Std.HashSet.mem_iff_contains.mpr hs)
    obtain ⟨hnw, hmv⟩ := bool_and_split (List.all_eq_true.mp hall s hmem)
    exact ⟨bool_eq_false_of_not hnw, List.all_eq_true.mp hmv⟩
  intro s hr
  induction hr with
  | deal => exact ⟨hstart, (key _ hstart).1⟩
  | step _ ht ih =>
    have hc := (key _ ih.1).2 _ ht
    exact ⟨hc, (key _ hc).1⟩

/-- The theorem a certificate buys: no position reachable from `s₀` is won. -/
theorem unwinnable_of_cert {r : Rules} {s₀ : State} {c : Std.HashSet State}
    (h : checkCert r s₀ c = true) : ∀ s, Reachable r s₀ s → ¬ Won s :=
  fun s hr => not_Won_of_won (cert_sound h s hr).2

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
