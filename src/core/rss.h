// Peak resident memory of this process, for run statistics (SPEC §6 "peak memory").
#pragma once

#include <cstdint>

namespace fabricsim {

// Peak resident set size in bytes since the process started (getrusage ru_maxrss, which Linux
// reports in KiB); 0 if unavailable.
int64_t peak_rss_bytes();

}  // namespace fabricsim
