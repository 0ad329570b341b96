// The pre-flight memory check (preflight/resources.h) as run, compare and validate apply it:
// the limit (--max-memory or MemAvailable), whether parsing the file fits, and a scenario's
// projected peak against the limit, refused with one `file:line: key: message` line that names
// the keys to change.
#pragma once

#include <cstdint>
#include <string>

#include "cli/commands.h"
#include "preflight/resources.h"
#include "spec/load.h"

namespace fabricsim::cli {

// --max-memory in bytes, or MemAvailable when not given (0: unknown, no limit); false after
// printing the one-line error.
bool memory_limit(const MemoryLimitArg& arg, int64_t& limit);

// Before parsing: yaml-cpp's own memory for the file (scenario::parse_peak_bytes) must fit the
// limit too, or a large flow list would exhaust memory before any estimate could refuse it.
// False after printing the one-line error; a file that cannot be sized is left to the loader.
bool parse_fits(const std::string& file, const MemoryLimitArg& arg, int64_t limit);

struct Preflight {
  scenario::ResourceEstimate estimate;
  int64_t peak_bytes = 0;  // the whole process's projected peak
  std::string error;       // one line; "" = fits
};

// Checks the scenario, estimates its memory and compares the process's projected peak with
// `limit`: what is resident now (the program and the loaded scenario), the program's code the
// run will page in, plus `held` bytes of other runs' results (or, side by side, their peaks)
// plus the estimate, and at least the peak already reached while loading.
Preflight preflight(const scenario::LoadedScenario& loaded, const MemoryLimitArg& arg,
                    int64_t limit, int64_t held);

// When the packets part is an expectation below its bound: how far the queues could go, and
// that a run stops cleanly if they outgrow the limit ("" otherwise).
std::string worst_case_note(const scenario::ResourceEstimate& e);

}  // namespace fabricsim::cli
