# Ubiquity for Linux — build, test and benchmark entry points.
#   make test   install what is missing, build, run every test
#   make bench  release-build and run the benchmarks (never part of make test)

SWIFT ?= swift
# libsystemd-dev and pkg-config: the CSystemd target (sd_notify, journald) needs them.
SYSTEM_PACKAGES := libsystemd-dev pkg-config

.PHONY: all deps build test bench clean

all: build

deps:
	@scripts/ensure-system-packages $(SYSTEM_PACKAGES)

build: deps
	$(SWIFT) build

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: deps
	cd Benchmarks && $(SWIFT) run -c release PredicateBenchmarks

clean:
	rm -rf .build Benchmarks/.build
