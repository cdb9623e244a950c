# kcs — set-up, build, test and benchmarks. `make run` and `make test` are the
# README's two commands: both first install the Debian packages that are missing.
SHELL := /bin/bash
SWIFT ?= swift
# The toolchain's clang, beside swift (make static asks it where libstdc++.a is).
SWIFT_CLANG = $(dir $(realpath $(shell command -v $(SWIFT))))clang
DEB_PACKAGES := libedit-dev libstdc++-12-dev libsecp256k1-dev libpcsclite-dev libsqlite3-dev libsodium-dev pcscd vsmartcard-vpcd pkg-config libcurl4 python3 python3-venv strace binutils libssl3 libqrencode-dev libzbar0 libpng-dev libturbojpeg0 libgif-dev zbar-tools
BENCH_PACKAGES := libssl-dev gcc

.PHONY: deps bench-deps evm-venv keycard-venv qr-venv mpc-venv safe-venv btc-venv build release run test test-fast bench fuzz fuzz-build format clean static install uninstall install-check

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

# The local EVM the signing tests send to (issue 7 §4): eth-tester and py-evm from PyPI in a
# virtual environment under the build folder, made again when the pinned versions change.
EVM_VENV := .build/evm-venv
evm-venv: $(EVM_VENV)/.installed
$(EVM_VENV)/.installed: tools/evm-node/requirements.txt tools/evm-node/constraints.txt
	@rm -rf $(EVM_VENV)
	python3 -m venv $(EVM_VENV)
	$(EVM_VENV)/bin/pip install -q --disable-pip-version-check -r tools/evm-node/requirements.txt -c tools/evm-node/constraints.txt
	@touch $@

# keycard-py, the independent client the simulator's fidelity test runs (tools/keycard-py), in
# its own virtual environment; --no-deps because its pyscard is replaced by a ctypes module there.
KEYCARD_VENV := .build/keycard-venv
keycard-venv: $(KEYCARD_VENV)/.installed
$(KEYCARD_VENV)/.installed: tools/keycard-py/requirements.txt
	@rm -rf $(KEYCARD_VENV)
	python3 -m venv $(KEYCARD_VENV)
	$(KEYCARD_VENV)/bin/pip install -q --disable-pip-version-check --no-deps -r tools/keycard-py/requirements.txt
	@touch $@

# The QR and UR oracles of the tests (tools/qr-oracle): segno, zxing-cpp, cbor2, urtypes.
QR_VENV := .build/qr-venv
qr-venv: $(QR_VENV)/.installed
$(QR_VENV)/.installed: tools/qr-oracle/requirements.txt
	@rm -rf $(QR_VENV)
	python3 -m venv $(QR_VENV)
	$(QR_VENV)/bin/pip install -q --disable-pip-version-check -r tools/qr-oracle/requirements.txt
	@touch $@

# The independent two-party reference party of the tests (tools/mpc-ref): phe, ecdsa, gmpy2, pycryptodome.
MPC_VENV := .build/mpc-venv
mpc-venv: $(MPC_VENV)/.installed
$(MPC_VENV)/.installed: tools/mpc-ref/requirements.txt
	@rm -rf $(MPC_VENV)
	python3 -m venv $(MPC_VENV)
	$(MPC_VENV)/bin/pip install -q --disable-pip-version-check -r tools/mpc-ref/requirements.txt
	@touch $@

# The Safe oracle of the tests (tools/safe-oracle): safe-eth-py, in its own environment (it
# brings web3, whose pins are not the EVM node's).
SAFE_VENV := .build/safe-venv
safe-venv: $(SAFE_VENV)/.installed
$(SAFE_VENV)/.installed: tools/safe-oracle/requirements.txt tools/safe-oracle/constraints.txt
	@rm -rf $(SAFE_VENV)
	python3 -m venv $(SAFE_VENV)
	$(SAFE_VENV)/bin/pip install -q --disable-pip-version-check -r tools/safe-oracle/requirements.txt -c tools/safe-oracle/constraints.txt
	@touch $@

# The Bitcoin oracle of the tests (tools/btc-oracle): bdk, libbitcoinkernel, hwi and embit, in
# their own environment, every dependency pinned.
BTC_VENV := .build/btc-venv
btc-venv: $(BTC_VENV)/.installed
$(BTC_VENV)/.installed: tools/btc-oracle/requirements.txt tools/btc-oracle/constraints.txt
	@rm -rf $(BTC_VENV)
	python3 -m venv $(BTC_VENV)
	$(BTC_VENV)/bin/pip install -q --disable-pip-version-check -r tools/btc-oracle/requirements.txt -c tools/btc-oracle/constraints.txt
	@touch $@

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: build
	$(SWIFT) run kcs

# The build step also builds the kcs binary, which the PC/SC end-to-end tests run.
# The whole log goes to .build/test.log as well; when a test fails, its name and the issue it
# recorded are printed again at the very end, where a CI log's tail still shows them; the last
# lines, one per failure and marked FAILED:, survive a log excerpt that drops repeated lines.
# `make test-fast`: the edit-test loop — the suites that run in this process (no kcs binary, no
# pcscd, no Python party, no node), about a minute on two cores; `make test` runs everything.
FAST_SKIP := ConsoleTests|CardPCSCTests|TranscriptTests|ReferenceParty|GoldenTranscript
test-fast: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip '$(FAST_SKIP)'

test: deps evm-venv keycard-venv qr-venv mpc-venv safe-venv btc-venv
	$(SWIFT) build --build-tests
	@set -o pipefail; $(SWIFT) test --skip-build 2>&1 | tee .build/test.log || { \
	  echo "=== failing tests (from .build/test.log) ==="; \
	  grep -E -A4 '✘|XCTAssert|Fatal error|Crash' .build/test.log | head -120; \
	  grep -E '✘ Test .*(recorded an issue|failed after)|error: .*XCTAssert|Fatal error' .build/test.log \
	    | cut -c1-300 | sed 's/^/FAILED: /' | head -20; \
	  exit 1; }
	$(MAKE) fuzz FUZZ_SECONDS=10

# libFuzzer on the language front end (lexer, parser, printer, diagnostics): any input must
# neither crash nor hang. The seed corpus is the repository's own .kcs files; findings go to
# .build/fuzz/ and the run fails on the first crash or time-out.
FUZZ_SECONDS ?= 60
fuzz-build:
	@mkdir -p .build/fuzz/corpus
	swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name KCSSyntax \
	  Sources/KCSSyntax/*.swift fuzz/ParserFuzz.swift -o .build/fuzz/parser 2>&1 | grep -v warning || true
	@test -x .build/fuzz/parser

fuzz: fuzz-build
	@cp examples/*.kcs stdlib/*.kcs .build/fuzz/corpus/ 2>/dev/null || true
	@find Tests/KCSRuntimeTests/Cases -name '*.kcs' -exec cp {} .build/fuzz/corpus/ \; 2>/dev/null || true
	set -o pipefail; .build/fuzz/parser -max_total_time=$(FUZZ_SECONDS) -timeout=2 -artifact_prefix=.build/fuzz/ .build/fuzz/corpus 2>&1 | tail -3

bench: bench-deps evm-venv qr-venv btc-venv
	bench/run

# `make install [PREFIX=~/.local]`: the release binary with the Swift runtime linked in (it runs
# where no Swift toolchain is installed; the Debian libraries of DEB_PACKAGES stay shared), the
# standard library, shell completions for bash, zsh and fish (`kcs completions`), the man page
# docs/kcs.1 (written by hand; Tests/PackageTests/ManPageTests.swift keeps it in step with the
# code) and the documents docs/*.md in PREFIX/share/doc/kcs. `make uninstall` removes them again.
PREFIX ?= /usr/local
STATIC_BUILD := .build/static
KCS_STATIC := $(STATIC_BUILD)/release/kcs
INSTALLED := $(PREFIX)/bin/kcs $(PREFIX)/share/man/man1/kcs.1 \
  $(PREFIX)/share/bash-completion/completions/kcs $(PREFIX)/share/zsh/site-functions/_kcs \
  $(PREFIX)/share/fish/vendor_completions.d/kcs.fish
# Start-up (docs/architecture.md, "Start-up"): linked by lld with packed relative relocations
# (DT_RELR, glibc >= 2.36), so the loader reads ~20 KB of relocations instead of 2.3 MB of RELA
# entries at every start; exporting none of its own symbols (tools/link/kcs.exports); and with
# libstdc++, libsqlite3, libsodium and libsecp256k1 linked in from Debian's own static archives,
# so the loader maps and binds none of them. STATIC_ARCHIVES holds just those archives, and
# pkg-config files (read by SwiftPM through PKG_CONFIG_PATH) that send the link there first.
STATIC_ARCHIVES := $(STATIC_BUILD)/archives
STATIC_LINK := -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xswiftc -L$(abspath $(STATIC_ARCHIVES)) \
  -Xlinker --version-script=$(abspath tools/link/kcs.exports)
static: deps
	@mkdir -p $(STATIC_ARCHIVES)/pkgconfig && archive=$$($(SWIFT_CLANG) -print-file-name=libstdc++.a) && test -f "$$archive" \
	  && ln -sf "$$archive" $(STATIC_ARCHIVES)/libstdc++.a || { echo "libstdc++.a not found (Debian: libstdc++-12-dev)"; exit 1; }
	@libdir=$$(pkg-config --variable=libdir libsodium); for lib in sqlite3 sodium secp256k1; do \
	  test -f $$libdir/lib$$lib.a || { echo "$$libdir/lib$$lib.a not found (Debian: lib$$lib-dev)"; exit 1; }; \
	  ln -sf $$libdir/lib$$lib.a $(STATIC_ARCHIVES)/lib$$lib.a; \
	done; for pc in libsodium libsecp256k1; do \
	  printf 'Name: %s\nDescription: %s, static (make static)\nVersion: %s\nCflags: -I/usr/include\nLibs: -L%s -l%s\n' $$pc $$pc \
	    "$$(pkg-config --modversion $$pc)" $(abspath $(STATIC_ARCHIVES)) $${pc#lib} > $(STATIC_ARCHIVES)/pkgconfig/$$pc.pc; \
	done
	PKG_CONFIG_PATH=$(abspath $(STATIC_ARCHIVES))/pkgconfig $(SWIFT) build -c release --product kcs --static-swift-stdlib \
	  $(STATIC_LINK) --scratch-path $(STATIC_BUILD)

install: static
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/kcs/stdlib $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/doc/kcs $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 -s $(KCS_STATIC) $(DESTDIR)$(PREFIX)/bin/kcs
	install -m 644 stdlib/*.kcs $(DESTDIR)$(PREFIX)/share/kcs/stdlib/
	$(KCS_STATIC) completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/kcs
	$(KCS_STATIC) completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_kcs
	$(KCS_STATIC) completions fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/kcs.fish
	install -m 644 docs/kcs.1 $(DESTDIR)$(PREFIX)/share/man/man1/kcs.1
	install -m 644 docs/*.md $(DESTDIR)$(PREFIX)/share/doc/kcs/
	@echo "installed kcs in $(DESTDIR)$(PREFIX)/bin (make uninstall PREFIX=$(PREFIX) removes it)"

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -rf $(DESTDIR)$(PREFIX)/share/kcs $(DESTDIR)$(PREFIX)/share/doc/kcs

# What make install promises, checked as a user would: install into a throw-away prefix, copy
# the binary into an empty folder and run it with a minimal environment, find the stdlib from
# the installed kcs through PATH in another folder, read the man page, uninstall.
install-check:
	tools/install-check

# The layout of docs/habits.md, "Layout": swift-format with the repository's .swift-format.
format:
	swift-format format --in-place --parallel $$(git ls-files '*.swift')

clean:
	rm -rf .build bench/out
