# SPDX-License-Identifier: MIT
# pgo: one non-recursive Makefile for the tool, its BPF skeletons, tests, demo and benchmarks.
#
#   make            build build/bin/pgo and the pgo-collect/-convert/-gate links
#   make test       unit + end-to-end tests (ends with "N passed, N failed")
#   make test SANITIZE=address,undefined
#   make compilers  Debian chroots with gcc 13-16 for the convert tests (cached in PGO_COMPILERS_DIR)
#   make test-compilers  build them, then run the convert tests with each of those gccs
#   make demo       collect, convert, rebuild with -fauto-profile, show the speedup and the flamegraph
#   make bench      benchmarks against perf record, create_gcov and instrumented PGO
#                   (make bench B=pgo BENCH_ARGS="-r 31 mujs jq": one benchmark, its options)
#   make deps       install the Debian packages the build, tests and demo need (idempotent)
#   make install PREFIX=/usr/local DESTDIR=   (the program, manual pages, bash completion)
#   make deb        build/deb/pgo_VERSION_ARCH.deb (dpkg-buildpackage on a copy of the tree in build/deb)
#   make deb-check  install that .deb with apt in a clean Debian 12 chroot and run the README's example

VERSION    := 0.1.0
PREFIX     ?= /usr/local
DESTDIR    ?=
V          ?=
PKG_CONFIG ?= pkg-config
CLANG      ?= clang
BPFTOOL    ?= bpftool
ARCH       := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

# Sanitized builds live apart so they never mix objects with the normal build.
ifdef SANITIZE
OUTPUT     := build/san
else
OUTPUT     := build
endif
BIN        := $(OUTPUT)/bin

PKGS       := libbpf libelf libdw jansson gsl libxxhash libzstd libprotobuf-c
# libgit2 is loaded by the gate when it needs git (gate/libgit.h): its headers and soname, no -lgit2
LIBGIT2_SONAME := $(shell objdump -p "$$($(PKG_CONFIG) --variable=libdir libgit2 2>/dev/null)/libgit2.so" \
                    2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
# Zydis (x86-64 decoder) is loaded by convert for entry blocks (symbolize/entryblock.c): its soname
ZYDIS_SONAME   := $(shell objdump -p /usr/lib/$$(gcc -print-multiarch 2>/dev/null)/libZydis.so \
                    2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
#
DEB_BUILD  := build-essential pkg-config clang llvm libbpf-dev libelf-dev libdw-dev libgit2-dev \
              libjansson-dev libgsl-dev libxxhash-dev libzydis-dev protobuf-c-compiler libprotobuf-c-dev zlib1g-dev libzstd-dev liblzma-dev libbz2-dev \
              bpftool linux-perf git scdoc bash-completion
DEB_TEST   := valgrind chromium binutils libxml2-utils time libc6-dbg golang-go google-perftools libgoogle-perftools-dev jq \
              mmdebstrap man-db debhelper lintian fakeroot
DEB_BENCH  := hyperfine autofdo dpkg-dev bison libonig-dev autoconf ccache
#

WARN       := -Wall -Wextra -Wformat=2 -Wshadow -Wundef -Wstrict-prototypes -Wmissing-prototypes \
              -Wold-style-definition -Wpointer-arith -Wvla -Wwrite-strings -Wno-unused-parameter
PKG_CFLAGS  = $(shell $(PKG_CONFIG) --cflags $(PKGS) libgit2 2>/dev/null)
PKG_LIBS    = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
PGO_CFLAGS := -std=gnu11 -g -O2 $(WARN) -fno-common -D_GNU_SOURCE -DPGO_VERSION='"$(VERSION)"' \
              -I. -I$(OUTPUT)/bpf -I$(OUTPUT)/gen $(PKG_CFLAGS) \
              $(if $(LIBGIT2_SONAME),-DGATE_LIBGIT2_SONAME='"$(LIBGIT2_SONAME)"') \
              $(if $(ZYDIS_SONAME),-DCONVERT_ZYDIS_SONAME='"$(ZYDIS_SONAME)"') $(CFLAGS)
LDLIBS     += $(PKG_LIBS) -lz -lm -lpthread -ldl
# bin/pgo links these libraries statically (libc and libm stay shared): 11 fewer shared
# objects to map and relocate at every start, 1.20 -> 0.54 ms of CPU for pgo --version,
# a fifth of converting a short recording. STATIC=0 links them shared.
STATIC     ?= 1
PKG_LIBS_STATIC = $(filter-out -lm -lpthread -pthread,$(shell $(PKG_CONFIG) --static --libs $(PKGS) 2>/dev/null))
ifeq ($(STATIC),1)
BIN_LDLIBS := -Wl,-Bstatic $(PKG_LIBS_STATIC) -lz -Wl,-Bdynamic -lm -lpthread -ldl
else
BIN_LDLIBS := $(LDLIBS)
endif
ifdef DEVELOPER
PGO_CFLAGS += -Werror
endif
ifdef SANITIZE
PGO_CFLAGS += -fsanitize=$(SANITIZE) -fno-sanitize-recover=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS    += -fsanitize=$(SANITIZE)
endif
ifdef NO_BPF
PGO_CFLAGS += -DPGO_NO_BPF
endif

ifeq ($(V),)
Q   := @
msg  = @printf '  %-8s %s\n' "$(1)" "$(2)";
else
Q   :=
msg  =
endif

# Modules, in dependency order (cmd -> gate -> convert -> symbolize -> collect -> lib). New .c files are picked up
# automatically; *.bpf.c files become skeletons, not objects.
LIB_SRCS     := $(wildcard lib/*.c)
COLLECT_SRCS := $(filter-out %.bpf.c,$(wildcard collect/*.c))
SYMBOLIZE_SRCS := $(wildcard symbolize/*.c)
CONVERT_SRCS := $(wildcard convert/*.c)
GATE_SRCS    := $(wildcard gate/*.c)
CMD_SRCS     := $(wildcard cmd/*.c)
BPF_SRCS     := $(if $(NO_BPF),,$(wildcard collect/*.bpf.c))
ifdef NO_BPF
COLLECT_SRCS := $(filter-out $(patsubst %.bpf.c,%.c,$(wildcard collect/*.bpf.c)),$(COLLECT_SRCS))
endif

# Protocol buffers (convert/*.proto) become protobuf-c code in $(OUTPUT)/gen, never committed.
PROTOS     := $(wildcard convert/*.proto)
PROTO_SRCS := $(patsubst %.proto,$(OUTPUT)/gen/%.pb-c.c,$(PROTOS))
PROTO_HDRS := $(PROTO_SRCS:.c=.h)
MOD_OBJS   := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(LIB_SRCS) $(COLLECT_SRCS) $(SYMBOLIZE_SRCS) $(CONVERT_SRCS) $(GATE_SRCS)) \
              $(patsubst $(OUTPUT)/gen/%.c,$(OUTPUT)/obj/gen/%.o,$(PROTO_SRCS))
CMD_OBJS   := $(patsubst %.c,$(OUTPUT)/obj/%.o,$(CMD_SRCS))
LIBPGO     := $(OUTPUT)/libpgo.a
SKELS      := $(patsubst collect/%.bpf.c,$(OUTPUT)/bpf/%.skel.h,$(BPF_SRCS))
VMLINUX_H  := collect/vmlinux/$(ARCH)/vmlinux.h

UNIT_SRCS  := $(wildcard tests/unit/*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
HELPER_SRCS:= $(wildcard tests/helpers/*.c)
HELPER_BINS:= $(patsubst tests/helpers/%.c,$(OUTPUT)/tests/helpers/%,$(HELPER_SRCS))
EXAMPLE_SRCS:= $(wildcard examples/*.c)
EXAMPLE_BINS:= $(patsubst examples/%.c,$(OUTPUT)/examples/%,$(EXAMPLE_SRCS))
ALIASES    := pgo-collect pgo-convert pgo-gate
# Manual pages: docs/man/NAME.SECTION.scd, turned into roff by scdoc (a small C program in
# Debian; its markup reads as plain text, and it needs no Ruby or Haskell as asciidoctor and
# pandoc do). tests/e2e/t0004 checks that every option of every --help is in its page.
MAN_SRCS   := $(wildcard docs/man/*.scd)
MANS       := $(patsubst docs/man/%.scd,$(OUTPUT)/man/%,$(MAN_SRCS))
MANDIR     ?= $(PREFIX)/share/man
# bash-completion's directory, under PREFIX (bash-completion also looks in /usr/local/share);
# completion/pgo.bash, checked against --help by tests/e2e/t0005
BASHCOMPDIR ?= $(or $(shell $(PKG_CONFIG) --define-variable=datadir=$(PREFIX)/share \
                 --variable=completionsdir bash-completion 2>/dev/null),$(PREFIX)/share/bash-completion/completions)

.PHONY: all deps test test-unit test-e2e demo bench fuzz fuzz-smoke install clean vmlinux check-deps \
	compilers test-compilers man deb deb-check print-sonames
.DELETE_ON_ERROR:
.SECONDARY:

all: deps $(BIN)/pgo $(addprefix $(BIN)/,$(ALIASES)) $(MANS)

man: $(MANS)

$(OUTPUT)/man/%: docs/man/%.scd
	$(call msg,SCDOC,$@)
	@mkdir -p $(@D)
	$(Q)scdoc <$< >$@.tmp && mv $@.tmp $@

# Install what is missing, quietly when nothing is. Runs apt-get only as root (or through sudo).
# NO_DEPS=1 skips it (debian/rules: Build-Depends are dpkg-buildpackage's business).
deps:
ifndef NO_DEPS
	$(Q)missing=""; for p in $(DEB_BUILD) $(DEB_TEST) $(DEB_BENCH); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "  DEPS    installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null || \
		{ $$SUDO apt-get update -q >/dev/null && \
		  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null; } || \
		{ echo "make deps: apt-get install failed for:$$missing" >&2; exit 2; }; \
	fi
endif

# The sonames pgo loads with dlopen when it needs them (debian/rules: Recommends)
print-sonames:
	@echo $(LIBGIT2_SONAME) $(ZYDIS_SONAME)

$(BIN)/pgo: $(CMD_OBJS) $(LIBPGO)
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CMD_OBJS) $(LIBPGO) $(BIN_LDLIBS)

$(addprefix $(BIN)/,$(ALIASES)): $(BIN)/pgo
	$(Q)ln -sf pgo $@

$(LIBPGO): $(MOD_OBJS)
	$(call msg,AR,$@)
	@rm -f $@
	$(Q)$(AR) rcs $@ $^

$(OUTPUT)/obj/%.o: %.c | $(SKELS) $(PROTO_HDRS)
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) $(PGO_CFLAGS) -MMD -MP -c -o $@ $<

$(OUTPUT)/gen/%.pb-c.c $(OUTPUT)/gen/%.pb-c.h: %.proto
	$(call msg,PROTO,$<)
	@mkdir -p $(OUTPUT)/gen
	$(Q)protoc-c --c_out=$(OUTPUT)/gen -I. $<

# generated code: no warnings of ours apply
$(OUTPUT)/obj/gen/%.o: $(OUTPUT)/gen/%.c
	$(call msg,CC,$<)
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -g -O2 $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-sanitize-recover=$(SANITIZE)) \
		-I$(OUTPUT)/gen $(PKG_CFLAGS) -MMD -MP -c -o $@ $<

# BPF: vmlinux.h is checked in (make vmlinux regenerates it); skeletons are generated, never committed.
$(OUTPUT)/bpf/%.bpf.o: collect/%.bpf.c collect/%.h $(VMLINUX_H)
	$(call msg,BPF,$<)
	@mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I collect/vmlinux/$(ARCH) -I collect \
		-c $< -o $@.tmp && llvm-strip -g $@.tmp && mv $@.tmp $@

$(OUTPUT)/bpf/%.skel.h: $(OUTPUT)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

vmlinux:
	@mkdir -p collect/vmlinux/$(ARCH)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX_H)

# Tests: every tests/unit/*.c is its own TAP program over libpgo.a; tests/e2e/t*.sh are shell scripts.
$(OUTPUT)/tests/%: tests/unit/%.c tests/unit/test.h $(LIBPGO)
	$(call msg,TEST,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(PGO_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBPGO) $(LDLIBS)

$(OUTPUT)/tests/helpers/%: tests/helpers/%.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O2 -g -D_GNU_SOURCE -fno-omit-frame-pointer -pthread -o $@ $< -lm

# nofp-*: built the default way (-O2 -g, no frame pointers), as most programs are.
$(OUTPUT)/tests/helpers/nofp-%: tests/helpers/nofp-%.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O2 -g -D_GNU_SOURCE -pthread -o $@ $< -lm

# Example benchmarks: built like a user's benchmark would be, never sanitized.
$(OUTPUT)/examples/%: examples/%.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O2 -g -D_GNU_SOURCE -fno-omit-frame-pointer -pthread -o $@ $< -lm

test: all $(UNIT_BINS) $(HELPER_BINS) $(EXAMPLE_BINS)
	$(Q)PGO_BUILD=$(OUTPUT) SANITIZE=$(SANITIZE) tests/run.sh $(T)

# The test compilers: trixie (gcc 13, 14) and sid (gcc 15, 16) chroots, outside the tree in
# $(PGO_COMPILERS_DIR) (default /var/cache/pgo-compilers); kept when already there.
# COMPILERS=trixie builds one. tests/e2e/t259x run the convert tests with each gcc present.
COMPILERS ?= trixie sid
compilers:
	$(Q)tests/tools/compilers.sh $(COMPILERS)

test-compilers: compilers
	$(Q)PGO_TEST_COMPILERS=1 $(MAKE) --no-print-directory test T=t259

demo: all $(EXAMPLE_BINS)
	$(Q)PGO_BUILD=$(OUTPUT) examples/demo.sh

bench: all $(HELPER_BINS) $(EXAMPLE_BINS)
	$(Q)PGO_BUILD=$(OUTPUT) bench/run.sh $(B) $(if $(B),$(BENCH_ARGS))

FUZZ_SRCS := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS := $(patsubst %.c,build/fuzz/obj/%.o,$(LIB_SRCS) $(COLLECT_SRCS) $(SYMBOLIZE_SRCS) $(CONVERT_SRCS) $(GATE_SRCS)) \
             $(patsubst $(OUTPUT)/gen/%.c,build/fuzz/obj/gen/%.o,$(PROTO_SRCS))
build/fuzz/obj/gen/%.o: $(OUTPUT)/gen/%.c
	@mkdir -p $(@D)
	$(Q)clang -std=gnu11 -g -O1 -I$(OUTPUT)/gen $(PKG_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined \
		-MMD -MP -c -o $@ $<
build/fuzz/obj/%.o: %.c | $(SKELS) $(PROTO_HDRS)
	@mkdir -p $(@D)
	$(Q)clang -std=gnu11 -g -O1 -D_GNU_SOURCE -DPGO_VERSION='"$(VERSION)"' -I. -I$(OUTPUT)/bpf -I$(OUTPUT)/gen $(PKG_CFLAGS) \
		-fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c -o $@ $<
build/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)clang -std=gnu11 -g -O1 -D_GNU_SOURCE -I. -I$(OUTPUT)/gen $(PKG_CFLAGS) -fsanitize=fuzzer,address,undefined \
		-o $@ $< $(FUZZ_OBJS) $(LDLIBS)
fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run.sh $(or $(FUZZ_SECONDS),600) $(FUZZ_BINS)
fuzz-smoke: $(FUZZ_BINS)
	$(Q)tests/fuzz/run.sh $(or $(FUZZ_SECONDS),8) $(FUZZ_BINS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(BIN)/pgo $(DESTDIR)$(PREFIX)/bin/pgo
	for a in $(ALIASES); do ln -sf pgo $(DESTDIR)$(PREFIX)/bin/$$a; done
	install -m 0644 $(filter %.1,$(MANS)) $(DESTDIR)$(MANDIR)/man1
	install -m 0644 $(filter %.5,$(MANS)) $(DESTDIR)$(MANDIR)/man5
	install -m 0644 completion/pgo.bash $(DESTDIR)$(BASHCOMPDIR)/pgo
	for a in $(ALIASES); do ln -sf pgo $(DESTDIR)$(BASHCOMPDIR)/$$a; done

# The Debian package, built by dpkg-buildpackage from a copy of the tree (it writes the .deb
# into the parent directory): build/deb/pgo_$(VERSION)_ARCH.deb. debian/ says how.
deb:
	$(Q)tests/tools/deb.sh build

# Install that package with apt in a clean Debian 12 chroot (mmdebstrap, cached in
# PGO_DEB_CHECK_DIR, default /var/cache/pgo-deb-check) and run pgo --version, man pgo-collect
# and the README's collect -> convert -> gcc example there.
deb-check: deb
	$(Q)tests/tools/deb.sh check

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
