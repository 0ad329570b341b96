// libFuzzer entry point (`make fuzz`, scripts/fuzz): every input is a scenario file's bytes,
// taken through load -> check -> build -> a short run -> the output formatters
// (fuzz/scenario_target.h). A crash, a sanitizer report, an exception other than the CLI's
// bad-input errors, a hang past -timeout or memory past -rss_limit_mb is a finding; save its
// input under tests/fuzz/regressions/ so tests/fuzz replays it in every build.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenario_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fabricsim::fuzz::run_input(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
