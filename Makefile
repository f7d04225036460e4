# dadosbr: every target installs what it needs. `make run` and `make test` are the two a newcomer types.
SHELL := /bin/bash
BUN := node_modules/.bin/bun
DATA ?= ./data
PORT ?= 8080

.PHONY: test-sample run test build data sample bench bench-quick typecheck unit test-binary system-deps clean help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 16

node_modules/.installed: package.json package-lock.json
	@# npm ci rejects this lock file (npm 11 omits other platforms' optional packages); install honours the lock.
	npm install --no-audit --no-fund --loglevel=error
	@touch $@

# Chromium for the /docs browser test (Debian package; npx playwright install cannot download here).
system-deps:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "make: instale o pacote Debian 'chromium' (sudo apt-get install chromium)"; exit 1; fi; }

# Every dataset's bundled sample, built by its own ingest from real-format files (or recordings of
# the polled sources). Rebuilt only where ./data lacks it in this version's layout (--se-preciso):
# a checkout of a version with a new layout rebuilds it instead of serving nothing.
sample: node_modules/.installed ## build the bundled sample of every dataset if missing or built by another version
	$(BUN) src/cli.ts ingest todas --amostra --se-preciso --quiet --data $(DATA)

run: node_modules/.installed sample ## install, build the sample if missing, serve it on :8080 offline (--sem-fontes) with payments off
	$(BUN) --max-http-header-size=1048576 src/cli.ts serve --gratis --sem-fontes --port $(PORT) --data $(DATA)

typecheck: node_modules/.installed
	node_modules/.bin/tsc --noEmit -p .

unit: node_modules/.installed system-deps
	@# bun 1.4 ignores bunfig's [test] timeout: the flag sets it (tests and hooks that start real processes need room on a busy machine).
	UV_THREADPOOL_SIZE=8 $(BUN) test --timeout 120000

test: typecheck unit test-sample test-binary ## install everything and run the whole suite (type-check, tests, single binary)

# The exact command `make run` uses to build the bundled sample, into a throwaway directory.
test-sample: node_modules/.installed
	d=$$(mktemp -d) && $(MAKE) --no-print-directory sample DATA=$$d && test -L $$d/cnpj/current && rm -rf $$d

dist/dadosbr: node_modules/.installed $(shell find src -name '*.ts') scripts/build.ts
	$(BUN) scripts/build.ts

build: dist/dadosbr ## single executable in dist/dadosbr

test-binary: dist/dadosbr ## copy the binary alone into an empty directory and get an answer from it
	$(BUN) scripts/test-binary.ts

data: node_modules/.installed ## rebuild every dataset in ./data from its official source (each skips what is already current)
	$(BUN) src/cli.ts ingest todas --data $(DATA) --se-preciso

bench: node_modules/.installed ## benchmarks: registry on synthetic dumps + payments on a local chain (BENCH_ARGS="--companies 1000000,10000000")
	$(BUN) bench/run.ts $(BENCH_ARGS)

clean:
	rm -rf dist .make
