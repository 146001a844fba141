# tshape - Makefile. Targets: all check check-fast install uninstall clean, plus
# sanitize asan ubsan valgrind fuzz bench (see README.md). Quiet unless V=1.
#
# Flags: CPPFLAGS, CFLAGS, LDFLAGS and LDLIBS from the command line or the
# environment are added after the project's own (so they win), never in their
# place; LDFLAGS and LDLIBS reach every link line.
# -Werror: a plain `make` only warns. The test and CI builds (check,
# check-fast, test-unit, test-cli, sanitize, asan, ubsan, valgrind, fuzz, and
# so scripts/test.sh and .ci/run) add WERROR=-Werror, and recompile first
# every object that a build without it compiled, so a warning anywhere fails
# them. WERROR set by hand wins either way (`make check WERROR=`).

VERSION := $(shell sed -n 's/^\#define TS_VERSION_STRING "\(.*\)"/\1/p' include/tshape.h)
MAJOR   := $(firstword $(subst ., ,$(VERSION)))

PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions

CC      ?= cc
OPT     ?= -O2 -g
WERROR_GOALS := check check-fast test-unit test-cli sanitize asan ubsan valgrind fuzz
ifneq ($(filter $(WERROR_GOALS),$(MAKECMDGOALS)),)
WERROR  ?= -Werror
endif
WERROR  ?=
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wvla -Wswitch-enum -Wpointer-arith -Wcast-qual -Wundef \
           -Wwrite-strings -Wold-style-definition -Wmissing-declarations
CFLAGS  ?=
CPPFLAGS ?=
LDFLAGS ?=
LDLIBS  ?=
ALL_CPPFLAGS = -Iinclude -D_POSIX_C_SOURCE=200809L $(CPPFLAGS)
# -fno-math-errno: sqrt compiles to an instruction, so the program and the
# shared library need no libm (start-up, issue 28; src/core/lazylib.h).
ALL_CFLAGS = -std=c11 $(OPT) -fno-math-errno $(WARN) $(WERROR) $(SAN) $(CFLAGS)
# Link lines: the sanitizer and the user's CFLAGS (-flto, --coverage, -m32
# must reach the linker too), then LDFLAGS; LDLIBS after the libraries.
LINK = $(CC) $(SAN) $(CFLAGS) $(LDFLAGS)
PKGS    := zlib jansson
DEP_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
DEP_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lz -ljansson) -pthread
# The library loads zlib, jansson and libm's hypot with dlopen on first use
# (src/core/lazylib.c): the program and the shared library link neither, and
# libm only where sqrt is not an instruction (--as-needed; libc first, as
# glibc's libc has frexp and ldexp too).
LIB_LIBS   := -pthread -Wl,--as-needed -lc -lm -Wl,--no-as-needed
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -lpthread)

B := build
LIB_SRC  := $(sort $(wildcard src/core/*.c src/ops/*.c src/formats/*.c src/values/*.c src/remote/*.c))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
TEST_SRC := $(sort $(wildcard tests/check_*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o)
PIC_OBJ  := $(LIB_SRC:%.c=$(B)/pic/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(B)/%.o)
TEST_OBJ := $(TEST_SRC:%.c=$(B)/%.o) $(B)/tests/run_tests.o $(B)/tests/testutil.o

STATIC := $(B)/libtshape.a
SHARED := $(B)/libtshape.so.$(VERSION)
SONAME := libtshape.so.$(MAJOR)
TSHAPE := $(B)/tshape
RUNNER := $(B)/run_tests

ifeq ($(V),1)
Q :=
else
Q := @
endif

.PHONY: FORCE man all check check-fast test-unit test-cli install uninstall clean asan ubsan sanitize valgrind fuzz bench
all: $(TSHAPE) $(STATIC) $(SHARED)

# An object compiled without -Werror leaves <object>.lax beside it; a build
# with -Werror recompiles those objects (FORCE), so its warnings fail it.
ALL_OBJ := $(LIB_OBJ) $(PIC_OBJ) $(CLI_OBJ) $(TEST_OBJ)
LAX = $(if $(WERROR),rm -f $@.lax,touch $@.lax)
ifneq ($(WERROR),)
LAX_OBJ := $(patsubst %.lax,%,$(wildcard $(ALL_OBJ:=.lax)))
ifneq ($(LAX_OBJ),)
$(LAX_OBJ): FORCE
endif
endif
FORCE:

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(ALL_CPPFLAGS) $(DEP_CFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@
	$(Q)$(LAX)

$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC [pic] $<')
	$(Q)$(CC) $(ALL_CPPFLAGS) $(DEP_CFLAGS) $(ALL_CFLAGS) -fPIC -fvisibility=hidden \
	    -DTS_BUILDING_SHARED -MMD -MP -c $< -o $@
	$(Q)$(LAX)

$(STATIC): $(LIB_OBJ)
	@$(if $(Q),echo '  AR      $@')
	$(Q)rm -f $@ && ar rcs $@ $^

$(SHARED): $(PIC_OBJ)
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(LINK) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LIB_LIBS) $(LDLIBS)
	$(Q)ln -sf libtshape.so.$(VERSION) $(B)/$(SONAME)
	$(Q)ln -sf libtshape.so.$(VERSION) $(B)/libtshape.so

# The CLI links the static library: it uses only include/tshape.h.
$(TSHAPE): $(CLI_OBJ) $(STATIC)
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(LINK) -o $@ $(CLI_OBJ) $(STATIC) $(LIB_LIBS) $(LDLIBS)

# One suite per tests/check_<name>.c, each exporting Suite *<name>_suite(void);
# the list is generated so adding a suite touches no shared file.
# suites.list changes whenever the set of suite files does (not only their
# dates), so an added or removed suite always regenerates suites.h.
$(shell mkdir -p $(B)/tests && echo '$(TEST_SRC)' | cmp -s - $(B)/tests/suites.list || \
        echo '$(TEST_SRC)' > $(B)/tests/suites.list)
$(B)/tests/suites.h: $(TEST_SRC) $(B)/tests/suites.list
	@mkdir -p $(dir $@)
	$(Q)for f in $(TEST_SRC); do n=$${f#tests/check_}; echo "TS_SUITE($${n%.c})"; done > $@.tmp && mv $@.tmp $@

$(B)/tests/run_tests.o: tests/run_tests.c $(B)/tests/suites.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -I$(B)/tests -Isrc $(ALL_CPPFLAGS) $(CHECK_CFLAGS) $(ALL_CFLAGS) -c $< -o $@
	$(Q)$(LAX)

$(B)/tests/%.o: tests/%.c | $(B)/tests/suites.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) -Isrc -I$(B)/tests $(ALL_CPPFLAGS) $(DEP_CFLAGS) $(CHECK_CFLAGS) $(ALL_CFLAGS) \
	    -MMD -MP -c $< -o $@
	$(Q)$(LAX)

$(RUNNER): $(TEST_OBJ) $(STATIC)
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(LINK) -o $@ $(TEST_OBJ) $(STATIC) $(DEP_LIBS) $(CHECK_LIBS) $(LDLIBS)

# tshape.pc is written by `make install`, from the PREFIX, LIBDIR and
# INCLUDEDIR given to it (a file built earlier would keep the PREFIX of that
# build). Directories under PREFIX are written relative to ${prefix}.
PC_LIBDIR     = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

# The library manual is generated from the public header.
man: man/libtshape.3
man/libtshape.3: include/tshape.h scripts/gen-libman.py
	$(Q)python3 scripts/gen-libman.py > $@.tmp && mv $@.tmp $@

# make check: unit suites (Check), then CLI golden tests and man-page examples.
# The shared library is built here, with this build's flags, for the install
# and symbol tests (which would otherwise build it themselves, without -Werror).
check: test-unit test-cli

test-unit: $(RUNNER) $(TSHAPE)
	$(Q)$(RUNNER)

test-cli: $(TSHAPE) $(SHARED) $(B)/tsvalues
	$(Q)TSHAPE=$(abspath $(TSHAPE)) sh tests/cli/run.sh

# Driver of the values API for tests/crosscheck_values.py and bench/stats.sh.
$(B)/tsvalues: tests/tsvalues.c $(STATIC)
	@$(if $(Q),echo '  LD      $@')
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC) $(DEP_LIBS) -lm -lpthread $(LDLIBS)

# make check-fast: the unit suites and the CLI golden tests, man-page examples
# and quick checks, without the suites marked slow (NumPy cross-checks,
# mutation suite, install, symbols, header, fuzz replay): see tests/cli/run.sh.
check-fast: $(RUNNER) $(TSHAPE)
	$(Q)$(RUNNER)
	$(Q)FAST=1 TSHAPE=$(abspath $(TSHAPE)) sh tests/cli/run.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(COMPLETIONDIR)
	install -m 755 $(TSHAPE) $(DESTDIR)$(BINDIR)/tshape
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/libtshape.a
	install -m 755 $(SHARED) $(DESTDIR)$(LIBDIR)/libtshape.so.$(VERSION)
	ln -sf libtshape.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf libtshape.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libtshape.so
	install -m 644 include/tshape.h $(DESTDIR)$(INCLUDEDIR)/tshape.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
	    tshape.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/tshape.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/tshape.pc
	install -m 644 man/tshape.1 $(DESTDIR)$(MANDIR)/man1/tshape.1
	if [ -f man/libtshape.3 ]; then install -m 644 man/libtshape.3 $(DESTDIR)$(MANDIR)/man3/libtshape.3; fi
	if [ -f completions/tshape.bash ]; then install -m 644 completions/tshape.bash $(DESTDIR)$(COMPLETIONDIR)/tshape; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tshape $(DESTDIR)$(LIBDIR)/libtshape.a \
	    $(DESTDIR)$(LIBDIR)/libtshape.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) \
	    $(DESTDIR)$(LIBDIR)/libtshape.so $(DESTDIR)$(INCLUDEDIR)/tshape.h \
	    $(DESTDIR)$(PKGCONFIGDIR)/tshape.pc $(DESTDIR)$(MANDIR)/man1/tshape.1 \
	    $(DESTDIR)$(MANDIR)/man3/libtshape.3 $(DESTDIR)$(COMPLETIONDIR)/tshape

# Sanitizer builds rerun the whole suite in their own build directory.
# Their tests run several times slower: CK_TIMEOUT_MULTIPLIER scales every
# Check case's timeout (tests/run_tests.c gives each 300 s by default), so
# a loaded machine cannot fail them (a value in the environment wins).
CK_SLOW := CK_TIMEOUT_MULTIPLIER=$${CK_TIMEOUT_MULTIPLIER:-4}
# sanitize: ASan (with leak detection) and UBSan together, as CI runs them.
sanitize:
	$(CK_SLOW) ASAN_OPTIONS=detect_leaks=1 $(MAKE) B=build-san \
	    SAN='-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer' \
	    OPT='-O1 -g' check
# The options a user sets in ASAN_OPTIONS/UBSAN_OPTIONS come last and win.
asan:
	$(CK_SLOW) ASAN_OPTIONS="detect_leaks=1:detect_stack_use_after_return=1$${ASAN_OPTIONS:+:$$ASAN_OPTIONS}" \
	    $(MAKE) B=build-asan SAN='-fsanitize=address -fno-omit-frame-pointer' OPT='-O1 -g' check
ubsan:
	$(CK_SLOW) UBSAN_OPTIONS="print_stacktrace=1$${UBSAN_OPTIONS:+:$$UBSAN_OPTIONS}" \
	    $(MAKE) B=build-ubsan SAN='-fsanitize=undefined -fno-sanitize-recover=all' OPT='-O1 -g' check
# The unit suite in one process (CK_FORK=no) so valgrind sees every test.
valgrind: $(RUNNER) $(TSHAPE)
	$(CK_SLOW) CK_FORK=no valgrind -q --error-exitcode=99 --leak-check=full \
	    --errors-for-leak-kinds=definite,indirect $(RUNNER)

# libFuzzer harnesses (clang): fuzz/fuzz_<name>.c -> build-fuzz/fuzz_<name>,
# linked with the library built for fuzzing in build-fuzz. fuzz/harnesses.sh
# leaves out harnesses whose functions include/tshape.h does not declare yet.
# Run them with bench/fuzz.sh SECONDS [HARNESS...].
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer
fuzz:
	$(Q)$(MAKE) --no-print-directory B=build-fuzz CC=$(FUZZ_CC) SAN='$(FUZZ_SAN)' OPT='-O1 -g' \
	    WERROR='$(WERROR)' $$(sh fuzz/harnesses.sh build-fuzz)

$(B)/fuzz_%: fuzz/fuzz_%.c $(wildcard fuzz/*.h) include/tshape.h $(STATIC)
	@$(if $(Q),echo '  FUZZ    $@')
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(STATIC) \
	    $(DEP_LIBS) -lm $(LDLIBS)

# make bench: every benchmark of bench/ in one run (bench/lib.sh holds their
# helpers): start-up against /bin/true, streams against Python and wc -l,
# header-only inspection, convert against cp + sync, and the fuzz harnesses
# FUZZ_SECONDS (10) s each. Each script prints its ratios beside their goals
# and exits 1 when one is missed; make bench then fails, after running all.
FUZZ_SECONDS ?= 10
BENCH := $(filter-out bench/lib.sh bench/fuzz.sh,$(sort $(wildcard bench/*.sh)))
bench: $(TSHAPE)
	$(Q)s=0; for f in $(BENCH); do \
	    echo "== $$f"; TSHAPE=$(TSHAPE) sh $$f || { echo "$$f failed"; s=1; }; echo; \
	done; \
	echo "== bench/fuzz.sh $(FUZZ_SECONDS)"; sh bench/fuzz.sh $(FUZZ_SECONDS) || s=1; \
	exit $$s

clean:
	rm -rf build build-asan build-ubsan build-san build-fuzz build-clang

-include $(LIB_OBJ:.o=.d) $(PIC_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
