# Builds and installs EdgeSwipe. `make install` honours PREFIX and DESTDIR, e.g.
#   make install DESTDIR=/tmp/pkg PREFIX=/usr
# `make deb` builds the Debian package (scripts/package.sh; debian/README.source).
PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
BINDIR := $(PREFIX)/bin
# Private files: the multi-call client binary (below).
PKGLIBDIR := $(PREFIX)/lib/edgeswipe
MANDIR := $(PREFIX)/share/man
DOCDIR := $(PREFIX)/share/doc/edgeswipe
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
APPLICATIONSDIR ?= $(PREFIX)/share/applications

# The Swift runtime linked into the binaries: less resident memory for the daemon and no dependency on an
# installed Swift runtime. SWIFT_BUILD_FLAGS= builds against the shared runtime instead.
#
# With the toolchain's lld (docs/PERFORMANCE.md, "Memory", has the measurements):
# - the functions the daemon runs are placed together (the list is packaging/edgeswiped.symbol-order, which
#   scripts/symbol-order.sh writes): the kernel maps code in 64 KB windows around each page touched, so scattered
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
# release is what users run; debian/rules passes debug for DEB_BUILD_OPTIONS=noopt (scripts/e2e-qemu.sh's package).
CONFIGURATION ?= release
# SwiftPM's build folder, when not .build (scripts/e2e-qemu.sh keeps its static builds apart).
SCRATCH_PATH ?=
# More `swift build` options, e.g. debian/rules' --disable-automatic-resolution: the package builds offline.
SWIFT_EXTRA_FLAGS ?=
SWIFT_BUILD = $(SWIFT) build -c $(CONFIGURATION) $(if $(SCRATCH_PATH),--scratch-path $(SCRATCH_PATH)) \
  $(SWIFT_BUILD_FLAGS) $(SWIFT_EXTRA_FLAGS)
BIN = $(shell $(SWIFT_BUILD) --show-bin-path)

# What is shipped, found rather than listed, so that a new tool or unit ships without touching this file: every
# executable product Package.swift declares (edgeswipe-bench is a target, not a product), every unit in systemd/
# (edgeswiped and its per-seat template) and in systemd/user/.
PRODUCTS := $(shell sed -n 's/^ *[.]executable.name: "\([^"]*\)".*/\1/p' Package.swift)
# The clients are installed as one binary, MULTICALL in PKGLIBDIR, and each tool it runs (`edgeswipe-clients
# --list`) as a link to it in BINDIR: linked apart, each carried its own Swift runtime, SwiftNIO and ArgumentParser
# (docs/PACKAGING.md, "What each byte is"). Every other product (the daemon) is a binary of its own. TOOLS are what
# a user runs: each has its manual page and completions.
MULTICALL := edgeswipe-clients
TOOLS := $(filter-out $(MULTICALL),$(PRODUCTS))
# Each tool as installed, for the manual pages and completions: a link to MULTICALL or the product itself.
TOOLDIR = $(SCRATCH_DIR)/installed-tools
# Sets the shell's $linked to the tools the built MULTICALL runs, as " a b c " for a `case`.
list_linked = linked=" $$($(BIN)/$(MULTICALL) --list | tr '\n' ' ') "
SYSTEM_UNITS := $(notdir $(wildcard systemd/*.service systemd/*.socket))
USER_UNITS := $(notdir $(wildcard systemd/user/*.service systemd/user/*.socket))
# The manual pages scripts/man.sh writes: daemons' in section 8, the commands' in section 1 (the file says which).
MANOUT = $(SCRATCH_DIR)/man
# Manual pages dated by the package's changelog when there is one (reproducible builds), else today.
MANDATE = $(if $(SOURCE_DATE_EPOCH),$(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%d))

.PHONY: all build installed tools man test install uninstall deb print-swift-build-flags print-products install-gnome-extension
all: build

# The GNOME Shell extension (gnome-shell-extension/README.md) goes where GNOME Shell finds system extensions. Its
# format is the one the GNOME it is for loads: `auto` asks the installed gnome-shell (legacy up to 44, esm from 45)
# and takes legacy where there is none (Debian 12's build).
GNOME_SHELL_EXTENSION_FORMAT ?= auto
GNOME_SHELL_EXTENSIONDIR ?= $(PREFIX)/share/gnome-shell/extensions
GNOME_SHELL_EXTENSION_UUID := edgeswipe@edgeswipe.invalid

# The flags of the build that `make install` ships, for scripts that build or measure the same binary
# (scripts/bench.sh, scripts/e2e-qemu.sh).
print-swift-build-flags:
	@echo $(SWIFT_BUILD_FLAGS)

print-products:
	@echo $(PRODUCTS)

# Every product: the daemon, each client on its own (.build/release/edgeswipectl, to run from the tree) and the
# multi-call binary.
build:
	for product in $(PRODUCTS); do $(SWIFT_BUILD) --product $$product || exit 1; done

# What is installed: the multi-call binary and every product it does not run (the tools it runs are not built on
# their own: the links stand for them). The package builds this (debian/rules).
installed:
	$(SWIFT_BUILD) --product $(MULTICALL)
	$(list_linked) && for product in $(TOOLS); do \
		case "$$linked" in *" $$product "*) ;; *) $(SWIFT_BUILD) --product $$product || exit 1 ;; esac; \
	done

tools: installed
	rm -rf $(TOOLDIR) && mkdir -p $(TOOLDIR)
	$(list_linked) && for product in $(TOOLS); do \
		case "$$linked" in *" $$product "*) ln -s $(BIN)/$(MULTICALL) $(TOOLDIR)/$$product ;; \
			*) ln -s $(BIN)/$$product $(TOOLDIR)/$$product ;; esac || exit 1; \
	done

# Manual pages come from the command-line definitions: swift-argument-parser's generate-manual reads each built
# tool's --experimental-dump-help (scripts/man.sh; docs/man/ holds the same pages for a clone). It is a target of that
# package, not a product, so it is built as its own root package, from the checkout SwiftPM already has, for this
# machine only (its plugin would first build every product again, without our flags).
SCRATCH_DIR = $(or $(SCRATCH_PATH),.build)
man: tools
	rm -rf $(MANOUT)
	SCRATCH_DIR=$(SCRATCH_DIR) SWIFT=$(SWIFT) scripts/man.sh $(TOOLDIR) $(MANOUT) $(MANDATE)

test:
	scripts/test

deb:
	scripts/package.sh

install-gnome-extension:
	gnome-shell-extension/build $(GNOME_SHELL_EXTENSION_FORMAT) $(DESTDIR)$(GNOME_SHELL_EXTENSIONDIR)

install: installed man install-gnome-extension
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(USERUNITDIR) $(DESTDIR)$(UDEVDIR) \
		$(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(SYSCONFDIR)/edgeswipe $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(BIN)/$(MULTICALL) $(DESTDIR)$(PKGLIBDIR)/
	$(list_linked) && for product in $(TOOLS); do \
		case "$$linked" in *" $$product "*) ln -sfr $(DESTDIR)$(PKGLIBDIR)/$(MULTICALL) $(DESTDIR)$(BINDIR)/$$product ;; \
			*) install -m 0755 $(BIN)/$$product $(DESTDIR)$(BINDIR)/ ;; esac || exit 1; \
	done
	for unit in $(SYSTEM_UNITS); do sed 's|/usr/local/bin|$(BINDIR)|g' systemd/$$unit > $(DESTDIR)$(UNITDIR)/$$unit || exit 1; done
	for unit in $(USER_UNITS); do sed 's|/usr/local/bin|$(BINDIR)|g' systemd/user/$$unit > $(DESTDIR)$(USERUNITDIR)/$$unit || exit 1; done
	chmod 0644 $(addprefix $(DESTDIR)$(UNITDIR)/,$(SYSTEM_UNITS)) $(addprefix $(DESTDIR)$(USERUNITDIR)/,$(USER_UNITS))
	# config/session.toml, the session's defaults and recipes, commented: an example a user copies to
	# ~/.config/edgeswipe/session.toml. Under examples/, which dh_compress leaves uncompressed.
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m 0644 config/session.toml $(DESTDIR)$(DOCDIR)/examples/session.toml
	# edgeswipe-session's desktop entry, hidden from menus: KWin grants the session its restricted Wayland interfaces
	# (X-KDE-Wayland-Interfaces) when an application entry's Exec is the running binary's path (docs/COMPOSITORS.md).
	install -d $(DESTDIR)$(APPLICATIONSDIR)
	sed 's|/usr/local/bin|$(BINDIR)|g' packaging/edgeswipe-session.desktop > $(DESTDIR)$(APPLICATIONSDIR)/edgeswipe-session.desktop
	chmod 0644 $(DESTDIR)$(APPLICATIONSDIR)/edgeswipe-session.desktop
	install -m 0644 udev/71-edgeswipe.rules $(DESTDIR)$(UDEVDIR)/
	install -m 0644 packaging/edgeswipe.sysusers $(DESTDIR)$(SYSUSERSDIR)/edgeswipe.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/edgeswipe/edgeswipe.toml ] || \
		{ scripts/system-config.sh > $(DESTDIR)$(SYSCONFDIR)/edgeswipe/edgeswipe.toml && \
		  chmod 0644 $(DESTDIR)$(SYSCONFDIR)/edgeswipe/edgeswipe.toml; }
	for product in $(TOOLS); do \
		page=$$(ls $(MANOUT)/$$product.[18]) && section=$${page##*.} && \
		install -m 0644 $$page $(DESTDIR)$(MANDIR)/man$$section/ || exit 1; \
		$(TOOLDIR)/$$product --generate-completion-script bash | sed '1{/^#!/d}' > $(DESTDIR)$(BASHCOMPDIR)/$$product || exit 1; \
		$(TOOLDIR)/$$product --generate-completion-script zsh > $(DESTDIR)$(ZSHCOMPDIR)/_$$product || exit 1; \
		$(TOOLDIR)/$$product --generate-completion-script fish > $(DESTDIR)$(FISHCOMPDIR)/$$product.fish || exit 1; \
	done

uninstall:
	rm -f $(DESTDIR)$(PKGLIBDIR)/$(MULTICALL)
	-rmdir $(DESTDIR)$(PKGLIBDIR)
	for product in $(TOOLS); do \
		rm -f $(DESTDIR)$(BINDIR)/$$product $(DESTDIR)$(MANDIR)/man1/$$product.1 $(DESTDIR)$(MANDIR)/man8/$$product.8 \
			$(DESTDIR)$(BASHCOMPDIR)/$$product $(DESTDIR)$(ZSHCOMPDIR)/_$$product $(DESTDIR)$(FISHCOMPDIR)/$$product.fish; \
	done
	rm -f $(addprefix $(DESTDIR)$(UNITDIR)/,$(SYSTEM_UNITS)) $(addprefix $(DESTDIR)$(USERUNITDIR)/,$(USER_UNITS)) \
		$(DESTDIR)$(UDEVDIR)/71-edgeswipe.rules $(DESTDIR)$(SYSUSERSDIR)/edgeswipe.conf \
		$(DESTDIR)$(DOCDIR)/examples/session.toml $(DESTDIR)$(APPLICATIONSDIR)/edgeswipe-session.desktop
	rm -rf $(DESTDIR)$(GNOME_SHELL_EXTENSIONDIR)/$(GNOME_SHELL_EXTENSION_UUID)
