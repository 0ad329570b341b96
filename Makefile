# fabricsim: `make run` and `make test` do all set-up on a fresh Debian machine.
BUILD ?= build
JOBS  ?= 2
OUT   ?= out/default
# make sanitize: AddressSanitizer + UBSan build of everything, then the unit and validation tests.
ASAN_BUILD ?= build-asan
# make fuzz: the libFuzzer harness (clang) in its own tree, run for FUZZ_SECONDS; FUZZ_FLAGS are
# passed on to libFuzzer (e.g. FUZZ_FLAGS='-fork=1 -ignore_crashes=1' to keep going past a crash).
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?=

.PHONY: all deps configure build run test bench calibration sanitize fuzz clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# Only the CLI: the tests and benchmarks are not needed for a first result.
run: configure
	@cmake --build $(BUILD) -j$(JOBS) --target fabricsim
	@$(BUILD)/fabricsim run examples/default.yaml --out $(OUT)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

bench: configure
	@cmake --build $(BUILD) -j$(JOBS) --target bench_targets
	@scripts/run-bench $(BUILD)

# Regenerates the calibration table in docs/calibration.md from tests/calibration.
calibration: configure
	@cmake --build $(BUILD) -j$(JOBS) --target test_calibration
	@scripts/calibration-table $(BUILD)

sanitize: deps
	@scripts/sanitize $(ASAN_BUILD) $(JOBS)

fuzz: deps
	@scripts/fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_FLAGS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) out
