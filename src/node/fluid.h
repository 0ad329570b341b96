// Fluid FIFO servers at message grain: NVLink, PCIe links and host memory as a rate and a
// busy-until time, never packets. A message crossing resources R1..Rk in tandem (cut-through:
// each starts forwarding as soon as the first byte is in) is one O(k) computation:
//   first byte enters Ri at  entry_i = max(busy_i, entry_{i-1} + latency_i)
//   last byte leaves Ri at   leave_i = max(entry_i + bytes / rate_i, leave_{i-1} + latency_i)
// and Ri is then busy until leave_i (FIFO: a later message waits for the whole earlier one).
// entry_0 / leave_0's predecessors are the time the first byte is available and the time the
// last one is (equal for data already in memory; a receive starts before its last byte is in).
#pragma once

#include <cstdint>

namespace fabricsim::node {

struct FluidServer {
  int64_t rate_bps = 0;       // effective rate, one direction
  int64_t busy_until_ps = 0;  // when the last reserved byte leaves
  int64_t bytes = 0;          // carried so far (reserved messages included)
  int64_t busy_ps = 0;        // sum over messages of leave - entry: the time it was held
};

// One resource of a path and the latency before the first byte can enter it (the device crossed
// between the previous resource and this one; for the first, after the data is available).
struct Hop {
  uint32_t resource = 0;
  int64_t latency_ps = 0;
};

// The longest path a stage crosses: NVLink out + in, GPU link, uplink up + down, NIC link.
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

// Reserves the resources for a message fluid_path placed: busy-until, bytes and held time.
void fluid_commit(FluidServer* servers, const Hop* hops, int n, int64_t bytes,
                  const int64_t* entries, const int64_t* leaves);

}  // namespace fabricsim::node
