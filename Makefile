# SPDX-License-Identifier: GPL-3.0-or-later
# The two commands of the README:
#   make        install missing Debian packages, build, run the demonstration
#   make check  build and run every test through CTest, normally and then
#               under AddressSanitizer and UndefinedBehaviorSanitizer
# and: make bench (benchmarks), make install PREFIX=... DESTDIR=...,
#      make deb (a Debian package of qctl, built for /usr in build-deb)

PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
SAN_BUILD ?= build-san
CTEST_FLAGS ?= --output-on-failure
# ctest's CPU slots (tests/CMakeLists.txt): a test that keeps a core busy
# takes three of the 3 x cores, a live test (mostly waiting) one
CTEST_RUN = ctest $(CTEST_FLAGS) -j $$((3 * $(JOBS))) --resource-spec-file ctest-resources.json

.PHONY: all deps build demo check test test-san bench install deb clean

all: deps build demo

deps:
	@scripts/deps.sh

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)/qctl

check: test test-san

test:
	@scripts/deps.sh --test
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQC_WERROR=ON >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && $(CTEST_RUN)

test-san:
	@scripts/deps.sh --test
	CC=clang cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQC_SANITIZE=ON -DQC_FUZZ=ON -DQC_WERROR=ON >/dev/null
	cmake --build $(SAN_BUILD) -j $(JOBS)
	cd $(SAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(CTEST_RUN)

bench: build
	@bench/run.sh $(BUILD)

install: build
	DESTDIR=$(DESTDIR) cmake --install $(BUILD) --prefix $(PREFIX)

# the package's build: configured for /usr (the MPI module's path and the
# Python extension's RPATH are set when configuring), Debian's Python
# directory; scripts/mkdeb.sh stages it and runs dpkg-deb
DEB_BUILD ?= build-deb
deb:
	cmake -S . -B $(DEB_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
		-DCMAKE_INSTALL_LIBDIR=lib -DQC_PYTHON_INSTALL_DIR=lib/python3/dist-packages -DBUILD_TESTING=OFF >/dev/null
	cmake --build $(DEB_BUILD) -j $(JOBS)
	scripts/mkdeb.sh $(DEB_BUILD) .

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(DEB_BUILD)
