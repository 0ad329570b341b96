#include "node/fluid.h"

#include <algorithm>

#include "core/time.h"

namespace fabricsim::node {

FluidResult fluid_path(const FluidServer* servers, const Hop* hops, int n, int64_t first_ps,
                       int64_t last_ps, int64_t bytes, bool idle, int64_t* entries,
                       int64_t* leaves) {
  int64_t prev_entry = first_ps, prev_leave = last_ps;
  for (int i = 0; i < n; ++i) {
    const FluidServer& s = servers[hops[i].resource];
    int64_t entry = prev_entry + hops[i].latency_ps;
    if (!idle) entry = std::max(entry, s.busy_until_ps);
    const int64_t leave =
        std::max(entry + serialization_ps(bytes, s.rate_bps), prev_leave + hops[i].latency_ps);
    if (entries) entries[i] = entry;
    if (leaves) leaves[i] = leave;
    prev_entry = entry;
    prev_leave = leave;
  }
  return FluidResult{prev_entry, prev_leave};
}

}  // namespace fabricsim::node
