# fabricsim: `make run` and `make test` do all set-up on a fresh Debian machine.
BUILD ?= build
JOBS  ?= 2
OUT   ?= out/default

.PHONY: all deps configure build run test bench calibration clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

run: build
	@$(BUILD)/fabricsim run examples/default.yaml --out $(OUT)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

bench: build
	@scripts/run-bench $(BUILD)

# Regenerates the calibration table in docs/calibration.md from tests/calibration.
calibration: build
	@scripts/calibration-table $(BUILD)

clean:
	rm -rf $(BUILD) out
