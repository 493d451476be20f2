# bisectd: plain GNU make + pkg-config.
#
#   make               build the programs
#   make check         install missing Debian packages, run every test
#   make demo          bisect a planted regression in a real kernel tree
#   make bench         measure build, step and boot times
#   make install PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
DATADIR = $(PREFIX)/share/bisectd
UNITDIR = $(PREFIX)/lib/systemd/system

CC ?= cc
PKGS = libgit2 libarchive jansson libmicrohttpd sqlite3 libcurl libcrypto \
	libvirt
WARN = -Wall -Wextra -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wwrite-strings -fno-common
ifeq ($(CI),true)
WARN += -Werror
endif
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -Ilib -Iworker -Ibisectd -MMD -MP \
	$(shell pkg-config --cflags $(PKGS))
LIBS = $(shell pkg-config --libs $(PKGS))

# Debian packages: to build, and to build and boot kernels
DEBS_BUILD = build-essential pkg-config libgit2-dev libarchive-dev \
	libjansson-dev libcmocka-dev libmicrohttpd-dev libsqlite3-dev \
	libcurl4-openssl-dev libssl-dev libvirt-dev clang-format clang \
	libclang-rt-14-dev
DEBS_RUN = git jq curl iproute2 rsync chromium libvirt-daemon-system bubblewrap \
	sbsigntool debootstrap e2fsprogs \
	openssl rpm qemu-system-x86 busybox-static ccache bc bison flex \
	libelf-dev libssl-dev cpio kmod xz-utils linux-source-6.1 \
	linux-config-6.1

LIB_SRC = $(wildcard lib/*.c)
WORKER_SRC = $(filter-out worker/bisect-worker.c,$(wildcard worker/*.c))
COORD_SRC = $(filter-out bisectd/bisectctl.c bisectd/bisectd.c,$(wildcard bisectd/*.c))
LIB_OBJ = $(LIB_SRC:.c=.o)
WORKER_OBJ = $(WORKER_SRC:.c=.o)
COORD_OBJ = $(COORD_SRC:.c=.o)
# everything but the programs' mains, in link order
LIBS_OWN = bisectd/libcoord.a worker/libworker.a lib/libbisect.a

UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:.c=)
FIXTURE_BIN = tests/fixtures/kernel-history tests/fixtures/hook-sink \
	tests/fixtures/loadgen tests/sim/bisect-sim

PROGRAMS = bisectd/bisectctl bisectd/bisectd worker/bisect-worker

all: $(PROGRAMS) $(FIXTURE_BIN)

lib/libbisect.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

worker/libworker.a: $(WORKER_OBJ)
	$(AR) rcs $@ $^

bisectd/libcoord.a: $(COORD_OBJ)
	$(AR) rcs $@ $^

%.o: %.c
	$(CC) $(ALL_CFLAGS) -DDATADIR='"$(DATADIR)"' -c -o $@ $<

# the mains have DATADIR compiled in: rebuild them when PREFIX changes
bisectd/bisectctl.o bisectd/bisectd.o worker/bisect-worker.o: .datadir
.datadir: FORCE
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' > $@

bisectd/bisectctl: bisectd/bisectctl.o $(LIBS_OWN)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) -lm -lpthread

bisectd/bisectd: bisectd/bisectd.o $(LIBS_OWN)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) -lm -lpthread

worker/bisect-worker: worker/bisect-worker.o $(LIBS_OWN)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) -lm -lpthread

tests/fixtures/kernel-history: tests/fixtures/kernel-history.o lib/libbisect.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

tests/fixtures/hook-sink: tests/fixtures/hook-sink.o lib/libbisect.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

tests/fixtures/loadgen: tests/fixtures/loadgen.o lib/libbisect.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) -lpthread

tests/sim/bisect-sim: tests/sim/bisect-sim.o tests/sim/simbisect.o lib/libbisect.a
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) -lm

tests/sim/%.o: tests/sim/%.c
	$(CC) $(ALL_CFLAGS) -Itests/sim -c -o $@ $<

tests/unit/test_engine: tests/sim/simbisect.o
tests/unit/test_engine.o: ALL_CFLAGS += -Itests/sim

tests/unit/test_%: tests/unit/test_%.o $(LIBS_OWN)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS) -lcmocka -lm -lpthread

# Install the Debian packages that are missing (root only; a no-op when
# everything is there).
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

check: deps
	$(MAKE) format-check
	tests/lint.sh
	$(MAKE) check-asan
	$(MAKE) fuzz
	$(MAKE) all $(UNIT_BIN)
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
FUZZ_SRC = tests/fuzz/fuzz_request.c lib/job.c lib/buf.c lib/error.c lib/verdict.c \
	lib/policy.c lib/recipe.c lib/classify.c lib/util.c
tests/fuzz/fuzz_request: $(FUZZ_SRC)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -Ilib \
		$(shell pkg-config --cflags jansson) -o $@ $(FUZZ_SRC) \
		$(shell pkg-config --libs jansson)

fuzz: tests/fuzz/fuzz_request
	mkdir -p tests/fuzz/work
	cp tests/fuzz/corpus/* tests/fuzz/work/
	tests/fuzz/fuzz_request -max_total_time=$(FUZZ_SECONDS) -max_len=8192 \
		-artifact_prefix=tests/fuzz/ tests/fuzz/work

# The unit tests once more under AddressSanitizer and UBSan.
check-asan:
	$(MAKE) -s clean-objs
	$(MAKE) CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer' $(UNIT_BIN)
	UBSAN_OPTIONS=halt_on_error=1 tests/run-unit.sh $(UNIT_BIN)
	$(MAKE) -s clean-objs

# Debian's cloud config, built and booted for real (about 46 minutes cold),
# and its patched packages built and install-tested.
check-distro: deps
	$(MAKE) all
	tests/run-t.sh tests/distro/*.sh

demo: deps
	$(MAKE) all
	tests/demo.sh

bench: deps
	$(MAKE) all
	tests/sim/bisect-sim
	tests/bench.sh
	tests/bench-coord.sh
	tests/bench-package.sh

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

format-check:
	clang-format --dry-run --Werror lib/*.[ch] worker/*.[ch] bisectd/*.[ch] \
		tests/unit/*.c tests/fixtures/*.c tests/fuzz/*.c tests/sim/*.[ch]

clean-objs:
	rm -f lib/*.o worker/*.o bisectd/*.o tests/unit/*.o tests/fixtures/*.o \
		tests/sim/*.o \
		lib/*.a worker/*.a bisectd/*.a $(UNIT_BIN) $(PROGRAMS) \
		tests/fuzz/fuzz_request \
		$(FIXTURE_BIN)

clean: clean-objs
	rm -f */*.d tests/*/*.d .datadir

FORCE:

.PHONY: all deps check check-inverted check-asan fuzz check-distro demo bench install format-check clean clean-objs
-include $(wildcard */*.d tests/*/*.d)
