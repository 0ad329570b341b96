// The idle-machine arithmetic of NVLink, PCIe links and host memory at message grain (the
// running machine shares them max-min fairly: node/fluid_ps.h). A message crossing resources
// R1..Rk in tandem (cut-through: each starts forwarding as soon as the first byte is in) is one
// O(k) computation:
//   first byte enters Ri at  entry_i = entry_{i-1} + latency_i   (max with busy_i when not idle)
//   last byte leaves Ri at   leave_i = max(entry_i + bytes / rate_i, leave_{i-1} + latency_i)
// entry_0 / leave_0's predecessors are the time the first byte is available and the time the
// last one is (equal for data already in memory; a receive starts before its last byte is in).
// A flow alone in node/fluid_ps.h ends where this puts the last byte.
#pragma once

#include <cstdint>

namespace fabricsim::node {

// A resource's rate and, as GpuNet::server() reports it, its accounting.
struct FluidServer {
  int64_t rate_bps = 0;       // effective rate, one direction
  int64_t busy_until_ps = 0;  // used by fluid_path when not idle (GpuNet: always 0)
  int64_t bytes = 0;          // carried so far (whole messages, counted at their start)
  int64_t busy_ps = 0;        // time with at least one flow on it
};

// One resource of a path and the latency before the first byte can enter it (the device crossed
// between the previous resource and this one; for the first, after the data is available).
struct Hop {
  uint32_t resource = 0;
  int64_t latency_ps = 0;
};

// The longest unicast path a stage crosses: NVLink out + in, GPU link, uplink up + down, NIC
// link. (NVLS flows cross up to 2 x (GPUs per node + 1) resources and do not use Hop.)
inline constexpr int kMaxHops = 8;

struct FluidResult {
  int64_t first_ps = 0;  // first byte enters the last resource
  int64_t last_ps = 0;   // last byte leaves the last resource
};

// The tandem formula above. `idle`: ignore busy-until (the machine without other traffic).
// `entries` / `leaves` (n each) receive the per-resource times when not null.
FluidResult fluid_path(const FluidServer* servers, const Hop* hops, int n, int64_t first_ps,
                       int64_t last_ps, int64_t bytes, bool idle, int64_t* entries,
                       int64_t* leaves);

}  // namespace fabricsim::node
