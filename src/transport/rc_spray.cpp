// RoCE per-packet spraying and the responder's bounded reorder buffer (transport/config.h
// RoceConfig::spray, out_of_order, reorder_buffer_packets; docs/transports.md "RoCE with
// spraying").
//
// Spraying: a QP's data packets take new UDP source ports, so the switches' ECMP hash spreads
// them over every equal-cost path. The ports cycle through spray_paths values, each used exactly
// once per round of spray_paths packets, in an order (index XOR mask) redrawn each round: the
// oblivious spraying of the UET reference simulator (uet-htsim UecMpOblivious::nextEntropy,
// docs/reference/uet-sim.md §3). Visiting every port once per round puts the same number of
// packets on each port, where independent random ports would leave a multinomial imbalance;
// redrawing the order keeps successive rounds from following the same path sequence. The mask
// comes from the run's seed, the QP and the round, so a run is deterministic.
//
// Reorder buffer: an out-of-order responder (ConnectX-5+ out-of-order data placement, reference
// infiniband.md §4 / rocev2.md §6) holds packets up to reorder_buffer_packets ahead of the
// expected PSN. An arrival beyond that is the fallback: the responder discards what it held,
// NAKs the expected PSN and the requester goes back N from there (rc.cpp on_nak). Until the
// expected PSN arrives it sends no further NAK (one per gap, as rxe's sent_psn_nak flag) but
// keeps placing what fits. Without out_of_order every PSN gap is such a fallback (rxe check_psn).
#include <algorithm>

#include "core/rng.h"
#include "transport/rc.h"

namespace fabricsim::transport {

uint16_t RoceTransport::spray_entropy(Qp& q) {
  const uint32_t paths = static_cast<uint32_t>(cfg_.spray_paths);  // a power of two
  const uint32_t slot = q.spray_index & (paths - 1);
  if (slot == 0) {  // a new round: a new order of the ports
    uint64_t h = seed_ ^ (0x9E3779B97F4A7C15ull * (q.path_key + 1)) ^
                 (0xC2B2AE3D27D4EB4Full * (q.spray_index / paths + 1));
    q.spray_mask = static_cast<uint16_t>(splitmix64(h) & (paths - 1));
  }
  ++q.spray_index;
  // The QP's own port supplies the bits above the spray range, so QPs use different port sets.
  const uint32_t base = q.entropy & 0x3FFFu & ~(paths - 1);
  return static_cast<uint16_t>(0xC000u | base | (slot ^ q.spray_mask));
}

void RoceTransport::place_out_of_order(Qp& q, uint32_t qp_id, uint32_t psn) {
  const auto window = static_cast<uint32_t>(cfg_.reorder_buffer_packets);
  if (psn - q.epsn >= window) {
    ++ctr(counters_).ooo_window_drops;
    if (!q.nak_sent) {
      // The buffer cannot hold it: go back N. What was held past epsn is discarded, since the
      // requester resends all of it.
      for (uint32_t ahead = 1; ahead < window && !q.ooo_bits.empty(); ++ahead) {
        const uint32_t held = (q.epsn + ahead) % window;
        if (q.ooo_bits[held / 64] & (1ull << (held % 64))) credit_placed(q, q.epsn + ahead, -1);
      }
      std::fill(q.ooo_bits.begin(), q.ooo_bits.end(), 0);
      start_go_back_n(q, qp_id);
    }
    return;
  }
  if (q.ooo_bits.empty()) q.ooo_bits.assign((window + 63) / 64, 0);
  const uint32_t bit = psn % window;
  uint64_t& word = q.ooo_bits[bit / 64];
  if (!(word & (1ull << (bit % 64)))) {
    word |= 1ull << (bit % 64);
    credit_placed(q, psn, +1);
    ++ctr(counters_).out_of_order_packets;
  }
}

uint32_t RoceTransport::drain_placed(Qp& q) {
  if (q.ooo_bits.empty()) return 0;
  const auto window = static_cast<uint32_t>(cfg_.reorder_buffer_packets);
  uint32_t n = 0;
  for (;;) {
    const uint32_t bit = q.epsn % window;
    uint64_t& word = q.ooo_bits[bit / 64];
    if (!(word & (1ull << (bit % 64)))) return n;
    word &= ~(1ull << (bit % 64));
    ++q.epsn;
    ++n;
  }
}

void RoceTransport::start_go_back_n(Qp& q, uint32_t qp_id) {
  q.nak_sent = true;
  ++ctr(counters_).go_back_n_fallbacks;
  send_control(q, net::PacketType::kNak, qp_id, q.epsn);
}

}  // namespace fabricsim::transport
