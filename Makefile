# Installs EdgeSwipe. `make install` honours PREFIX and DESTDIR, e.g.
#   make install DESTDIR=/tmp/pkg PREFIX=/usr
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
BINDIR := $(PREFIX)/bin
MANDIR := $(PREFIX)/share/man
ifeq ($(PREFIX),/usr)
  SYSCONFDIR ?= /etc
  UNITDIR ?= /usr/lib/systemd/system
  USERUNITDIR ?= /usr/lib/systemd/user
  UDEVDIR ?= /usr/lib/udev/rules.d
  SYSUSERSDIR ?= /usr/lib/sysusers.d
else
  SYSCONFDIR ?= /etc
  UNITDIR ?= /etc/systemd/system
  USERUNITDIR ?= /etc/systemd/user
  UDEVDIR ?= /etc/udev/rules.d
  SYSUSERSDIR ?= /etc/sysusers.d
endif
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d

# The Swift runtime linked into the binaries: less resident memory for the daemon and no dependency on an
# installed Swift runtime. SWIFT_BUILD_FLAGS= builds against the shared runtime instead.
#
# With the toolchain's lld (docs/PERFORMANCE.md, "Memory", has the measurements):
# - the functions the daemon runs are placed together (the list is packaging/edgeswiped.symbol-order, which
#   scripts/symbol-order writes): the kernel maps code in 64 KB windows around each page touched, so scattered
#   functions kept most of the code resident. The linker moves sections, not functions, and swiftc puts a whole
#   file's functions in one `.text` unless told otherwise: `-function-sections` gives each its own (the toolchain's
#   prebuilt runtime libraries are what they are);
# - where the C library can load them (glibc 2.36 and later), relative relocations are packed (DT_RELR): the loader
#   reads a few kilobytes at start-up instead of ~2.4 MB.
# Without lld, or on an older glibc, the same code is linked without them.
SWIFTC_DIR := $(dir $(realpath $(shell command -v swiftc 2>/dev/null)))
GLIBC_HAS_RELR := $(shell getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ split($$2, v, "."); print (v[1] > 2 || (v[1] == 2 && v[2] >= 36)) ? "yes" : "no" }')
ifneq ($(wildcard $(SWIFTC_DIR)ld.lld),)
  # SwiftPM does not know the list is an input of the link: the link reads a copy named by the list's content, so
  # a changed list changes the link command and SwiftPM relinks (only relinks) whatever builds with these flags.
  ORDER_COPY := $(CURDIR)/.build/symbol-order/$(shell sha256sum packaging/edgeswiped.symbol-order | cut -c1-16).order
  $(shell mkdir -p $(dir $(ORDER_COPY)) && [ -e $(ORDER_COPY) ] || cp packaging/edgeswiped.symbol-order $(ORDER_COPY))
  LINK_FLAGS := -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -use-ld=lld \
    -Xlinker --symbol-ordering-file=$(ORDER_COPY) -Xlinker --no-warn-symbol-ordering
  ifeq ($(GLIBC_HAS_RELR),yes)
    LINK_FLAGS += -Xlinker -z -Xlinker pack-relative-relocs
  endif
endif
# The C++ library the Swift runtime needs, linked statically as well: the shared libstdc++ kept ~1.7 MB resident
# (its relocations and its locale set-up at load), the archive brings only the runtime's few functions. lld takes
# -lstdc++ from the first directory that has it, so a directory holding only the archive goes first.
STATIC_CXX_ARCHIVE := $(shell $(SWIFTC_DIR)clang -print-file-name=libstdc++.a 2>/dev/null)
ifneq ($(filter /%,$(STATIC_CXX_ARCHIVE)),)
  STATIC_CXX_DIR := $(CURDIR)/.build/static-libstdc++
  $(shell mkdir -p $(STATIC_CXX_DIR) && ln -sf $(STATIC_CXX_ARCHIVE) $(STATIC_CXX_DIR)/libstdc++.a)
  LINK_FLAGS += -Xlinker -L$(STATIC_CXX_DIR)
endif
SWIFT_BUILD_FLAGS ?= --static-swift-stdlib $(LINK_FLAGS)
BIN = $(shell $(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --show-bin-path)

.PHONY: all build test install uninstall print-swift-build-flags
all: build

# The flags of the build that `make install` ships, for scripts that build or measure the same binary
# (scripts/bench, scripts/e2e-qemu).
print-swift-build-flags:
	@echo $(SWIFT_BUILD_FLAGS)

build:
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --product edgeswiped
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --product edgeswipectl
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --product edgeswipe-web
	$(SWIFT) build -c release $(SWIFT_BUILD_FLAGS) --product edgeswipe-session

test:
	scripts/test

install: build
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(USERUNITDIR) $(DESTDIR)$(UDEVDIR) \
		$(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(SYSCONFDIR)/edgeswipe $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(BIN)/edgeswiped $(BIN)/edgeswipectl $(BIN)/edgeswipe-web $(BIN)/edgeswipe-session $(DESTDIR)$(BINDIR)/
	for unit in edgeswiped.service edgeswiped.socket; do \
		sed 's|/usr/local/bin|$(BINDIR)|g' systemd/$$unit > $(DESTDIR)$(UNITDIR)/$$unit; \
		sed 's|/usr/local/bin|$(BINDIR)|g' systemd/user/$$unit > $(DESTDIR)$(USERUNITDIR)/$$unit; \
	done
	sed 's|/usr/local/bin|$(BINDIR)|g' systemd/user/edgeswipe-session.service > $(DESTDIR)$(USERUNITDIR)/edgeswipe-session.service
	install -d $(DESTDIR)$(PREFIX)/share/doc/edgeswipe
	install -m 0644 config/session.toml $(DESTDIR)$(PREFIX)/share/doc/edgeswipe/session.toml.example
	install -m 0644 udev/71-edgeswipe.rules $(DESTDIR)$(UDEVDIR)/
	install -m 0644 packaging/edgeswipe.sysusers $(DESTDIR)$(SYSUSERSDIR)/edgeswipe.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/edgeswipe/edgeswipe.toml ] || \
		{ scripts/system-config > $(DESTDIR)$(SYSCONFDIR)/edgeswipe/edgeswipe.toml && \
		  chmod 0644 $(DESTDIR)$(SYSCONFDIR)/edgeswipe/edgeswipe.toml; }
	# Manual pages come from the command-line definitions, through swift-argument-parser's plugin.
	$(SWIFT) package --allow-writing-to-package-directory generate-manual --product edgeswiped --section 8
	$(SWIFT) package --allow-writing-to-package-directory generate-manual --product edgeswipectl --section 1
	$(SWIFT) package --allow-writing-to-package-directory generate-manual --product edgeswipe-web --section 1
	$(SWIFT) package --allow-writing-to-package-directory generate-manual --product edgeswipe-session --section 1
	install -m 0644 .build/plugins/GenerateManual/outputs/edgeswiped/edgeswiped.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 .build/plugins/GenerateManual/outputs/edgeswipectl/edgeswipectl.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 .build/plugins/GenerateManual/outputs/edgeswipe-web/edgeswipe-web.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 .build/plugins/GenerateManual/outputs/edgeswipe-session/edgeswipe-session.1 $(DESTDIR)$(MANDIR)/man1/
	for tool in edgeswiped edgeswipectl edgeswipe-web edgeswipe-session; do \
		$(BIN)/$$tool --generate-completion-script bash > $(DESTDIR)$(BASHCOMPDIR)/$$tool; \
		$(BIN)/$$tool --generate-completion-script zsh > $(DESTDIR)$(ZSHCOMPDIR)/_$$tool; \
		$(BIN)/$$tool --generate-completion-script fish > $(DESTDIR)$(FISHCOMPDIR)/$$tool.fish; \
	done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/edgeswiped $(DESTDIR)$(BINDIR)/edgeswipectl $(DESTDIR)$(BINDIR)/edgeswipe-web \
		$(DESTDIR)$(BINDIR)/edgeswipe-session $(DESTDIR)$(USERUNITDIR)/edgeswipe-session.service \
		$(DESTDIR)$(MANDIR)/man1/edgeswipe-session.1 $(DESTDIR)$(PREFIX)/share/doc/edgeswipe/session.toml.example \
		$(DESTDIR)$(UNITDIR)/edgeswiped.service $(DESTDIR)$(UNITDIR)/edgeswiped.socket \
		$(DESTDIR)$(USERUNITDIR)/edgeswiped.service $(DESTDIR)$(USERUNITDIR)/edgeswiped.socket \
		$(DESTDIR)$(UDEVDIR)/71-edgeswipe.rules $(DESTDIR)$(SYSUSERSDIR)/edgeswipe.conf \
		$(DESTDIR)$(MANDIR)/man8/edgeswiped.8 $(DESTDIR)$(MANDIR)/man1/edgeswipectl.1 $(DESTDIR)$(MANDIR)/man1/edgeswipe-web.1
