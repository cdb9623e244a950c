# kcs — set-up, build, test and benchmarks. `make run` and `make test` are the
# README's two commands: both first install the Debian packages that are missing.
SHELL := /bin/bash
SWIFT ?= swift
DEB_PACKAGES := libedit-dev libsecp256k1-dev libpcsclite-dev libsqlite3-dev libsodium-dev pcscd vsmartcard-vpcd pkg-config
BENCH_PACKAGES := libssl-dev gcc

.PHONY: deps bench-deps build release run test bench clean

# Installs only what dpkg says is missing; apt-get update runs once, and only then.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

bench-deps:
	@missing=""; for p in $(DEB_PACKAGES) $(BENCH_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: build
	$(SWIFT) run kcs

# The build step also builds the kcs binary, which the PC/SC end-to-end tests run.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: bench-deps
	bench/run

clean:
	rm -rf .build bench/out
