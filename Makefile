# Two commands a researcher needs: `make reproduce` and `make test`. Both create .venv when missing.
PYTHON   ?= python3
VENV     ?= .venv
PROFILE  ?= default
# NOTEBOOKS=01,08 runs a subset (numbers or names); empty = all, in order
NOTEBOOKS ?=
PY       := $(VENV)/bin/python
STAMP    := $(VENV)/.robeval-installed

.PHONY: venv reproduce test unit notebooks-smoke report benchmarks strip clean-build data

venv: $(STAMP)

# torch/torchvision first with exact pins (they come from local disk here; other versions download GBs);
# ceml 0.7 pins ancient torch/tensorflow/sklearn, so it goes in without its dependencies — what
# ceml.sklearn really imports (jax, jaxlib, cvxpy, sklearn-lvq) is in the `adversarial` extra.
$(STAMP): pyproject.toml Makefile
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip wheel setuptools
	$(PY) -m pip install --quiet torch==2.14.1 torchvision==0.29.1
	$(PY) -m pip install --quiet -e ".[notebooks,distributed,adversarial,test]"
	$(PY) -m pip install --quiet --no-deps ceml==0.7
	$(PY) -m ipykernel install --sys-prefix --name robeval --display-name "Python (robeval)" >/dev/null
	@touch $(STAMP)

reproduce: $(STAMP)
	$(PY) -m robeval run --profile $(PROFILE) $(if $(NOTEBOOKS),--only $(NOTEBOOKS),)

report: $(STAMP)
	$(PY) -m robeval report --profile $(PROFILE)

test: $(STAMP)
	$(PY) -m pytest -q -p no:cacheprovider --durations=15 tests

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

clean-build:
	rm -rf build
