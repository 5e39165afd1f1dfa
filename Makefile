# Tonearm — build, run and test.
#
#   make run    install what is missing, build (release) and run with conf/tonearm.conf
#   make test   install what the tests need and run every test: unit, integration, conformance
#
# Everything that installs uses apt-get and runs only when a package is missing.

SWIFT         ?= swift
PYTHON        ?= /usr/bin/python3
PREFIX        ?= /usr/local
CONFIG        ?= conf/tonearm.conf
SUDO          := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

BUILD_PACKAGES := pkg-config libavformat-dev libavcodec-dev libavutil-dev libswresample-dev \
                  libasound2-dev libavahi-client-dev libsqlite3-dev
TEST_PACKAGES  := $(BUILD_PACKAGES) python3 python3-pytest python3-mpd mpd mpc ffmpeg

# Installs the packages named in $(1) that dpkg does not have yet.
define apt_install
	@missing="$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done)"; \
	if [ -n "$$missing" ]; then \
		echo "Installing:" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

.PHONY: all deps test-deps build build-debug run test unit integration conformance fuzz fuzz-short bench soak clean

all: build

deps:
	$(call apt_install,$(BUILD_PACKAGES))

test-deps:
	$(call apt_install,$(TEST_PACKAGES))

build: deps
	$(SWIFT) build -c release --product tonearm

build-debug: deps
	$(SWIFT) build --product tonearm

run: build
	.build/release/tonearm --config $(CONFIG)

test: test-deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory unit integration conformance fuzz-short

unit:
	$(SWIFT) test --skip-build

integration:
	TONEARM_BIN=$(CURDIR)/.build/debug/tonearm $(PYTHON) -m pytest -q Tests/Integration

conformance:
	$(PYTHON) Tests/Conformance/run.py --tonearm $(CURDIR)/.build/debug/tonearm

# Side by side with Debian's MPD on loopback; paste the table into docs/benchmarks.md.
# The library part generates (once, cached in /tmp) 10,000 and 100,000 tagged MP3s; pass e.g.
# LIBRARY_BENCH_ARGS="--sizes 10000 --repeat 50" to change it. The playback part plays a minute
# of FLAC on each server in real time (about three minutes in all); pass e.g.
# PLAYBACK_BENCH_ARGS="--cpu-runs 3 --runs 11" for more runs.
bench: test-deps build
	$(PYTHON) Tests/Bench/bench.py --tonearm $(CURDIR)/.build/release/tonearm
	$(PYTHON) Tests/Bench/library_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(LIBRARY_BENCH_ARGS)
	$(PYTHON) Tests/Bench/playback_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(PLAYBACK_BENCH_ARGS)

# Bounded soak on loopback (a few minutes; it stops by itself): 300 clients for 60 s against a
# release build of Tonearm, then Debian's MPD, on a generated library while a rescan runs and
# playback advances. Fails on any protocol error or dropped client of Tonearm's. Pass e.g.
# SOAK_ARGS="--clients 100 --seconds 30" to change it; the table goes into docs/benchmarks.md.
soak: test-deps build
	$(PYTHON) Tests/Bench/soak.py --tonearm $(CURDIR)/.build/release/tonearm $(SOAK_ARGS)

fuzz:
	$(MAKE) -C Fuzz run SECONDS=$${SECONDS_PER_TARGET:-60}

fuzz-short:
	$(MAKE) -C Fuzz run SECONDS=10

clean:
	rm -rf .build Fuzz/.build
