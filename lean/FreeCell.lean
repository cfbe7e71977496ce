-- The root of the `FreeCell` library: the hand-written modules. The generated per-deal modules in
-- `lean/FreeCell/Generated/` are built by `lake build` through the library's glob (lakefile.lean).
import FreeCell.Spec
import FreeCell.Cert
import FreeCell.Decode
