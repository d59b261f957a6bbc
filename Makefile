# winnow - build, deps, test, bench, demo, fuzz, install.
#
#   make deps            install the Debian packages the build needs (apt-get; safe to rerun)
#   make                 build bin/winnow
#   make test            deps + build + every TAP test through prove
#   make test SANITIZE=1 the same, built with -fsanitize=address,undefined (in build-asan/)
#   make demo            deps + build + the whole pipeline on a sample the repo makes
#   make bench           throughput benchmarks, written to bench/results/
#   make fuzz            libFuzzer targets (clang), FUZZ_SECONDS each, from seed FUZZ_SEED
#                        (fixed, so that a run is reproducible; FUZZ_SEED=0: a random one)
#   make mutate          the mutation check: each bug of tests/mutants/ (MUTANTS=names or numbers for some)
#                        in a scratch copy, with the tests it names; prints the score and survivors
#   make install         PREFIX=/usr/local

PREFIX      ?= /usr/local
SANITIZE    ?= 0
FUZZ_SECONDS ?= 60
FUZZ_SEED   ?= 1
CUDA        ?= auto

# Every Debian package a build, test, demo or bench needs.
DEB_PACKAGES = build-essential g++ pkg-config perl python3 zstd gzip tar zip \
  libzstd-dev libxxhash-dev libarchive-dev libuchardet-dev libutf8proc-dev \
  libcld2-dev libpcre2-dev zlib1g-dev libdeflate-dev libicu-dev libbrotli-dev libssl-dev \
  libsnappy-dev python3-numpy python3-zstandard gnuplot-nox clang libclang-rt-14-dev libsimdjson-dev \
  time xz-utils bzip2 nodejs fasttext \
  libsentencepiece-dev sentencepiece python3-sentencepiece liblzma-dev libbz2-dev liblz4-dev lz4 patchelf

PKGS = libzstd libxxhash libcrypto libarchive uchardet libutf8proc libpcre2-8 zlib libdeflate icu-uc icu-i18n libbrotlidec snappy sentencepiece liblzma liblz4

ifeq ($(SANITIZE),1)
BUILD    = build-asan
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD    = build
SANFLAGS =
endif

CC       ?= gcc
CXX      ?= g++
WARN      = -Wall -Wextra
# C mistakes a merge can introduce silently (a call to a changed API still compiles otherwise)
C_ERRORS  = -Werror=incompatible-pointer-types -Werror=implicit-function-declaration
OPT       = -O2 -g
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lbz2 # libbz2 has no pkg-config file
CPPFLAGS  = -I. $(PKG_CFLAGS) -D_GNU_SOURCE
CFLAGS    = -std=c11 $(OPT) $(WARN) $(C_ERRORS) $(SANFLAGS) -pthread -march=x86-64-v2
CXXFLAGS  = -std=c++17 $(OPT) $(WARN) $(SANFLAGS) -pthread -march=x86-64-v2
LDLIBS    = -Wl,--as-needed $(PKG_LIBS) -Wl,--push-state,--no-as-needed -lcld2_full -Wl,--pop-state -lcld2 -lstdc++ -lm -pthread

# CUDA: built when nvcc is found (CUDA=auto) or forced (CUDA=1); CUDA=0 never.
NVCC     ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
ifeq ($(CUDA),0)
NVCC :=
endif
ifeq ($(SANITIZE),1)
NVCC :=
endif
NVCCFLAGS = -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
            -Xcompiler -fPIC -I.
# nvcc may be a wrapper script (e.g. /usr/local/bin/nvcc), so the CUDA runtime
# library is looked for where toolkits put it rather than derived from nvcc's
# path; with CUDA=auto and no libcudart_static.a the build is CPU-only.
CUDART_STATIC ?= $(firstword $(foreach d,$(patsubst %/bin/nvcc,%,$(NVCC))/lib64 \
                 /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib \
                 /usr/lib/x86_64-linux-gnu,$(wildcard $(d)/libcudart_static.a)))
ifneq ($(CUDA),1)
ifeq ($(CUDART_STATIC),)
NVCC :=
endif
endif

LIB_DIRS  = core ingest filter dedup tokenize shards pipeline
LIB_C     = $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_CXX   = $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.cc))
ifneq ($(NVCC),)
GPU_SRC   = $(wildcard gpu/*.cu) $(filter-out gpu/none.c gpu/%_none.c,$(wildcard gpu/*.c))
LDLIBS   += -L$(dir $(CUDART_STATIC)) -lcudart_static -ldl -lrt
CPPFLAGS += -DWINNOW_CUDA=1
else
GPU_SRC   = $(wildcard gpu/none.c gpu/*_none.c)
endif
LIB_OBJ   = $(patsubst %.c,$(BUILD)/%.o,$(LIB_C)) $(patsubst %.cc,$(BUILD)/%.o,$(LIB_CXX)) \
            $(patsubst %,$(BUILD)/%.o,$(basename $(GPU_SRC)))
TOOL_OBJ  = $(patsubst %.c,$(BUILD)/%.o,$(wildcard tools/*.c))
LIB       = $(BUILD)/libwinnow.a
BIN       = $(BUILD)/winnow

UNIT_SRC  = $(wildcard tests/unit/*.c)
UNIT_BIN  = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
E2E       = $(wildcard tests/e2e/*.sh)

.SECONDARY:
.PHONY: all deps test demo bench fuzz mutate install clean check-full
all: bin/winnow

bin/winnow: $(BIN)
ifeq ($(SANITIZE),1)
	@true
else
	@mkdir -p bin && cp $(BIN) bin/winnow
endif

$(BIN): $(TOOL_OBJ) $(LIB)
	$(CC) $(CFLAGS) -o $@ $(TOOL_OBJ) $(LIB) $(LDLIBS)

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(EXTRA_CFLAGS) -MMD -MP -c $< -o $@

# libxxhash's code built for AVX2 (core/xxh3_fast.h), called only where the CPU has it
$(BUILD)/core/xxh3_avx2.o build-fuzz/core/xxh3_avx2.o: EXTRA_CFLAGS = -mavx2

$(BUILD)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -MMD -MP -MF $(@:.o=.d) -c $< -o $@

$(BUILD)/tests/%: tests/unit/%.c tests/tap.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(LIB) $(LDLIBS)

# Header dependencies of every object and unit test (gcc and nvcc -MMD -MP).
-include $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d) $(UNIT_BIN:=.d)

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
	    dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	    echo "make deps: installing" $$missing; \
	    SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	    $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	else echo "make deps: all packages present"; fi
	@# the second Parquet implementation the tests read winnow's Parquet with (pinned in package-lock.json)
	@# (Debian's npm package, unless a nodejs that brings its own npm is installed)
	@command -v npm >/dev/null || { SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	    DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq npm >/dev/null; }
	@[ -d tests/parquet/node_modules/hyparquet-compressors ] || (cd tests/parquet && npm ci --silent --no-audit --no-fund)

# WINNOW points the shell tests at the binary under test; SHARED at ../shared/data.
test: deps
	$(MAKE) --no-print-directory $(BIN) $(UNIT_BIN)
	WINNOW=$(abspath $(BIN)) BUILD=$(abspath $(BUILD)) SHARED=$(abspath ../shared/data) \
	  prove -j2 --exec '' $(UNIT_BIN) $(E2E)

check-full: all
	WINNOW=$(abspath $(BIN)) SHARED=$(abspath ../shared/data) FULL=1 prove --exec '' $(E2E)

demo: deps
	$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

BENCH_C   = $(BUILD)/bench/docstream_bench $(BUILD)/bench/tokenize_encode $(BUILD)/bench/dedup_sig \
            $(BUILD)/bench/parquet_read $(BUILD)/bench/shard_frames $(BUILD)/bench/json_scan \
            $(BUILD)/bench/zstd_params $(BUILD)/bench/shard_writer_bench \
            $(BUILD)/bench/filter_parts $(BUILD)/bench/dedup_add $(BUILD)/bench/shard_compress \
            $(BUILD)/bench/words_dump
BENCH_BIN = $(BENCH_C) $(BUILD)/bench/simdjson_lines
$(BENCH_C): $(BUILD)/bench/%: bench/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(LIB) $(LDLIBS)
-include $(patsubst %,%.d,$(BENCH_C))
$(BUILD)/bench/simdjson_lines: bench/simdjson_lines.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $$(pkg-config --cflags simdjson) -o $@ $< $$(pkg-config --libs simdjson)

# The GPU tokenizer's bench programs (bench/gpu_tokenize.sh builds them; they need nvcc).
$(BUILD)/bench/gpu_tokenize_bench: bench/gpu_tokenize_bench.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(LIB) $(LDLIBS)
$(BUILD)/bench/gpu_bandwidth: bench/gpu_bandwidth.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -o $@ $< -lpthread
-include $(BUILD)/bench/gpu_tokenize_bench.d
# The GPU token encoder's bench (shard frames; gpu/tlz.h).
$(BUILD)/bench/gpu_tlz_bench: bench/gpu_tlz_bench.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(LIB) $(LDLIBS)
-include $(BUILD)/bench/gpu_tlz_bench.d

# BENCH=name runs one bench/NAME.sh; default every dev-machine bench (bench/run.sh).
bench: deps all $(BENCH_BIN)
	@WINNOW=$(abspath bin/winnow) BUILD=$(abspath $(BUILD)) SHARED=$(abspath ../shared/data) sh bench/run.sh $(BENCH)

FUZZ_SRC = $(wildcard tests/fuzz/*.c)
FUZZ_CPPFLAGS = $(filter-out -DWINNOW_CUDA=1,$(CPPFLAGS))
FUZZ_BIN = $(patsubst tests/fuzz/%.c,build-fuzz/%,$(FUZZ_SRC))
FUZZ_LIB_OBJ = $(patsubst %.c,build-fuzz/%.o,$(LIB_C) $(wildcard gpu/none.c gpu/*_none.c)) $(patsubst %.cc,build-fuzz/%.o,$(LIB_CXX))
build-fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CPPFLAGS) -std=c11 -O1 -g -march=x86-64-v2 $(EXTRA_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -MMD -MP -c $< -o $@
# (-fno-sanitize=vptr: the targets link with clang, without UBSan's C++ runtime)
build-fuzz/%.o: %.cc
	@mkdir -p $(dir $@)
	clang++ $(FUZZ_CPPFLAGS) -std=c++17 -O1 -g -march=x86-64-v2 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr -MMD -MP -c $< -o $@
build-fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_OBJ)
	clang $(FUZZ_CPPFLAGS) -std=c11 -O1 -g -march=x86-64-v2 -fsanitize=fuzzer,address,undefined -MMD -MP -MF $@.d -o $@ $< $(FUZZ_LIB_OBJ) $(PKG_LIBS) -Wl,--push-state,--no-as-needed -lcld2_full -Wl,--pop-state -lcld2 -lstdc++ -lm -pthread
# Header dependencies of the fuzz objects and targets (clang -MMD -MP).
-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_BIN:=.d)
fuzz: deps $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do \
	  n=$$(basename $$f); mkdir -p build-fuzz/corpus/$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS)s"; \
	  $$f -seed=$(FUZZ_SEED) -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=0 -artifact_prefix=build-fuzz/$$n- build-fuzz/corpus/$$n tests/fuzz/seeds/$$n 2>build-fuzz/$$n.log \
	    || { tail -40 build-fuzz/$$n.log; $(FUZZ_SHOW_ARTIFACTS); exit 1; }; done
# On a failure the input that caused it, as base64 when small, so that a CI log alone reproduces it.
FUZZ_SHOW_ARTIFACTS = for a in build-fuzz/$$n-crash-* build-fuzz/$$n-leak-* build-fuzz/$$n-timeout-* build-fuzz/$$n-oom-*; do \
	  [ -f "$$a" ] && [ $$(stat -c %s "$$a") -le 16384 ] && { echo "$$a as base64:"; base64 -w 0 "$$a"; echo; }; done; true

# Slow (minutes per mutant on 2 cores): run it before resolving an issue that changes tested code.
mutate: deps
	$(MAKE) --no-print-directory $(BIN) $(UNIT_BIN)
	python3 scripts/mutate.py $(MUTANTS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/winnow/python
	install -m 755 bin/winnow $(DESTDIR)$(PREFIX)/bin/winnow
	if [ -d shards/python ]; then install -m 644 shards/python/*.py $(DESTDIR)$(PREFIX)/share/winnow/python/; fi

clean:
	rm -rf build build-asan build-fuzz bin
