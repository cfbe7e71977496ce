# freecell-proof. `make prove DEAL=11982` runs the main job, `make test` the tests; both set themselves up.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
DEAL   ?= 11982
RULES  ?=
OUT    ?= out
CSRC   := $(wildcard solver/*.c solver/*.h) solver/_build.py

.PHONY: setup test test-slow explore prove prove-win prove-known prove-coq audit bench clean play screenshot

# A virtual environment in the checkout with the package installed in editable mode; cffi compiles
# the C core into solver/_fc*.so. Quick when nothing changed (make compares the stamp's time).
setup: $(VENV)/.setup-stamp

$(VENV)/.setup-stamp: pyproject.toml setup.py $(CSRC)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check setuptools wheel 'cffi>=1.15'
	@$(PY) -m pip install -q --disable-pip-version-check --no-build-isolation -e '.[test]'
	@touch $@

test: setup
	$(PY) -m pytest -q -rs -m "not slow" tests

test-slow: setup
	$(PY) -m pytest -q -rs -m slow tests

explore: setup
	$(PY) -m solver explore --deal $(DEAL)

# explore -> certificate -> Python check -> render Lean -> lake build. Exit 3: Lean not available.
# RULES=foundation-return and/or CELLS=K state stronger or other theorems.
CELLS  ?=
RULEARGS = $(if $(filter-out foundation-return,$(RULES)),$(error error: RULES may only be foundation-return (or empty), got '$(RULES)'))$(if $(filter foundation-return,$(RULES)),--foundation-return) $(if $(CELLS),--cells $(CELLS))
prove: setup
	$(PY) -m certgen prove --deal $(DEAL) $(RULEARGS) --out-dir $(OUT)

# #print axioms for every generated theorem (needs Lean); docs/TRUST.md gives the expected answer.
audit: setup
	$(PY) -m certgen audit

bench: setup
	$(PY) scripts/bench.py --play

# The FreeCell page with proofs on http://127.0.0.1:8000 (HOST=0.0.0.0 to open it to the network).
HOST   ?= 127.0.0.1
PORT   ?= 8000
play: setup
	$(PY) -m play serve --host $(HOST) --port $(PORT)

# docs/examples/play-11982.png for the README: the browser test with a real (headless) Chromium.
screenshot: setup
	PLAY_SCREENSHOT=docs/examples/play-11982.png $(PY) -m pytest -q -rs tests/test_play_browser.py

clean:
	rm -rf $(VENV) build *.egg-info solver/_fc*.so solver/_fc.c $(OUT) .lake

# The eight deals of 1..1,000,000 known to be unsolvable: certificates, Python checks, Lean modules,
# docs/KNOWN.md, one lake build.
prove-known: setup
	$(PY) -m certgen prove-known --out-dir $(OUT)

# A winning line for deal N (solver, replay-verified in Python) rendered as a Lean theorem
# `∃ s, Reachable … (msDeal N) s ∧ Won s`, then lake build (exit 3: Lean not available).
prove-win: setup
	$(PY) -m certgen prove-win --deal $(DEAL) $(RULEARGS)

# The same theorem checked by Coq (coqc, Debian package `coq`): explore -> certificate -> Python check ->
# out/coq/<Stem>.v -> coqc; a winnable deal gets the winning line's `exists` theorem. Exit 3: no coqc.
prove-coq: setup
	$(PY) -m certgen prove-coq --deal $(DEAL) $(RULEARGS) --out-dir $(OUT)
