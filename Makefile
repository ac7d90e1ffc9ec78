# Ember's entry points. `make demo` and `make test` build what they need first.
#
#   make build   install missing Debian packages, configure Release in build/, compile
#   make test    build, then the C++ tests (ctest) and the Python tests (pytest)
#   make demo    build, then train the Fashion-MNIST demo in C++ and in Python (examples/fashion_mnist)
#   make bench   build with the C++ benchmarks, then benchmarks/run.py (Ember vs PyTorch)
#   make asan    AddressSanitizer + UBSan build in build-asan/, then ctest and pytest there
#   make debug   Debug build in build-debug/
#   make fuzz    libFuzzer build in build-fuzz/ (needs clang-14), then fuzz ember::load FUZZ_TIME s
#   make clean   remove the build directories above
#
# Variables: JOBS (parallel jobs, default nproc), BUILD_DIR, ASAN_DIR, DEBUG_DIR, FUZZ_DIR,
# FUZZ_TIME, PYTEST_ARGS, BENCH_ARGS.

SHELL := /bin/bash
PYTHON := /usr/bin/python3
JOBS ?= $(shell nproc)
BUILD_DIR ?= build
ASAN_DIR ?= build-asan
DEBUG_DIR ?= build-debug
FUZZ_DIR ?= build-fuzz
FUZZ_TIME ?= 600
PYTEST_ARGS ?= -q
BENCH_ARGS ?=

# The OpenMP build of OpenBLAS, so that BLAS and Ember share one thread pool.
export PKG_CONFIG_PATH := /usr/lib/x86_64-linux-gnu/openblas-openmp/pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))
# ccache (picked up by CMake when installed): a persistent cache shared by every build
# directory. No base_dir: hashed relative to the checkout, a precompiled header made in one
# checkout was served to another, whose sources then saw its headers twice (redefinitions).
export CCACHE_DIR ?= $(HOME)/.cache/ccache
export CCACHE_NOHASHDIR := true
# Precompiled headers (CMakeLists.txt) are cacheable only with these relaxations.
export CCACHE_SLOPPINESS := pch_defines,time_macros,include_file_mtime,include_file_ctime

CMAKE_FLAGS := -G Ninja -DPython_EXECUTABLE=$(PYTHON)

# $(call configure,dir,build type,extra flags): configure once; later builds let ninja rerun
# CMake when a CMakeLists.txt or the set of sources changes.
define configure
	@if [ ! -f $(1)/build.ninja ]; then \
	  cmake -S . -B $(1) $(CMAKE_FLAGS) -DCMAKE_BUILD_TYPE=$(2) $(3); \
	fi
endef

# $(call run_tests,dir,ctest env,pytest env): runs ctest and pytest even when the first
# fails; fails if either failed. pytest's exit code 5 ("no tests collected") is a failure.
define run_tests
	@status=0; \
	( cd $(1) && $(2) ctest --output-on-failure --no-tests=error -j$(JOBS) ) || status=1; \
	env PYTHONPATH=$(1)/python $(3) $(PYTHON) -m pytest tests/python $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests in tests/python" >&2; fi; \
	if [ $$rc -ne 0 ]; then status=1; fi; \
	exit $$status
endef

.PHONY: all deps build test demo bench asan debug fuzz clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(call configure,$(BUILD_DIR),Release,)
	ninja -C $(BUILD_DIR) -j$(JOBS)

test: build
	$(call run_tests,$(BUILD_DIR),,)

# Checkpoints go to the build directory; --threads defaults to every core.
demo: build
	$(BUILD_DIR)/examples/fashion_mnist --checkpoint $(BUILD_DIR)/fashion_mnist_cpp.ckpt
	PYTHONPATH=$(BUILD_DIR)/python $(PYTHON) examples/fashion_mnist/train.py --checkpoint $(BUILD_DIR)/fashion_mnist_py.ckpt

bench: deps
	$(call configure,$(BUILD_DIR),Release,)
	@grep -q '^EMBER_BENCHMARKS:BOOL=ON' $(BUILD_DIR)/CMakeCache.txt || \
	  cmake -S . -B $(BUILD_DIR) -DEMBER_BENCHMARKS=ON
	ninja -C $(BUILD_DIR) -j$(JOBS)
	@if [ -f benchmarks/run.py ]; then \
	  $(PYTHON) benchmarks/run.py $(BENCH_ARGS); \
	else \
	  echo "no benchmarks/run.py yet"; \
	fi

# Python is not built with ASan, so the ASan runtime must be loaded before anything else:
# LD_PRELOAD it for pytest. CPython and NumPy keep memory alive until exit on purpose, so
# leak checking is off there (it stays on for the C++ tests).
# libstdc++ must be preloaded too: python3 is a C program, and without it ASan cannot find
# the real __cxa_throw when Ember throws (a CHECK failure on the first exception).
ASAN_LIB = $(shell gcc -print-file-name=libasan.so) $(shell gcc -print-file-name=libstdc++.so.6)
SAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
PY_SAN_ENV = ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
             LD_PRELOAD="$(ASAN_LIB)"

asan: deps
	$(call configure,$(ASAN_DIR),RelWithDebInfo,-DEMBER_SANITIZE=ON)
	ninja -C $(ASAN_DIR) -j$(JOBS)
	$(call run_tests,$(ASAN_DIR),$(SAN_ENV),$(PY_SAN_ENV))

debug: deps
	$(call configure,$(DEBUG_DIR),Debug,)
	ninja -C $(DEBUG_DIR) -j$(JOBS)

# New inputs go to $(FUZZ_DIR)/corpus-load; crashes to $(FUZZ_DIR)/crash-*. Minimize one with
# `$(FUZZ_DIR)/fuzz_load -minimize_crash=1 -runs=10000 <file>` and add it to
# tests/fuzz/corpus/load, whose replay is the ctest test fuzz_load_corpus.
fuzz: deps
	$(call configure,$(FUZZ_DIR),Release,-DEMBER_FUZZ=ON -DEMBER_PYTHON=OFF -DEMBER_TESTS=OFF -DEMBER_EXAMPLES=OFF)
	ninja -C $(FUZZ_DIR) -j$(JOBS) fuzz
	mkdir -p $(FUZZ_DIR)/corpus-load
	$(FUZZ_DIR)/fuzz_load -max_total_time=$(FUZZ_TIME) -dict=tests/fuzz/load.dict -artifact_prefix=$(FUZZ_DIR)/ \
	  $(FUZZ_DIR)/corpus-load tests/fuzz/corpus/load

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(DEBUG_DIR) $(FUZZ_DIR)
