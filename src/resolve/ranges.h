// The products of rates, sizes, times and counts a whole scenario implies, checked once before
// simulating so that none overflows silently later.
//
// Each key is already bounded by the registry (core/checked.h: time <= the 10^6 s horizon,
// sizes <= 1 TiB, rates in [1 Mb/s, 100 Tb/s], radix, hosts, NICs per host). What only the
// combination decides is checked here, with checked arithmetic, against the limits of the
// integers the simulator keeps:
//   - simulated time: the least time the busiest NIC needs to send or receive its bytes at the
//     link rate, plus the latest start, must lie within the horizon (int64 ps);
//   - packet sequence numbers: a QP numbers its packets in a uint32 (transport/rc.h), so the
//     packets of one message and of all messages between two NICs must fit in 2^32 - 1;
//   - message ids: the transport indexes messages by uint32, so the workload's message count
//     must fit too (a 1-byte collective slice, a long Poisson run).
// A refusal names the key to change, e.g.
//   workload.size: needs at least 2.3e+07 s of simulated time (137438953472 B through one NIC
//   at 1 Mb/s); the simulator's horizon is 1000000s
#pragma once

#include "spec/scenario.h"

namespace fabricsim::scenario {

// REQUIRES: `resolved` passed topo::check_shape and workload::check and went through
// resolve_fabric (so link.rate_bps and roce.mtu_bytes are the technology's). Throws InputError.
void check_ranges(const Scenario& resolved);

}  // namespace fabricsim::scenario
