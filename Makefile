# freecell-proof. `make prove DEAL=11982` runs the main job, `make test` the tests; both set themselves up.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEAL   ?= 11982
RULES  ?=
OUT    ?= out
CSRC   := $(wildcard solver/*.c solver/*.h) solver/_build.py checker/fccheck.c certgen/_build_replay.py
FCCHECK := build/fccheck

.PHONY: setup test test-all explore prove prove-win prove-known prove-coq audit audit-coq bench clean play screenshot generated

# A virtual environment in the checkout with the package installed in editable mode; cffi compiles
# the C core into solver/_fc*.so. Quick when nothing changed (make compares the stamp's time).
# Python 3.9 or newer. One line per step (pip's own output goes to $(VENV)/setup.log and is shown only
# when it fails); a step that fails stops setup with an `error:` line and leaves no stamp, so the next
# `make` runs setup again. Also the independent fast checker build/fccheck (checker/fccheck.c, zlib);
# without a C compiler or zlib it is skipped with a note, and `certgen check` uses the Python checker.
setup: $(VENV)/.setup-stamp $(FCCHECK)

$(FCCHECK): checker/fccheck.c
	@mkdir -p build
	@$(CC) -O2 -std=c99 -Wall -Wextra -o $@.tmp checker/fccheck.c -lz && mv $@.tmp $@ || \
	  { rm -f $@.tmp $@; echo "note: build/fccheck not built (no C compiler or zlib); certgen check uses the Python checker" >&2; }

$(VENV)/.setup-stamp: pyproject.toml setup.py $(CSRC) scripts/check_setup.py
	@rm -f $@
	@echo "setup: checking $(PYTHON), its headers and a C compiler"
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) is not found: install Python 3.9 or newer, or give make setup PYTHON=..." >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 9))' 2>/dev/null || { echo "error: Python 3.9 or newer is needed, $(PYTHON) is $$($(PYTHON) -c 'import sys; print(sys.version.split()[0])' 2>&1) (choose another: make setup PYTHON=python3.11)" >&2; exit 1; }
	@$(PYTHON) scripts/check_setup.py
	@test -x $(PY) || { echo "setup: creating the virtual environment $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "setup: upgrading pip and setuptools in $(VENV) (the ones a Python 3.9 venv comes with cannot install this package)"
	@$(PY) -m pip install -q --disable-pip-version-check --upgrade pip 'setuptools>=64' wheel 'cffi>=1.15' \
		>$(VENV)/setup.log 2>&1 || { cat $(VENV)/setup.log >&2; echo "error: pip could not upgrade pip and setuptools (its output is above and in $(VENV)/setup.log)" >&2; exit 1; }
	@echo "setup: installing freecell-proof and its dependencies, compiling the C core"
	@$(PY) -m pip install -q --disable-pip-version-check --no-build-isolation -e '.[test]' \
		>$(VENV)/setup.log 2>&1 || { cat $(VENV)/setup.log >&2; echo "error: pip could not install freecell-proof (its output is above and in $(VENV)/setup.log)" >&2; exit 1; }
	@echo "setup: checking the installation"
	@$(PY) scripts/check_setup.py --installed
	@touch $@

# The tests (docs/TESTING.md) on every core (pytest-xdist, a test file to a worker). `make test`: the default
# tier, every module and every refusal, without the tests marked slow, coq, browser or e2e; `make test-all`:
# everything (what CI runs; pytest's exit status 5, no test collected, is not a failure there). ARGS adds
# pytest options: ARGS='-k name', ARGS='-m coq', ARGS='-n 0'.
ARGS   ?=
TIER   := -m "not slow and not coq and not browser and not e2e"
test: setup
	$(PY) -m pytest -q -rs -n auto --dist loadfile $(TIER) $(ARGS) tests

test-all: setup
	$(PY) -m pytest -q -rs -n auto --dist loadfile $(ARGS) tests || [ $$? -eq 5 ]

explore: setup
	$(PY) -m solver explore --deal $(DEAL)

# explore -> certificate -> both checkers -> every prover found (Lean: lake build; Coq: coqc), one closing
# line per prover. Exit 0: a prover proved it and none refused; 1: a prover refused (or a check failed);
# 3: no prover ran; 4: the solver found a winning line first (it prints the prove-win command).
# PROVER=lean or PROVER=coq: that prover only, failing when it is missing. The Python reference checker
# checks a sample of the members when a prover's kernel will check them all (coqc on PATH, or lake found);
# FULL_REFERENCE=1 has it check every member (the fast checker always does; docs/TRUST.md).
# RULES=foundation-return and/or CELLS=K state stronger or other theorems. PRECOMPILE=1 (for prove,
# prove-known, prove-win, audit) runs `lake -R -K precompile=1 build`: the hand-written library is
# compiled to native code that native_decide then calls (needs the C compiler Lean ships; docs/TRUST.md).
PRECOMPILE ?=
export FREECELL_PRECOMPILE = $(PRECOMPILE)
CELLS  ?=
PROVER ?=
FULL_REFERENCE ?=
REFERENCEARG = $(if $(filter-out 0 1,$(FULL_REFERENCE)),$(error error: FULL_REFERENCE may only be 1 or 0, got '$(FULL_REFERENCE)'))$(if $(filter 1,$(FULL_REFERENCE)),--full-reference)
PROVERARG = $(if $(filter-out lean coq,$(PROVER)),$(error error: PROVER may only be lean or coq (or empty), got '$(PROVER)'))$(if $(PROVER),--prover $(PROVER))
RULEARGS = $(if $(filter-out foundation-return,$(RULES)),$(error error: RULES may only be foundation-return (or empty), got '$(RULES)'))$(if $(filter foundation-return,$(RULES)),--foundation-return) $(if $(CELLS),--cells $(CELLS))
prove: setup
	$(PY) -m certgen prove --deal $(DEAL) $(RULEARGS) $(PROVERARG) $(REFERENCEARG) --out-dir $(OUT)

# Re-render every generated module and compare, scan the library, then (needs Lean) #print axioms for
# every generated theorem; docs/TRUST.md gives the expected answer. CERTS=DIR: where the certificates are.
CERTS  ?= $(OUT)
audit: setup
	$(PY) -m certgen audit --certs $(CERTS)

# The files rendered from the sources that tests hold to their rendering: the shipped Lean modules that need no
# input (Kernel*, SpecGuards) and docs/SPEC.md. Run it after changing a template, Spec.lean, Spec.v or spec.py.
generated: setup
	$(PY) -m certgen render-shipped
	$(PY) -m certgen spec-doc --out docs/SPEC.md

bench: setup
	$(PY) -m scripts.bench --play

# The FreeCell page with proofs on http://127.0.0.1:8000 (HOST=0.0.0.0 to open it to the network).
HOST   ?= 127.0.0.1
PORT   ?= 8000
play: setup
	$(PY) -m play serve --host $(HOST) --port $(PORT)

# docs/examples/play-11982.png for the README: the browser test with a real (headless) Chromium.
screenshot: setup
	PLAY_SCREENSHOT=docs/examples/play-11982.png $(PY) -m pytest -q -rs -m browser tests

clean:
	rm -rf $(VENV) build *.egg-info solver/_fc*.so solver/_fc.c certgen/_fcreplay*.so certgen/_fcreplay.c $(OUT) .lake

# The eight deals of 1..1,000,000 known to be unsolvable: certificates, both checkers, docs/KNOWN.md,
# then every prover found (one lake build; coqc on each); PROVER= as for prove.
prove-known: setup
	$(PY) -m certgen prove-known $(PROVERARG) --out-dir $(OUT)

# A winning line for deal N (solver, replay-verified in Python) rendered as a Lean theorem
# `∃ s, Reachable … (msDeal N) s ∧ Won s`, then lake build (exit 3: Lean not available).
# The module goes to out/ unless it ships in lean/FreeCell/Generated (#1, #617, #1941) or
# LEAN_DIR=lean/FreeCell/Generated asks for the library folder (where lake builds it).
LEAN_DIR ?=
prove-win: setup
	$(PY) -m certgen prove-win --deal $(DEAL) $(RULEARGS) $(if $(LEAN_DIR),--lean-dir $(LEAN_DIR))

# `make prove PROVER=coq` (coqc, Debian package `coq`), and a winnable deal gets the winning line's `exists`
# theorem. Exit 3: no coqc.
# COLUMN_ORDER=1: from a certificate up to the order of the columns (coq/FreeCell/CertUpTo.v). COQCHK=1: the
# compiled files are checked again by coqchk, without the virtual machine (slow: docs/TRUST.md).
prove-coq: setup
	$(PY) -m certgen prove-coq --deal $(DEAL) $(RULEARGS) $(if $(filter-out 0 1,$(COLUMN_ORDER)),$(error error: COLUMN_ORDER may only be 1 or 0, got '$(COLUMN_ORDER)'))$(if $(filter 1,$(COLUMN_ORDER)),--canonical) $(if $(filter 1,$(COQCHK)),--coqchk) $(REFERENCEARG) --out-dir $(OUT)

# Hold a Coq module to its certificate (re-rendered, compared byte for byte), coq/FreeCell/*.v to their
# pinned digests, and check its statement through the driver in a fresh folder. FILE=OUT/coq/<Stem>.v
# (default: the standard-rules module of DEAL); CERT=... when the certificate is not OUT/<Stem>.cert.
FILE   ?= $(OUT)/coq/Deal$(DEAL).v
audit-coq: setup
	$(PY) -m certgen audit-coq $(FILE) $(if $(CERT),--cert $(CERT))
