import Lake
open Lake DSL

-- The Lean side of freecell-proof. `lake build` builds three libraries, all with their sources
-- under `lean/`, and no module belongs to two of them:
--   `FreeCell`: the hand-written modules `FreeCell.Spec` (trusted), `FreeCell.Cert`
--     (kernel-checked) and `FreeCell.Decode` (untrusted);
--   `FreeCellGenerated`: every module certgen renders into `lean/FreeCell/Generated/` (one per
--     deal, mutant, winning line or kernel-only certificate, and the `#guard` tests); the glob
--     picks them up, so there is no index file to keep in step;
--   `FreeCellHand`: `FreeCell.Hand`, the favor of the `--hand` experiment (docs/HAND.md); no
--     theorem imports it.
-- `lean/Audit.lean` (rendered by `make audit`, `#print axioms`) belongs to neither: after
-- `lake build`, run it with `lake env lean lean/Audit.lean`.
-- `lake -R -K precompile=1 build` (what `make prove PRECOMPILE=1` runs) compiles the hand-written
-- library to native code, which `native_decide` in the generated modules then calls instead of
-- interpreting it; `-R` makes Lake read this file again, as it keeps the options of its last
-- configuration otherwise. No dependencies: core Lean 4 and its `Std` only.

package «freecell-proof»

/-- The value Lake was given with `-K precompile=…` (`some "1"` for what `make prove PRECOMPILE=1`
passes), `none` when the option is absent. Any value turns precompilation on, even `0`: leave the
option out (and pass `-R`) to turn it off. -/
def precompileOpt : Option String := get_config? precompile

@[default_target]
lean_lib FreeCell where
  srcDir := "lean"
  roots := #[`FreeCell.Spec, `FreeCell.Cert, `FreeCell.Decode]
  precompileModules := precompileOpt.isSome

@[default_target]
lean_lib FreeCellGenerated where
  srcDir := "lean"
  roots := #[`FreeCell.Generated]
  globs := #[.submodules `FreeCell.Generated]

@[default_target]
lean_lib FreeCellHand where
  srcDir := "lean"
  roots := #[`FreeCell.Hand]
