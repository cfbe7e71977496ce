import Lake
open Lake DSL

-- The Lean side of freecell-proof. `lake build` builds the library `FreeCell`, whose sources live
-- under `lean/`: the hand-written modules `FreeCell.Spec` (trusted), `FreeCell.Cert`
-- (kernel-checked) and `FreeCell.Decode` (untrusted), and every module certgen renders into
-- `lean/FreeCell/Generated/` (one per deal, mutant or winning line): the glob picks those up, so
-- there is no index file to keep in step. `lean/Audit.lean` (rendered, `#print axioms`) is not
-- part of the library: after `lake build`, run it with `lake env lean lean/Audit.lean`.
-- No dependencies: core Lean 4 and its `Std` only.

package «freecell-proof»

@[default_target]
lean_lib FreeCell where
  srcDir := "lean"
  roots := #[`FreeCell]
  globs := #[.andSubmodules `FreeCell]
