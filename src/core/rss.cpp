#include "core/rss.h"

#include <sys/resource.h>

namespace fabricsim {

int64_t peak_rss_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB (getrusage(2))
}

}  // namespace fabricsim
