"""Lean's build tool: find `lake` (installing elan and the pinned toolchain when asked), build modules, run
`lake env lean` on a file. Lean is optional here: when it is not available, the answer says so."""
import os
import subprocess

from .paths import INSTALL_LEAN, ROOT, on_path

NOT_AVAILABLE = 3       # the exit status of a prove command when Lean is not available


def find_lake():
    found = on_path("lake")
    if found:
        return found
    elan = os.path.join(os.path.expanduser("~"), ".elan", "bin", "lake")
    return elan if os.access(elan, os.X_OK) else None


def bootstrap(say):
    """Install elan and the pinned toolchain with the official installer (LEAN_BOOTSTRAP=0: don't).
    Returns (lake or None, why not)."""
    if os.environ.get("LEAN_BOOTSTRAP", "1") == "0":
        return None, "LEAN_BOOTSTRAP=0"
    say("lake is not on PATH: installing elan and the pinned Lean toolchain (scripts/install_lean.sh)")
    proc = subprocess.run(["bash", INSTALL_LEAN], cwd=ROOT, stdout=subprocess.PIPE, text=True)  # its plan: stderr
    lake = find_lake()
    if lake:
        return lake, None
    last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
    return None, f"lake is not on PATH, and {last}"


def build(targets, say):
    """`lake build` the given modules. Returns (exit status, words): 0 built; 1 the build failed;
    NOT_AVAILABLE: Lean is not available (after trying to install it unless LEAN_BOOTSTRAP=0)."""
    lake = find_lake()
    why = "lake is not on PATH"
    if lake is None:
        lake, why = bootstrap(say)
    if lake is None:
        return NOT_AVAILABLE, f"Lean is not available ({why})"
    proc = subprocess.run([lake, *config_args(), "build", *targets], cwd=ROOT)
    if proc.returncode != 0:
        return 1, f"lake build failed (exit {proc.returncode})"
    return 0, "lake build succeeded"


def config_args(precompile=None):
    """The options to put before `lake build`: `-R` makes Lake read lakefile.lean again (it keeps the
    options of its last configuration otherwise), and `-K precompile=1` turns on `precompileModules`
    for the hand-written library. `precompile=None`: from the environment variable
    FREECELL_PRECOMPILE (`make prove PRECOMPILE=1` sets it)."""
    if precompile is None:
        precompile = os.environ.get("FREECELL_PRECOMPILE", "") not in ("", "0")
    return ["-R", "-K", "precompile=1"] if precompile else ["-R"]


def env_lean(path):
    """`lake env lean PATH` (after a successful build): the completed process, output captured."""
    return subprocess.run([find_lake(), "env", "lean", path], cwd=ROOT, capture_output=True, text=True)
