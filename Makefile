# tenbin — build, test, demo, bench. `make demo` and `make test` do all set-up on a fresh
# Debian machine with the Swift toolchain (installing missing packages when run as root).

PREFIX ?= /usr/local
SWIFT ?= swift
# Without a run path ($ORIGIN): a release binary links Swift statically and needs nothing
# beside it, and with one the loader first looks for each of its C libraries in four folders
# next to the binary — a fifth of `tenbin --version`'s CPU (docs/benchmarks.md).
#
# libstdc++ (which the static Swift runtime needs) is linked from its archive too: as a shared
# library the loader maps, relocates and initialises it in every process, about 0.5 ms, a sixth
# of `tenbin vote`'s CPU (docs/benchmarks.md). STATIC_CXX holds a link to the compiler's
# archive, and the linker searches it before the compiler's own folder, where the shared
# library is. Without the archive the folder stays empty and the shared library is linked.
STATIC_CXX = $(CURDIR)/.build/static-libstdc++
RELEASE_FLAGS = -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -L -Xswiftc $(STATIC_CXX)
# Libraries tenbin links against.
BUILD_PACKAGES = libsqlite3-dev libjpeg62-turbo-dev libpng-dev libssl-dev libchafa-dev libwebp-dev libheif-dev libmicrohttpd-dev libpq-dev zlib1g-dev \
	libmecab-dev mecab-ipadic-utf8 \
	libpango1.0-dev libcairo2-dev fonts-ipafont-gothic
# Tools the tests and benchmarks use (sample images, reference pipelines, terminals, a headless
# browser with Japanese fonts for the web page, wrk and nginx for the serve benchmark, a C
# compiler for its libmicrohttpd-alone reference, scripts/mhd-minimal.c, and gdb for the stacks
# of a test run that hangs, scripts/test-summary.sh).
TOOL_PACKAGES = gcc gdb libjpeg-turbo-progs sqlite3 imagemagick libimage-exiftool-perl tmux time chafa webp libheif-examples \
	chromium chromium-driver python3-selenium python3-pip fonts-ipafont-gothic wrk nginx-light postgresql dosfstools exfatprogs exfat-fuse
# PyPI packages the browser test needs that Debian does not package (MODULE=REQUIREMENT), put in
# .build/python for Debian's python3 without their dependencies (selenium is Debian's): axe-core
# for the accessibility check.
PYTHON_PACKAGES = axe_selenium_python=axe-selenium-python==2.1.6
# Linters for the web page's script and style sheet (scripts/lint-web.sh); both work offline.
LINT_PACKAGES = eslint node-css-tree

# At most 32 tests at once in the test process (Swift Testing's own limit; unbounded by
# default). Unbounded, a run held 400 SQLite stores and 1,360 descriptors open at its peak, and
# Foundation's Process.run on Linux, which adds a close action per open descriptor for every
# child, crashed twice in CI copying them; at 32 the peak is 211 and the run no slower.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH ?= 32

.PHONY: all build deps tool-deps python-deps lint-deps static-cxx demo serve-demo test lint bench install clean sample-images fuzz sanitize

all: build

# Installs whatever is missing, with apt-get when running as root; otherwise says what to install.
deps:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)

tool-deps:
	@scripts/ensure-packages.sh $(TOOL_PACKAGES)

python-deps: tool-deps
	@scripts/ensure-python-packages.sh .build/python $(PYTHON_PACKAGES)

lint-deps:
	@scripts/ensure-packages.sh $(LINT_PACKAGES)

static-cxx:
	@mkdir -p $(STATIC_CXX)
	@archive="$$(clang -print-file-name=libstdc++.a 2>/dev/null)"; \
	if [ -f "$$archive" ]; then ln -sfn "$$archive" $(STATIC_CXX)/libstdc++.a; else rm -f $(STATIC_CXX)/libstdc++.a; fi

build: deps static-cxx
	$(SWIFT) build $(RELEASE_FLAGS) --product tenbin

demo: build
	@scripts/demo.sh .build/release/tenbin

# The demo board as a web service on http://127.0.0.1:8080/ (Ctrl-C stops it).
serve-demo: demo
	.build/release/tenbin serve --store $${TENBIN_STORE:-Storage}

test: deps tool-deps python-deps
	$(SWIFT) build --build-tests
	scripts/postgres.sh run scripts/test-summary.sh $(SWIFT) test --skip-build --skip BrowserTests
	# The browser test on its own: chromium's load would slow the time-limited suites.
	scripts/test-summary.sh $(SWIFT) test --skip-build --filter BrowserTests
	$(MAKE) lint

# Swift formatting, then app.js, app.css and icon.svg (after checking that the linters catch
# planted breaks in copies of them).
lint: lint-deps
	$(SWIFT) format lint --strict -r Sources Tests
	scripts/lint-web.sh --self-test

bench: deps tool-deps static-cxx
	$(SWIFT) build $(RELEASE_FLAGS) --product tenbin
	$(SWIFT) build $(RELEASE_FLAGS) --product tenbin-bench
	scripts/postgres.sh run .build/release/tenbin-bench $(SECTIONS)

# libFuzzer targets (Fuzz/), FUZZ_SECONDS each (default 60), one a core at once (FUZZ_JOBS).
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
