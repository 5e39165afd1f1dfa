# Tonearm — build, run and test.
#
#   make run    install what is missing, build (release) and run with conf/tonearm.conf;
#               MUSIC=/path/to/music serves that folder (tonearm --music-directory)
#   make test   install what the tests need and run every test: unit, integration, conformance
#   make install  build (release) and install under PREFIX (default /usr/local); DESTDIR honoured
#   make deb    build (release) and package it: .build/deb/tonearm_VERSION_ARCH.deb
#
# Everything that installs uses apt-get and runs only when a package is missing.

SWIFT         ?= swift
PYTHON        ?= /usr/bin/python3
PREFIX        ?= /usr/local
BINDIR        ?= $(PREFIX)/bin
MANDIR        ?= $(PREFIX)/share/man
# Where systemd looks for units: /usr/lib/systemd/system for PREFIX=/usr (a package), and
# /usr/local/lib/systemd/system for the default prefix, which systemd searches too.
UNITDIR       ?= $(PREFIX)/lib/systemd/system
# /etc for PREFIX=/usr, as packages do; PREFIX/etc otherwise, so a local install stays in it.
SYSCONFDIR    ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
# What `make install` installs. Given on the command line (BINARY=.build/debug/tonearm), it is
# installed as it is, without a release build first.
BINARY        ?= .build/release/tonearm
CONFIG        ?= conf/tonearm.conf
# The music folder `make run` serves; empty: the configuration's music_directory.
MUSIC         ?=
SUDO          := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

BUILD_PACKAGES := pkg-config libavformat-dev libavcodec-dev libavutil-dev libswresample-dev \
                  libasound2-dev libpulse-dev libavahi-client-dev libsqlite3-dev libxml2-dev libogg-dev
# What `make deb` builds the package with: dpkg-shlibdeps and dpkg-gencontrol, objcopy and readelf.
DEB_PACKAGES   := dpkg-dev binutils
# Real clients the integration tests run: Cantata under Xvfb (with imagemagick's `import` for
# screenshots and dbus-run-session for its session bus) and the scrobbler mpdscribble; icecast2 is
# the real radio station the stream tests play and openssl makes their https server's certificate
# (Tests/support/radio.py). chromium is the real browser, headless, that plays the `httpd` output's
# stream in an <audio> element as a phone's browser would (test_httpd_output.py).
TEST_PACKAGES  := $(BUILD_PACKAGES) python3 python3-pytest python3-pytest-xdist python3-mpd mpd mpc ffmpeg groff-base systemd \
                  avahi-daemon avahi-utils dbus iproute2 ncmpcpp ncmpc tmux snapserver snapclient \
                  pulseaudio pulseaudio-utils libasound2-plugins cantata xvfb imagemagick mpdscribble mpdris2 icecast2 openssl \
                  chromium \
                  $(DEB_PACKAGES) lintian

# Installs the packages named in $(1) that dpkg does not have yet.
define apt_install
	@missing="$$(for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done)"; \
	if [ -n "$$missing" ]; then \
		echo "Installing:" $$missing; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

.PHONY: all deps test-deps build build-debug run install uninstall deb test unit integration conformance fuzz \
        format format-check \
        package fuzz-short bench bench-ab soak clean

all: build

deps:
	$(call apt_install,$(BUILD_PACKAGES))

test-deps:
	$(call apt_install,$(TEST_PACKAGES))

# The Swift runtime and Foundation are linked in (--static-swift-stdlib), so the binary needs only
# Debian's own libraries and runs where no Swift toolchain is installed. Relocations are resolved
# at start and then made read-only (-z now, -z relro), as Debian hardens its own binaries.
RELEASE_FLAGS := -c release --static-swift-stdlib -Xlinker -z -Xlinker now -Xlinker -z -Xlinker relro
build: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product tonearm

build-debug: deps
	$(SWIFT) build --product tonearm

run: build
	.build/release/tonearm --config $(CONFIG) $(if $(MUSIC),--music-directory "$(MUSIC)")

# The binary, the man pages, the systemd units (their paths rewritten to BINDIR and
# SYSCONFDIR) and the example configuration, which never replaces an existing one.
install: $(if $(filter command line,$(origin BINARY)),,build)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)
	install -m 755 $(BINARY) $(DESTDIR)$(BINDIR)/tonearm
	install -m 644 docs/tonearm.1 $(DESTDIR)$(MANDIR)/man1/tonearm.1
	install -m 644 docs/tonearm.conf.5 $(DESTDIR)$(MANDIR)/man5/tonearm.conf.5
	for unit in tonearm.service tonearm.socket; do \
		sed -e '/^ExecStart=/s|/usr/local/bin/tonearm|$(BINDIR)/tonearm|' \
			-e '/^ExecStart=/s|/etc/tonearm.conf|$(SYSCONFDIR)/tonearm.conf|' \
			contrib/$$unit > $(DESTDIR)$(UNITDIR)/$$unit.tmp && \
		chmod 644 $(DESTDIR)$(UNITDIR)/$$unit.tmp && mv $(DESTDIR)$(UNITDIR)/$$unit.tmp $(DESTDIR)$(UNITDIR)/$$unit; \
	done
	[ -e $(DESTDIR)$(SYSCONFDIR)/tonearm.conf ] || install -m 644 $(CONFIG) $(DESTDIR)$(SYSCONFDIR)/tonearm.conf

# Removes what `install` put there, except the configuration, which may have been edited.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tonearm $(DESTDIR)$(MANDIR)/man1/tonearm.1 \
		$(DESTDIR)$(MANDIR)/man5/tonearm.conf.5 $(DESTDIR)$(UNITDIR)/tonearm.service $(DESTDIR)$(UNITDIR)/tonearm.socket

# The Debian package of the release build, in .build/deb: tonearm_VERSION_ARCH.deb and the
# debug symbols in tonearm-dbgsym_VERSION_ARCH.deb (packaging/build-deb.sh). VERSION comes from
# git (packaging/version.sh), as `tonearm --version` does; DEB_VERSION=… overrides it.
DEB_DIR ?= .build/deb
deb: $(if $(filter command line,$(origin BINARY)),,build)
	$(call apt_install,$(DEB_PACKAGES))
	packaging/build-deb.sh $(BINARY) $(DEB_DIR) $(DEB_VERSION)

# Every part runs even when an earlier one fails, and the last lines say how each went.
TEST_PARTS := format-check unit integration conformance package fuzz-short

test: test-deps
	$(SWIFT) build --build-tests
	@failed=""; summary=""; \
	for part in $(TEST_PARTS); do \
		if $(MAKE) --no-print-directory $$part; then summary="$$summary  $$part: passed\n"; \
		else summary="$$summary  $$part: FAILED\n"; failed="$$failed $$part"; fi; \
	done; \
	printf "\nmake test, by part:\n$$summary"; \
	if [ -n "$$failed" ]; then echo "make test failed in:$$failed"; exit 1; fi

# The code's layout is swift-format's, with the settings in .swift-format (4 spaces, 120
# columns). `make format` applies it; `make format-check` (part of `make test`) fails on any
# line that differs from it.
FORMAT_PATHS := Package.swift Plugins Sources Tests $(wildcard Fuzz/Sources/Fuzz*)

format:
	$(SWIFT) format --configuration .swift-format -i -r $(FORMAT_PATHS)

format-check:
	$(SWIFT) format lint --strict --configuration .swift-format -r $(FORMAT_PATHS)

unit:
	$(SWIFT) test --skip-build

# Most integration tests wait on servers, clients and real time far more than they compute, so
# they run on INTEGRATION_WORKERS pytest-xdist workers; those marked `realtime` (a sound device's
# clock, every frame recorded, a core loaded on purpose) then run alone, as nothing else should
# share the machine with them. Both halves run, and either failing fails the part.
INTEGRATION_WORKERS ?= 2
INTEGRATION_PYTEST := TONEARM_BIN=$(CURDIR)/.build/debug/tonearm $(PYTHON) -m pytest -q -rfEsx
integration:
	@status=0; \
	$(INTEGRATION_PYTEST) -n $(INTEGRATION_WORKERS) -m "not realtime" Tests/Integration || status=1; \
	$(INTEGRATION_PYTEST) -m realtime Tests/Integration || status=1; \
	exit $$status

conformance:
	$(PYTHON) Tests/Conformance/run.py --tonearm $(CURDIR)/.build/debug/tonearm

# The release build and its package, where they are used: without the Swift toolchain, and
# installed, upgraded, removed and purged in a throwaway root (Tests/Package).
package: deb
	TONEARM_RELEASE_BIN=$(CURDIR)/.build/release/tonearm TONEARM_DEB_DIR=$(CURDIR)/$(DEB_DIR) \
		$(PYTHON) -m pytest -q -rfEsx Tests/Package

# Side by side with Debian's MPD on loopback; paste the table into docs/benchmarks.md.
# The library part generates (once, cached in /tmp) 10,000 and 100,000 tagged MP3s; pass e.g.
# LIBRARY_BENCH_ARGS="--sizes 10000 --repeat 50" to change it. The playback part plays a minute
# of FLAC on each server in real time (about three minutes in all); pass e.g.
# PLAYBACK_BENCH_ARGS="--cpu-runs 3 --runs 11" for more runs. The queue part edits queues of
# 10,000 and 100,000 songs, the servers running at once and taking turns (e.g.
# QUEUE_BENCH_ARGS="--rounds 31"). The state part queues 100,000 songs on each server in turn
# and times clients while the state file is written, and a restart until the queue is back
# (e.g. STATE_BENCH_ARGS="--restarts 5"). The httpd part streams MP3, Opus and Vorbis to 1 and 20
# listeners on each server for 30 s a workload (about six minutes; e.g.
# HTTPD_BENCH_ARGS="--seconds 60"). The binary part gives its size, start time and memory. The
# screens part replays what M.A.L.P., MPDroid, Cantata and myMPD send to open their screens (album
# artists, albums, songs, queue, covers, search) on the 10,000- and 100,000-track libraries (e.g.
# SCREENS_BENCH_ARGS="--sizes 10000 --repeat 20").
# BASELINE=PATH adds an older tonearm binary (a release build) to the same run, its figures and
# new / old in two more columns (below 1: the new build is faster or smaller); e.g. the build of
# a commit before a refactoring.
BASELINE_ARG = $(if $(BASELINE),--baseline-tonearm $(abspath $(BASELINE)))
bench: test-deps build
	$(PYTHON) Tests/Bench/bench.py --tonearm $(CURDIR)/.build/release/tonearm $(BASELINE_ARG)
	$(PYTHON) Tests/Bench/library_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(BASELINE_ARG) $(LIBRARY_BENCH_ARGS)
	$(PYTHON) Tests/Bench/playback_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(BASELINE_ARG) $(PLAYBACK_BENCH_ARGS)
	$(PYTHON) Tests/Bench/queue_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(BASELINE_ARG) $(QUEUE_BENCH_ARGS)
	$(PYTHON) Tests/Bench/state_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(BASELINE_ARG) $(STATE_BENCH_ARGS)
	$(PYTHON) Tests/Bench/radio_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(BASELINE_ARG)
	$(PYTHON) Tests/Bench/httpd_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(BASELINE_ARG) $(HTTPD_BENCH_ARGS)
	$(PYTHON) Tests/Bench/binary_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(BASELINE_ARG)
	$(PYTHON) Tests/Bench/screens_bench.py --tonearm $(CURDIR)/.build/release/tonearm $(BASELINE_ARG) $(SCREENS_BENCH_ARGS)

# The old build and the new one at the same moment, every measurement alternating between them
# (Tests/Bench/ab_compare.py): "did the new build get slower?" without the drift that falls on
# the server measured last in `make bench`. Needs BASELINE=PATH; AB_ARGS="--rounds 60" etc.
bench-ab: test-deps build
	@test -n "$(BASELINE)" || { echo "bench-ab needs BASELINE=/path/to/old/tonearm"; exit 2; }
	$(PYTHON) Tests/Bench/ab_compare.py --tonearm $(CURDIR)/.build/release/tonearm --baseline-tonearm $(BASELINE) $(AB_ARGS)

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
