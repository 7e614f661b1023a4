# Two commands a researcher needs: `make reproduce` and `make test`. Both create .venv when missing.
PYTHON   ?= python3
VENV     ?= .venv
PROFILE  ?= default
# NOTEBOOKS=01,08 runs a subset (numbers or names); empty = all, in order
NOTEBOOKS ?=
# pytest-xdist workers for `make test` (2 cores: 2; a test file per worker, tests/conftest.py)
TEST_JOBS ?= 2
PY       := $(VENV)/bin/python
STAMP    := $(VENV)/.robeval-installed
# exact, tested versions (pyproject.toml states compatible ranges only)
CONSTRAINTS := requirements/constraints.txt

.PHONY: venv git-filter reproduce figures verify test lint lab constraints docs site site-deploy unit notebooks-smoke report benchmarks strip clean-build data

venv: $(STAMP)

# --no-compile: pip would byte-compile all ~19,000 .py files of the environment one by one (about 2 CPU-minutes);
# Python compiles the modules a run imports on first use instead (and caches them).
# torch/torchvision first with exact pins (they come from local disk here; other versions download GBs);
# ceml 0.7 pins ancient torch/tensorflow/sklearn, so it goes in without its dependencies — what
# ceml.sklearn really imports (jax, jaxlib, cvxpy, sklearn-lvq) is in the `adversarial` extra.
$(STAMP): pyproject.toml Makefile $(CONSTRAINTS)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip wheel setuptools
	$(PY) -m pip install --quiet --no-compile -c $(CONSTRAINTS) torch torchvision
	$(PY) -m pip install --quiet --no-compile -c $(CONSTRAINTS) -e ".[notebooks,distributed,adversarial,test,lint,docs]"
	$(PY) -m pip install --quiet --no-compile --no-deps -c $(CONSTRAINTS) ceml
	$(PY) -m ipykernel install --sys-prefix --name robeval --display-name "Python (robeval)" $(KERNEL_ENV) >/dev/null
	@$(MAKE) --no-print-directory git-filter
	@touch $(STAMP)

# The notebooks' kernel pins the CPU kernels before anything imports numpy or torch (bit-identical reruns
# across x86 machines; robeval.core.env.PINNED_CPU_ENV, which `robeval run` applies too). A plain
# `import robeval` elsewhere changes nothing.
KERNEL_ENV := --env NPY_DISABLE_CPU_FEATURES "X86_V4 AVX512_ICL AVX512_SPR" --env OPENBLAS_CORETYPE Haswell \
	--env ATEN_CPU_CAPABILITY avx2 --env ONEDNN_MAX_CPU_ISA AVX2 --env MKL_CBWR AVX2

# nbstripout as a git filter (.gitattributes): a notebook saved with outputs is committed without them, stripped
# exactly as `robeval strip` does (cell ids kept). Equivalent to `nbstripout --install --attributes
# .gitattributes` plus the flags that command cannot record.
git-filter:
	@if git rev-parse --git-dir >/dev/null 2>&1; then \
	  git config filter.nbstripout.clean '"$(abspath $(PY))" -m nbstripout --keep-id --extra-keys cell.metadata.execution'; \
	  git config filter.nbstripout.smudge cat; \
	  git config filter.nbstripout.required true; \
	  git config diff.ipynb.textconv '"$(abspath $(PY))" -m nbstripout -t --keep-id'; \
	fi

reproduce: $(STAMP)
	$(PY) -m robeval run --profile $(PROFILE) $(if $(NOTEBOOKS),--only $(NOTEBOOKS),)

# re-plot figures and rebuild the claims from the stored result files, without recomputing anything
figures: $(STAMP)
	$(PY) -m robeval run --replot --profile $(PROFILE) $(if $(NOTEBOOKS),--only $(NOTEBOOKS),)

# rebuild the claims from stored results and check that no verdict differs from the saved ledgers
verify: $(STAMP)
	$(PY) -m robeval verify --profile $(PROFILE) $(if $(NOTEBOOKS),--only $(NOTEBOOKS),)

report: $(STAMP)
	$(PY) -m robeval report --profile $(PROFILE)

# --no-loadscope-reorder keeps tests/conftest.py's order (the notebook files first): pytest-xdist otherwise sends
# the files with the most tests first, and the dry runs (few tests, ~12 min) ran alone on one worker at the end
test: lint docs
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder --durations=40 tests

# ruff lint + format check on the library, tests, benchmarks and notebooks; notebooks must hold no outputs
lint: $(STAMP)
	$(PY) -m ruff check lib tests benchmarks notebooks
	$(PY) -m ruff format --check lib tests benchmarks notebooks
	$(PY) -m robeval strip --check
	$(VENV)/bin/lint-imports --no-cache

unit: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m "not notebook" tests

notebooks-smoke: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider -m notebook tests

benchmarks: $(STAMP)
	@for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

data: $(STAMP)
	$(PY) -m robeval data

strip: $(STAMP)
	$(PY) -m robeval strip

# the API reference and guides (mkdocs + mkdocstrings) into build/site; any warning fails the build
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict --quiet

# the reader's website into build/site: notebooks executed from the stored results (no recomputing), the claims
# ledger as a filterable table, the figure gallery, guides and API reference (robeval.core.site.build)
site: $(STAMP)
	$(PY) -m robeval site --profile $(PROFILE) $(if $(NOTEBOOKS),--only $(NOTEBOOKS),)

# publish build/site on GitHub Pages (the gh-pages branch of the `origin` remote); build it first with `make site`
site-deploy: $(STAMP)
	$(VENV)/bin/ghp-import --no-jekyll --push --force build/site

# JupyterLab with the "Python (robeval)" kernel, opened on notebooks/
lab: $(STAMP)
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks

# rewrite the constraints from the current environment (after a deliberate upgrade)
constraints: $(STAMP)
	@(echo "# Exact versions the compendium is tested with (pip constraints: \`pip install -c requirements/constraints.txt ...\`)."; \
	  echo "# Regenerate with \`make constraints\` after upgrading; pyproject.toml states only compatible ranges."; \
	  $(PY) -m pip freeze --exclude-editable | grep -v "^robeval" | sort -f) > $(CONSTRAINTS)

clean-build:
	rm -rf build
