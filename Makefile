# SPDX-License-Identifier: GPL-2.0-only
# bisectd: plain GNU make + pkg-config.
#
#   make               build the programs
#   make check         install missing Debian packages, run every test
#   make demo          bisect a planted regression in a real kernel tree
#   make bench         measure build, step and boot times (and crash
#                      titles with TITLE_CORPUS=DIR, see tests/bench-titles.sh)
#   make install PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
DATADIR = $(PREFIX)/share/bisectd
MANDIR = $(PREFIX)/share/man
UNITDIR = $(PREFIX)/lib/systemd/system

# What --version prints: git describe of a v* tag in a git checkout
# that has one, else the VERSION file.
VERSION := $(or $(patsubst v%,%,$(shell git describe --tags --match 'v[0-9]*' \
	2> /dev/null)),$(shell cat VERSION))

CC ?= cc
# Each program links only the libraries it runs.
PKGS_BISECTD = libgit2 jansson libmicrohttpd sqlite3 libcurl libcrypto \
	libpcre2-8 gmime-3.0
PKGS_WORKER = libgit2 libarchive jansson libcurl libcrypto libvirt gmime-3.0
PKGS_CLI = libgit2 libarchive jansson sqlite3 libcurl libcrypto libvirt \
	gmime-3.0 libpcre2-8
PKGS = $(sort $(PKGS_BISECTD) $(PKGS_WORKER) $(PKGS_CLI))
WARN = -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wwrite-strings -fno-common
ifeq ($(CI),true)
WARN += -Werror
endif
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -MMD -MP \
	$(shell pkg-config --cflags $(PKGS))
libs = $(shell pkg-config --libs $(1)) -lm -lpthread

# What each folder may include: lib/ is the core; the worker and the
# coordinator use it and never each other; the command-line tool uses
# all three (its local mode runs the scheduler, the store and the
# worker's pipeline in one process).  tests/lint-includes.sh checks
# the same.
INC_lib = -Ilib
INC_worker = -Ilib -Iworker
INC_bisectd = -Ilib -Ibisectd
INC_cli = -Ilib -Iworker -Ibisectd -Icli
INC_tests = -Ilib -Iworker -Ibisectd -Icli -Itests/sim

# Everything that make writes goes under build/: the programs in
# build/bin, the rest in build/FOLDER beside their sources' names.
B = build

# Debian packages: to build, and to build and boot kernels
DEBS_BUILD = build-essential pkg-config libgit2-dev libarchive-dev \
	libjansson-dev libcmocka-dev libmicrohttpd-dev libsqlite3-dev \
	libcurl4-openssl-dev libssl-dev libvirt-dev libgmime-3.0-dev libpcre2-dev clang-format clang \
	libclang-rt-14-dev mandoc
DEBS_RUN = git jq curl sqlite3 iproute2 rsync distcc chromium libvirt-daemon-system bubblewrap gnupg perl apt-utils \
	createrepo-c dnf \
	sbsigntool debootstrap e2fsprogs \
	openssl rpm qemu-system-x86 busybox-static ccache bc bison flex \
	libelf-dev libssl-dev cpio kmod xz-utils linux-source-6.1 \
	linux-config-6.1

MAINS = worker/bisect-worker.c bisectd/bisectd.c cli/bisectctl.c
obj = $(patsubst %.c,$(B)/%.o,$(1))
LIB_OBJ = $(call obj,$(wildcard lib/*.c))
WORKER_OBJ = $(call obj,$(filter-out $(MAINS),$(wildcard worker/*.c)))
COORD_OBJ = $(call obj,$(filter-out $(MAINS),$(wildcard bisectd/*.c)))
CLI_OBJ = $(call obj,$(filter-out $(MAINS),$(wildcard cli/*.c)))
LIBBISECT = $(B)/lib/libbisect.a
LIBWORKER = $(B)/worker/libworker.a
LIBCOORD = $(B)/bisectd/libcoord.a
LIBCLI = $(B)/cli/libcli.a
# every archive, in link order (the unit tests')
LIBS_OWN = $(LIBCLI) $(LIBCOORD) $(LIBWORKER) $(LIBBISECT)

UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(patsubst %.c,$(B)/%,$(UNIT_SRC))
FIXTURE_BIN = $(B)/tests/fixtures/kernel-history $(B)/tests/fixtures/hook-sink \
	$(B)/tests/fixtures/loadgen $(B)/tests/fixtures/slowloris \
	$(B)/tests/sim/bisect-sim

PROGRAMS = $(B)/bin/bisectctl $(B)/bin/bisectd $(B)/bin/bisect-worker
# their manual pages (mdoc), by section; tests/lint-man.sh checks them
MAN1 = $(wildcard docs/man/*.1)
MAN5 = $(wildcard docs/man/*.5)
MAN8 = $(wildcard docs/man/*.8)

all: $(PROGRAMS) $(FIXTURE_BIN)

# (made anew: a member whose source moved elsewhere must not stay)
$(LIBBISECT): $(LIB_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(LIBWORKER): $(WORKER_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(LIBCOORD): $(COORD_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

$(LIBCLI): $(CLI_OBJ)
	rm -f $@ && $(AR) rcs $@ $^

folder = $(firstword $(subst /, ,$(1)))
$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(INC_$(call folder,$<)) -DDATADIR='"$(DATADIR)"' \
		$(VERSION_FLAG) -c -o $@ $<

# the mains have the version compiled in: rebuild them when it changes
$(call obj,$(MAINS)): VERSION_FLAG = -DBISECTD_VERSION='"$(VERSION)"'
$(call obj,$(MAINS)): $(B)/.version
$(B)/.version: FORCE
	@mkdir -p $(B)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@

# the mains and bisectctl's commands have DATADIR compiled in: rebuild
# them when PREFIX changes
$(call obj,$(MAINS) $(wildcard cli/*.c)): $(B)/.datadir
$(B)/.datadir: FORCE
	@mkdir -p $(B)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' > $@

$(B)/bin/bisectctl: $(B)/cli/bisectctl.o $(LIBCLI) $(LIBCOORD) $(LIBWORKER) \
		$(LIBBISECT)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(call libs,$(PKGS_CLI))

$(B)/bin/bisectd: $(B)/bisectd/bisectd.o $(LIBCOORD) $(LIBBISECT)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(call libs,$(PKGS_BISECTD))

$(B)/bin/bisect-worker: $(B)/worker/bisect-worker.o $(LIBWORKER) $(LIBBISECT)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $^ $(call libs,$(PKGS_WORKER))

$(B)/tests/fixtures/%: $(B)/tests/fixtures/%.o $(LIBBISECT)
	$(CC) $(CFLAGS) -o $@ $^ $(call libs,$(PKGS))

$(B)/tests/sim/bisect-sim: $(B)/tests/sim/bisect-sim.o $(B)/tests/sim/simbisect.o \
		$(LIBBISECT)
	$(CC) $(CFLAGS) -o $@ $^ $(call libs,$(PKGS))

$(B)/tests/unit/test_engine: $(B)/tests/sim/simbisect.o
$(B)/tests/unit/test_metric: $(B)/tests/sim/simbisect.o

# the scheduler alone, with a store in memory in place of the SQLite one:
# no SQLite and no HTTP in this program
$(B)/tests/unit/test_sched: $(B)/tests/unit/test_sched.o \
		$(B)/tests/unit/fake_store.o $(B)/bisectd/scheduler.o \
		$(call obj,$(wildcard bisectd/sched_*.c)) \
		$(B)/bisectd/records.o $(LIBBISECT)
	$(CC) $(CFLAGS) -o $@ $^ $(call libs,libgit2 jansson libcurl \
		libcrypto) -lcmocka

$(B)/tests/unit/test_%: $(B)/tests/unit/test_%.o $(LIBS_OWN)
	$(CC) $(CFLAGS) -o $@ $^ $(call libs,$(PKGS)) -lcmocka

# Packages whose services must not start when they are installed:
# iceccd would look for a scheduler by broadcast on the machine's own
# network (the tests run icecream in network namespaces of their own).
DEBS_QUIET = icecc

# Install the Debian packages that are missing (root only; a no-op when
# everything is there).  DEBS_QUIET under a policy-rc.d that refuses to
# start services, unless one is there already.
deps:
	@missing=""; for p in $(DEBS_BUILD) $(DEBS_RUN); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@quiet=""; for p in $(DEBS_QUIET); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || quiet="$$quiet $$p"; \
	done; \
	if [ -n "$$quiet" ]; then \
		echo "installing, its services not started:$$quiet"; \
		made=""; \
		if [ ! -e /usr/sbin/policy-rc.d ]; then \
			printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && \
			chmod 755 /usr/sbin/policy-rc.d && made=1; \
		fi; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $$quiet; \
		rc=$$?; [ -z "$$made" ] || rm -f /usr/sbin/policy-rc.d; exit $$rc; \
	fi

check: deps
	$(MAKE) format-check
	tests/lint.sh
	tests/lint-includes.sh
	tests/lint-licence.sh
	tests/lint-man.sh
	$(MAKE) check-asan
	$(MAKE) fuzz
	$(MAKE) all $(UNIT_BIN)
	tests/lint-cycles.sh
	tests/run-unit.sh $(UNIT_BIN)
	tests/run-t.sh
	tests/run-e2e.sh

# The integration tests once more with every check's condition inverted:
# each check must then fail (tests/run-inverted.sh).
check-inverted: all
	tests/run-inverted.sh

# libFuzzer on the request parsers, for a bounded time (FUZZ_SECONDS),
# from the seed corpus; findings would be written to tests/fuzz/.
FUZZ_SECONDS ?= 60
FUZZ_SRC = tests/fuzz/fuzz_request.c lib/job.c lib/step.c lib/buf.c lib/error.c \
	lib/measure.c lib/verdict.c lib/policy.c lib/recipe.c lib/classify.c \
	lib/frames.c lib/log.c lib/util.c
$(B)/tests/fuzz/fuzz_request: $(FUZZ_SRC)
	@mkdir -p $(@D)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -Ilib \
		$(shell pkg-config --cflags jansson) -o $@ $(FUZZ_SRC) \
		$(shell pkg-config --libs jansson)

fuzz: $(B)/tests/fuzz/fuzz_request
	rm -rf $(B)/fuzz-work
	mkdir -p $(B)/fuzz-work
	cp tests/fuzz/corpus/* $(B)/fuzz-work/
	$(B)/tests/fuzz/fuzz_request -max_total_time=$(FUZZ_SECONDS) \
		-max_len=8192 -artifact_prefix=tests/fuzz/ $(B)/fuzz-work

# The unit tests once more under AddressSanitizer and UBSan.
check-asan:
	$(MAKE) -s clean-objs
	$(MAKE) CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer' $(UNIT_BIN)
	UBSAN_OPTIONS=halt_on_error=1 tests/run-unit.sh $(UNIT_BIN)
	$(MAKE) -s clean-objs

# A guest test that fails on good commits too (about 5% of boots before
# the culprit, 60% after), on the real kernel: too long for make check.
check-noisy: all
	tests/run-t.sh tests/heavy/noisy-kernel.sh

# A planted slowdown in a system call's path, found with --metric, and
# verify --metric on a patch that mends it: too long for make check.
check-slowdown: all
	tests/run-t.sh tests/heavy/slow-kernel.sh

# Debian's cloud config, built and booted for real (about 46 minutes cold),
# and its patched packages built and install-tested.
check-distro: deps
	$(MAKE) all
	tests/run-t.sh tests/distro/*.sh

demo: deps
	$(MAKE) all
	tests/demo.sh

# the metric lines of bisect-sim (see docs/benchmarks.md): the full
# benchmark is METRIC_JOBS=1000 METRIC_COMMITS=1000, hours on two cores
METRIC_JOBS ?= 100
METRIC_COMMITS ?= 200
bench: deps
	$(MAKE) all
	$(B)/tests/sim/bisect-sim
	$(B)/tests/sim/bisect-sim --grid --jobs 300 --commits 300
	$(B)/tests/sim/bisect-sim --metric --jobs $(METRIC_JOBS) --commits $(METRIC_COMMITS)
	tests/bench-skips.sh
	tests/bench.sh
	tests/bench-coord.sh
	tests/bench-stats.sh
	tests/bench-generic.sh
	tests/bench-helpers.sh
	tests/bench-ccache.sh
	tests/bench-package.sh
	tests/bench-titles.sh $(TITLE_CORPUS)

install: $(PROGRAMS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/recipes/fragments \
		$(DESTDIR)$(DATADIR)/images
	install -m 755 $(PROGRAMS) $(DESTDIR)$(BINDIR)/
	install -m 644 recipes/*.recipe recipes/README $(DESTDIR)$(DATADIR)/recipes/
	install -m 644 recipes/fragments/*.config $(DESTDIR)$(DATADIR)/recipes/fragments/
	install -m 755 images/init.sh $(DESTDIR)$(DATADIR)/images/
	install -d $(DESTDIR)$(DATADIR)/web $(DESTDIR)$(UNITDIR)
	install -m 644 bisectd/web/* $(DESTDIR)$(DATADIR)/web/
	install -m 644 bisectd/bisectd.conf.example $(DESTDIR)$(DATADIR)/
	for u in bisectd/systemd/*.service; do \
		sed 's|/usr/local|$(PREFIX)|g' $$u > $(DESTDIR)$(UNITDIR)/$${u##*/}; \
	done
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8
	for m in $(MAN1) $(MAN5) $(MAN8); do \
		sed 's|/usr/local|$(PREFIX)|g' $$m > \
			$(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/} && \
		chmod 644 $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/}; \
	done

format-check:
	clang-format --dry-run --Werror lib/*.[ch] worker/*.[ch] bisectd/*.[ch] \
		cli/*.[ch] tests/unit/*.c tests/fixtures/*.c tests/fuzz/*.c \
		tests/sim/*.[ch]

# the objects (the asan run builds them again with its flags)
clean-objs:
	find $(B) -name '*.o' -delete 2> /dev/null || true
	rm -f $(B)/*/*.a $(UNIT_BIN) $(PROGRAMS) $(FIXTURE_BIN) \
		$(B)/tests/fuzz/fuzz_request

clean:
	rm -rf $(B)

FORCE:

.PRECIOUS: $(B)/%.o
.PHONY: FORCE all deps check check-inverted check-asan fuzz check-noisy check-slowdown check-distro demo bench install format-check clean clean-objs
-include $(shell find $(B) -name '*.d' 2> /dev/null)
