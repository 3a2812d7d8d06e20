# Ubiquity for Linux — build, test and benchmark entry points.
#   make run    install what is missing, build, start ubiquityd in the foreground (embedded default)
#   make test   install what is missing, build, run every test
#   make bench  release-build and run the benchmarks, bench-sync included (never part of make test)
#   make bench-5m   per-entry costs at 100k, 1M and 5M entries against Watchman (about 21 GB of disk)
#   make bench-attacks  hostile input against a release ubiquityd, measured (root; BEFORE=old binary to compare)
#   make demo-sync  two devices (two daemons, two Syncthing instances) to try sync by hand (root)
#   make bench-sync how long after Syncthing lands a file the other device's live query hears of it (root)
#   make bench-store the relational store: commits, import against the sqlite3 floor, fetches, bytes per row
#   make bench-store-sync  a store's row saved on one device: Syncthing's delay and ours on the other (root)
#   make deb    the Debian package (static Swift runtime) into .build-deb/out, checked by lintian
#   make test-system  boots Debian 12 under systemd-nspawn and tests the installed package (root)
#   make docs   re-render docs/*.md from docs/src/*.md.in by running their examples
#   make fuzz   coverage-guided fuzzing under AddressSanitizer (FUZZ_SECONDS each); make test-asan: the tests under ASan

SWIFT ?= swift
# libsystemd-dev and pkg-config: the CSystemd target (sd_notify, journald) needs them.
# socat: the protocol docs and the authorisation tests talk to the socket as another uid with it.
# strace: the durability tests check what grocery asks the kernel (fsync after rename).
# syncthing: the two-device tests replicate a container between two daemons with it (TwoDevices).
# zlib1g-dev, libsqlite3-dev: CRC-32 and SQLite for stores; libssl3: SHA-256 for stores (libcrypto.so.3,
# loaded at the first digest, not linked); sqlite3: the import floor.
# acl: the peer-access tests give files POSIX ACLs with setfacl and compare with the kernel's answer.
SYSTEM_PACKAGES := libsystemd-dev pkg-config socat strace syncthing zlib1g-dev libssl3 libsqlite3-dev sqlite3 acl
# watchman: the reference daemon of Benchmarks/compare (its smoke run is part of make test).
COMPARE_PACKAGES := watchman
# Options of the full comparison (make bench); see Benchmarks/README.md.
COMPARE_ARGS ?= --shapes all --sizes 10k,100k,1M --runs 3 --runs-largest 3
# Options of the scale run (make bench-5m): e.g. --workdir on a disk with 21 GB free; see Benchmarks/README.md.
SCALE_ARGS ?= --sizes 100k,1M,5M --runs 3
# The daemon the comparisons with Watchman measure: the release build as the Debian package ships
# it, the Swift runtime linked statically (debian/rules), in a scratch directory of its own so the
# plain release build is not rebuilt for it. A cold start then reads one binary, not 90 MB of
# shared Swift libraries: 0.1 s of the cold 100k crawl.
# Linked as debian/rules links it (lld, packed relocations, no exported symbols: its SWIFT_LINK_FLAGS).
PACKAGED_LINK_FLAGS := $(shell sed -n 's/^SWIFT_LINK_FLAGS := //p' debian/rules)
PACKAGED_BUILD = $(SWIFT) build -c release --static-swift-stdlib --scratch-path .build-packaged $(PACKAGED_LINK_FLAGS)
PACKAGED_DAEMON = $$($(PACKAGED_BUILD) --show-bin-path)/ubiquityd
# The charts of the benchmarks' reports (docs/benchmarks/*.svg) are drawn with matplotlib.
ENSURE_MATPLOTLIB = python3 -c 'import matplotlib' 2>/dev/null || python3 -m pip install --quiet matplotlib

.PHONY: all deps build run demo-sync test fuzz test-asan bench bench-compare bench-5m bench-restart bench-load bench-clients bench-sync bench-store bench-store-sync bench-attacks bench-uring docs clean install

all: build

deps:
	@scripts/ensure-system-packages $(SYSTEM_PACKAGES)

build: deps
	$(SWIFT) build

# Zero configuration: per-user container root with the demo container com.example.grocery,
# socket under $XDG_RUNTIME_DIR (or /run/ubiquity as root). Ctrl-C stops it.
run: deps
	$(SWIFT) build
	@bin=$$($(SWIFT) build --show-bin-path); \
	  echo "Starting ubiquityd in the foreground (Ctrl-C stops it). In another terminal try:"; \
	  echo "  $$bin/ubiq status"; \
	  echo "  $$bin/ubiq query \"kMDItemFSName LIKE 'Item_*'\""; \
	  exec $$bin/ubiquityd

# Two devices replicating com.example.grocery through Syncthing (UbiquityTesting's TwoDevices):
# prints each device's socket and commands to paste; Ctrl-C stops everything and removes it all.
demo-sync: deps
	@# Everything: demo-sync runs the ubiquityd beside it, and prints commands for grocery and ubiq.
	$(SWIFT) build
	@exec $$($(SWIFT) build --show-bin-path)/demo-sync

# The docs check runs first so that the test runner's summary is the last line printed.
test: deps
	@# Seconds: the repository must not point outside itself (its --self-test proves the check bites).
	scripts/check-self-contained --self-test
	scripts/check-self-contained
	@# Seconds: no Swift code may split a path as a String (a grapheme can swallow the '/').
	scripts/check-byte-paths --self-test
	scripts/check-byte-paths
	@# Seconds: no test or test helper sleeps in place of waiting for an event (// sleep-ok: says why one may).
	scripts/check-test-waits --self-test
	scripts/check-test-waits
	@# Seconds: fsync, fdatasync and renameat only in the door (UbiquitySystem), whose waiting calls are noasync.
	scripts/check-door --self-test
	scripts/check-door
	$(SWIFT) build --build-tests
	@# The optimiser sees code the debug build never does (a coroutine-splitting crash once hid here):
	@# `make deb` (and so `make test-system`, which CI runs after this) release-builds every packaged
	@# binary, and `make bench` the daemon; this debug-only run leaves the optimiser to them.
	@# Seconds: nothing in the daemon links the whole Foundation (ICU's 34 MB would follow into the package);
	@# a debug binary links the same libraries as a release one, so the debug build answers.
	scripts/check-static-binaries --no-foundation $$($(SWIFT) build --show-bin-path)/ubiquityd
	scripts/verify-units $$($(SWIFT) build --show-bin-path)
	@echo "Checking that every example in docs/ still prints what the docs say..."
	scripts/render-docs --check $$($(SWIFT) build --show-bin-path)/ubiq
	@# Seconds-long: both daemons on a 10k tree must report the same files (no time is asserted).
	@scripts/ensure-system-packages $(COMPARE_PACKAGES)
	python3 Benchmarks/compare/compare.py --smoke --ubiquityd $$($(SWIFT) build --show-bin-path)/ubiquityd
	@scripts/ensure-test-limits
	@# A hung test fails the run after 30 minutes instead of holding CI for its 90 (the suite takes about 5).
	timeout --kill-after=30s 30m $(SWIFT) test --skip-build || { status=$$?; \
		if [ $$status -eq 124 ]; then echo "make test: swift test did not finish within 30 minutes (a test hangs)" >&2; fi; exit $$status; }

docs: build
	scripts/render-docs $$($(SWIFT) build --show-bin-path)/ubiq

# The Benchmarks and Fuzz packages build this one as a path dependency, and SwiftPM keeps its plan
# of that build while no manifest changes: a source file added here since (UbiquityIndex/CountWatchers.swift
# on 2026-11-30) was left out, and the release build failed. Dropping the plan first makes it again (seconds).
replan = rm -f $(1)/.build/release.yaml $(1)/.build/*/release/description.json

# Coverage-guided fuzzing under AddressSanitizer (Fuzz/, docs/testing.md): every target for
# FUZZ_SECONDS (default 300), FUZZ_JOBS at a time (default 1), with a per-input timeout and an RSS limit, then a table. Never part of
# make test, which replays the committed inputs (UbiquityFuzzingTests) without the sanitizer.
# Coverage for libFuzzer in every module (inline counters, the PC table, comparisons); libFuzzer itself is
# linked only into the Fuzz<Name> executables (their linker settings): with -sanitize=fuzzer everywhere
# the build's own tool (the operation registry's generator) would get libFuzzer's main. lld, because
# gold stops with an internal error on these objects.
FUZZ_BUILD = cd Fuzz && $(SWIFT) build -c release --sanitize=address \
  -Xswiftc -sanitize-coverage=edge,trace-cmp,pc-table,inline-8bit-counters -Xswiftc -use-ld=lld
fuzz: deps
	$(call replan,Fuzz)
	$(FUZZ_BUILD)
	scripts/fuzz $$($(FUZZ_BUILD) --show-bin-path)

# The test suites under AddressSanitizer (docs/testing.md says which run and why any cannot).
# Skipped: tests that bound the daemon's memory (ASan's shadow memory and quarantine grow it by
# hundreds of MB), one that waits 90 s for work ASan slows past that, one that needs the daemon to
# fill a socket faster than the reader drains it (ASan's daemon is too slow), and the socket-activation
# test (systemd-socket-activate passes the daemon no ASAN_OPTIONS, so its exit reports the runtime's
# process-lifetime allocations as leaks), and a store test whose 30 s deadlines ASan's daemon misses
# among the other suites (it passes alone, in about 190 s).
ASAN_TEST_ARGS ?= --skip 'socketActivation|watchesThatAreNeverRead|rudeClients|boundedRemoteFiles|aSilentSubscriberGetsTheUnionOfEveryChangedKeyInBoundedMemory|distinctKeysPastTheQuotaCollapseIntoAll|unreadSubscriberStaysBounded'
test-asan: deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	@# detect_leaks=0: at exit LeakSanitizer reports the process-lifetime singletons of NIO and the Swift
	@# runtime (a thread pool's queue), which every CLI run of the tests would fail on; the fuzz targets
	@# keep leak detection, per input. One test target at a time: all of them at once in one process
	@# under ASan twice stopped making progress on this 2-core machine (docs/testing.md).
	@# Every target runs; those that failed are named at the end.
	@failed=""; for target in $$(ls Tests); do \
	  echo "== $$target (ASan)"; \
	  ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan \
	    --filter "^$$target\." $(ASAN_TEST_ARGS) || failed="$$failed $$target"; \
	done; \
	if [ -n "$$failed" ]; then echo "test-asan: failed:$$failed"; exit 1; fi; echo "test-asan: every target passed"

# The latency sections (bench-load, bench-clients: milliseconds, the tails most moved by how busy the
# machine's host is) run first, a few minutes after the run starts, with the machine's state beside
# their figures (load.py: harness floor and steal per round; clients.py: load average, and a floor in the same runs); the long ones (bench-compare about 45 min,
# bench-5m about 70 min) follow. Every section writes its own part of docs/benchmarks.md, so the order
# changes nothing in the report.
bench: deps
	$(MAKE) bench-load
	$(MAKE) bench-clients
	$(call replan,Benchmarks)
	cd Benchmarks && $(SWIFT) run -c release PredicateBenchmarks
	cd Benchmarks && $(SWIFT) run -c release IndexBenchmarks
	cd Benchmarks && $(SWIFT) run -c release WatchBenchmarks
	@# KeyValueBenchmarks runs the real ubiquityd, built beside it; it rewrites its section of docs/benchmarks.md.
	cd Benchmarks && $(SWIFT) build -c release --product ubiquityd && $(SWIFT) run -c release KeyValueBenchmarks --out ../docs/benchmarks.md
	$(MAKE) bench-compare
	$(MAKE) bench-5m
	$(MAKE) bench-restart
	$(MAKE) bench-sync
	$(MAKE) bench-store
	$(MAKE) bench-store-sync

# ubiquityd against Watchman and find on generated 10k/100k/1M trees of every shape (default, wide, deep,
# flat, long); writes docs/benchmarks.md and its charts (matplotlib, installed with pip when missing).
bench-compare: deps
	@scripts/ensure-system-packages $(COMPARE_PACKAGES)
	@$(ENSURE_MATPLOTLIB)
	$(PACKAGED_BUILD) --product ubiquityd
	python3 Benchmarks/compare/compare.py $(COMPARE_ARGS) --out docs/benchmarks.md --ubiquityd $(PACKAGED_DAEMON)

# Scale (issue 37 item 6): the default-shape trees at 100k, 1M and 5M entries on the disk (5M takes
# about 20 GB and 5M inodes: too much for tmpfs here), crawl, memory, answers, latency and restart
# per entry side by side with Watchman, and how each grew from 1M to 5M against the tree. Raises
# fs.inotify.max_user_watches when the 5M tree's directories need it (scripts/ensure-watch-limit,
# root). Writes its section of docs/benchmarks.md.
bench-5m: deps
	@scripts/ensure-system-packages $(COMPARE_PACKAGES)
	@$(ENSURE_MATPLOTLIB)
	$(PACKAGED_BUILD) --product ubiquityd
	python3 Benchmarks/compare/scale.py $(SCALE_ARGS) --out docs/benchmarks.md --ubiquityd $(PACKAGED_DAEMON)

# A clock from before a restart: ubiquityd's exact difference against Watchman's fresh instance, on
# compare.py's 100k and 1M trees, and what the saved index costs. Writes its section of docs/benchmarks.md
# and its chart (docs/benchmarks/restart.svg).
bench-restart: deps
	@scripts/ensure-system-packages $(COMPARE_PACKAGES)
	@$(ENSURE_MATPLOTLIB)
	$(PACKAGED_BUILD) --product ubiquityd
	python3 Benchmarks/compare/restart.py $(RESTART_ARGS) --out docs/benchmarks.md --ubiquityd $(PACKAGED_DAEMON)

# Latency with both cores busy, and one change fanned out to 1,000 live queries: ubiquityd against
# Watchman on compare.py's 100k tree; and a live query's latency while the index is saved back to
# back, at 100k and 1M entries, against save_index = false. Writes its sections of docs/benchmarks.md
# and the latency goals' chart (docs/benchmarks/load.svg).
bench-load: deps
	@scripts/ensure-system-packages $(COMPARE_PACKAGES)
	@$(ENSURE_MATPLOTLIB)
	$(PACKAGED_BUILD) --product ubiquityd
	python3 Benchmarks/compare/load.py $(LOAD_ARGS) --out docs/benchmarks.md --ubiquityd $(PACKAGED_DAEMON)

# grocery list of 10,000 items and ubiq query --json of the 100k tree's entries against the daemon's
# own answer time (issue 14 item 6); BEFORE=DIR runs DIR/grocery and DIR/ubiq interleaved. Writes
# its section of docs/benchmarks.md and its chart (docs/benchmarks/clients.svg). The binaries as the
# Debian package ships them, like the daemon above: a short command's start is mostly loading the
# shared Swift libraries otherwise (about 6 ms).
bench-clients: deps
	@$(ENSURE_MATPLOTLIB)
	$(PACKAGED_BUILD) --product ubiquityd
	$(PACKAGED_BUILD) --product grocery
	$(PACKAGED_BUILD) --product ubiq
	python3 Benchmarks/compare/clients.py $(CLIENTS_ARGS) --out docs/benchmarks.md \
	  --ubiquityd $$($(PACKAGED_BUILD) --show-bin-path)/ubiquityd \
	  --grocery $$($(PACKAGED_BUILD) --show-bin-path)/grocery \
	  --ubiq $$($(PACKAGED_BUILD) --show-bin-path)/ubiq $(if $(BEFORE),--before $(BEFORE))

# Two devices (the demo-sync rig, release build): files written on A; how long Syncthing takes to
# land each on B, and how much later B's ubiquityd tells a live query; then the delay of each sync
# attribute after Syncthing's own event, and the memory, CPU and latency cost of following the
# engine with 100k entries. Writes its sections of docs/benchmarks.md (root: unshare).
bench-sync: deps
	$(SWIFT) build -c release --product demo-sync
	$(SWIFT) build -c release --product ubiquityd
	python3 Benchmarks/compare/sync_delay.py --out docs/benchmarks.md \
	  --demo-sync $$($(SWIFT) build -c release --show-bin-path)/demo-sync
	@# Each daemon follows its Syncthing: how late each sync attribute is, and what following costs at 100k.
	python3 Benchmarks/compare/sync_attributes.py --out docs/benchmarks.md \
	  --demo-sync $$($(SWIFT) build -c release --show-bin-path)/demo-sync \
	  --ubiquityd $$($(SWIFT) build -c release --show-bin-path)/ubiquityd

# The relational store (issue 35): insert → acknowledged, a batch of 10,000 inserts, a fresh device
# importing 100,000 remote rows next to the sqlite3 floor, bytes per row (store-rig, no daemon);
# a fetch of 100,000 rows next to sqlite3 and a live fetch's update latency (ubiquityd). Writes
# its section of docs/benchmarks.md.
bench-store: deps
	$(SWIFT) build -c release --product store-rig
	$(SWIFT) build -c release --product ubiquityd
	python3 Benchmarks/compare/store.py --out docs/benchmarks.md \
	  --rig $$($(SWIFT) build -c release --show-bin-path)/store-rig \
	  --ubiquityd $$($(SWIFT) build -c release --show-bin-path)/ubiquityd

# Two devices (the demo-sync rig, release build): a store's row saved on A; how long Syncthing takes
# to land its segment on B, and how much later B's ubiquityd sends store.changed. Writes its
# section of docs/benchmarks.md (root: unshare).
bench-store-sync: deps
	$(SWIFT) build -c release --product demo-sync
	$(SWIFT) build -c release --product ubiquityd
	python3 Benchmarks/compare/store_sync_delay.py --out docs/benchmarks.md \
	  --demo-sync $$($(SWIFT) build -c release --show-bin-path)/demo-sync

# Whether io_uring (IORING_OP_STATX, in batches) takes a crawl's statuses for less than statx or
# fstatat in a loop, on compare.py's long and wide trees at 100k, warm; prints a table (quoted in
# docs/architecture.md, the crawl). Not part of `make bench`: it decides a design, not a goal.
bench-uring: deps
	@scripts/ensure-system-packages gcc liburing-dev
	python3 Benchmarks/uring/uring.py $(if $(WORKDIR),--workdir $(WORKDIR))

# What each attack of docs/threat_model.md costs the daemon (memory, time, exit status, leaks).
bench-attacks: deps
	$(SWIFT) build -c release --product ubiquityd
	python3 Benchmarks/attacks/attacks.py --ubiquityd $$($(SWIFT) build -c release --show-bin-path)/ubiquityd \
	  $(if $(BEFORE),--before $(BEFORE))

clean:
	rm -rf .build Benchmarks/.build

# Release-build and install binaries, units and the default config (Packaging/install.sh).
#   make install [PREFIX=/usr/local] [DESTDIR=/staging/root]
PREFIX ?= /usr/local
.PHONY: install
install: deps
	$(SWIFT) build -c release --product ubiquityd
	$(SWIFT) build -c release --product ubiq
	$(SWIFT) build -c release --product grocery
	$(MAKE) --no-print-directory man
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) Packaging/install.sh --from $$($(SWIFT) build -c release --show-bin-path) --man-dir .build/man

# Man pages for ubiquityd, ubiq and grocery (MAN_DIR/NAME.1), generated from the built binaries'
# own argument definitions by swift-argument-parser's generate-manual tool. The tool is built once
# in .build-tools, so that neither the release build nor make deb's static one is rebuilt for it.
# MAN_BIN_DIR: where the binaries are (default: the release build, which must exist). The date is
# SOURCE_DATE_EPOCH's when set (dpkg-buildpackage sets it from debian/changelog): reproducible pages.
# The help texts' blank lines become .Pp (groff warns about an empty line in a manual page).
MAN_BIN_DIR ?= $(shell $(SWIFT) build -c release --show-bin-path)
MAN_DIR ?= .build/man
.PHONY: man
man: deps
	$(SWIFT) build -c release --scratch-path .build-tools --product generate-manual
	@mkdir -p $(MAN_DIR)
	@date=$$(date -u -d @$${SOURCE_DATE_EPOCH:-$$(date +%s)} +%Y-%m-%d); \
	  for tool in ubiquityd ubiq grocery; do \
	    test -x $(MAN_BIN_DIR)/$$tool || { echo "make man: $(MAN_BIN_DIR)/$$tool is missing: build it first" >&2; exit 1; }; \
	    .build-tools/release/generate-manual $(MAN_BIN_DIR)/$$tool --date $$date --output-directory $(MAN_DIR) || exit 1; \
	    sed -i 's/^$$/.Pp/' $(MAN_DIR)/$$tool.1; \
	  done
	@ls $(MAN_DIR)/*.1

# The Debian package (debian/): one binary, ubiquityd with the Swift runtime linked statically and
# ubiq and grocery as links to it, built by dpkg-buildpackage into .build-deb/out (SwiftPM's scratch
# directory is .build-deb), then checked by lintian, which must report no error, and its
# Installed-Size printed (docs/operations.md#package-size). Install it with apt install ./.build-deb/out/*.deb.
DEB_PACKAGES := debhelper dpkg-dev lintian
DEB_OUT := .build-deb/out
.PHONY: deb
deb: deps
	@scripts/ensure-system-packages $(DEB_PACKAGES)
	@# Seconds: the binary check of debian/rules refuses the shared runtime, a wrong version and ICU's data.
	scripts/check-static-binaries --self-test
	rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)
	DEB_OUT=$(CURDIR)/$(DEB_OUT) dpkg-buildpackage --build=binary --no-sign \
	  --buildinfo-file=$(DEB_OUT)/ubiquityd.buildinfo --buildinfo-option=-u$(DEB_OUT) \
	  --changes-file=$(DEB_OUT)/ubiquityd.changes --changes-option=-u$(DEB_OUT)
	@# lintian as root only warns that it should not be; errors fail the build, the rest is shown.
	lintian --fail-on error --info $(DEB_OUT)/ubiquityd.changes
	@ls -l $(DEB_OUT)/*.deb
	@echo "Installed-Size: $$(dpkg-deb -f $(DEB_OUT)/ubiquityd_*.deb Installed-Size) KiB"

# The real-systemd suite (scripts/test-system): boots a minimal Debian 12 with systemd-nspawn, installs
# the package and checks the units, socket activation, journald, reload, the watchdog, the user unit and
# purge. Not part of make test; .ci/run runs it after make test. Root; minutes.
SYSTEM_TEST_PACKAGES := systemd-container mmdebstrap
.PHONY: test-system
test-system: deb
	@scripts/ensure-system-packages $(SYSTEM_TEST_PACKAGES)
	scripts/test-system $(DEB_OUT)/ubiquityd_*.deb
