# Two entry points for a new machine: `make run` and `make test`.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

CHROMEDRIVER := /usr/bin/chromedriver
# Root on the CI machine; sudo elsewhere.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test test-quick lint bench install scale-out

# pip shows what it fetches and installs: the first install takes a few minutes (torch is the largest part).
$(STAMP): requirements.txt
	@echo "==> kbsite: installing into $(VENV) (first time: a few minutes)"
	test -x $(PY) || python3.11 -m venv $(VENV) || python3 -m venv $(VENV)
	@echo "==> [1/3] pip"
	$(PY) -m pip install --progress-bar on --upgrade pip
	@echo "==> [2/3] torch (CPU build)"
	$(PY) -m pip install --progress-bar on torch==2.13.0
	@echo "==> [3/3] kbsite's requirements"
	$(PY) -m pip install --progress-bar on -r requirements.txt
	touch $(STAMP)
	@echo "==> kbsite: installed"

# The browser test drives Debian's Chromium through its chromedriver.
$(CHROMEDRIVER):
	$(SUDO) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver >/dev/null

install: $(STAMP)

run: $(STAMP)
	$(PY) manage.py serve

test: $(STAMP) $(CHROMEDRIVER)
	$(PY) -m pytest

# The loop while working: all but the slow end-to-end tests (worker processes, browsers, serve, migrations).
test-quick: $(STAMP)
	$(PY) -m pytest -m "not e2e and not migrations"

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(PY) manage.py makemigrations --check --dry-run

bench: $(STAMP)
	$(PY) -m benchmarks

# Two worker clusters on an external PostgreSQL (Debian's server with pgvector), as two machines would run.
scale-out: $(STAMP)
	benchmarks/external_postgres.sh
	$(PY) -m benchmarks scale_out
