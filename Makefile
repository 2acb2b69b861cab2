# tenbin — build, test, demo, bench. `make demo` and `make test` do all set-up on a fresh
# Debian machine with the Swift toolchain (installing missing packages when run as root).

PREFIX ?= /usr/local
SWIFT ?= swift
RELEASE_FLAGS = -c release --static-swift-stdlib
# Libraries tenbin links against.
BUILD_PACKAGES = libsqlite3-dev libjpeg62-turbo-dev libpng-dev libssl-dev libpq-dev
# Tools the tests and benchmarks use (sample images, reference pipelines, terminals).
TOOL_PACKAGES = libjpeg-turbo-progs sqlite3 imagemagick libimage-exiftool-perl tmux time postgresql

.PHONY: all build deps tool-deps demo test lint bench install clean sample-images fuzz sanitize

all: build

# Installs whatever is missing, with apt-get when running as root; otherwise says what to install.
deps:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)

tool-deps:
	@scripts/ensure-packages.sh $(TOOL_PACKAGES)

build: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product tenbin

demo: build
	@scripts/demo.sh .build/release/tenbin

test: deps tool-deps
	$(SWIFT) build --build-tests
	scripts/postgres.sh run $(SWIFT) test --skip-build
	$(MAKE) lint

lint:
	$(SWIFT) format lint --strict -r Sources Tests

bench: deps tool-deps
	$(SWIFT) build $(RELEASE_FLAGS) --product tenbin
	$(SWIFT) build $(RELEASE_FLAGS) --product tenbin-bench
	scripts/postgres.sh run .build/release/tenbin-bench $(SECTIONS)

# libFuzzer targets (Fuzz/), FUZZ_SECONDS each (default 60).
fuzz: deps tool-deps
	scripts/fuzz.sh $(FUZZ_TARGETS)

# The whole test suite under AddressSanitizer, then ThreadSanitizer.
sanitize: deps tool-deps
	scripts/sanitize.sh

install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 .build/release/tenbin $(DESTDIR)$(PREFIX)/bin/tenbin

sample-images: tool-deps
	scripts/make-sample-images.sh

clean:
	rm -rf .build .build-address .build-thread .build-fuzz
