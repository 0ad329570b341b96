#include "resolve/uet_setup.h"

#include <algorithm>

namespace fabricsim::scenario {

transport::UetNetwork uet_network(const Scenario& sc) {
  transport::UetNetwork n;
  // Longest path of a fat-tree: up and down through every tier (htsim _diameter = 2 x tiers).
  n.diameter_links = 2 * std::max(1, sc.topology.tiers);
  n.link_rate_bps = sc.link.rate_bps;
  n.link_propagation_ps = sc.link.propagation_ps();
  n.switch_latency_ps = sc.switch_config.latency_ps;
  n.nic_latency_ps = sc.nic.tx_latency_ps + sc.nic.rx_latency_ps;
  n.port_queue_bytes = sc.switch_config.port_queue_bytes;
  return n;
}

// UET (issue 11): the network the transport's constants scale from, and the switch settings of
// the UET data class: ECN marking linear between 0.2 and 0.8 BDP (htsim main_uec.cpp ecn_low/
// ecn_high = ceil(0.2 / 0.8 x BDP in packets), uet-sim.md §0, §4) unless fabric.ecn.* sets them,
// and packet trimming (fabric.uet.trimming) with the headers in the control class.
transport::UetNetwork configure_uet(Scenario& sc) {
  transport::UetNetwork n = uet_network(sc);
  const transport::UetDerived d = transport::uet_derive(sc.uet, n);
  const int64_t frame =
      transport::uet_data_frame_bytes(sc.uet, static_cast<uint32_t>(sc.uet.mtu_bytes));
  const int64_t bdp_pkts = (d.bdp_bytes + frame - 1) / frame;
  // The per-port data queue: htsim's 1 x BDP with trimming, 5 x BDP without (main_uec.cpp
  // DEFAULT_TRIMMING_QUEUESIZE_FACTOR / DEFAULT_NONTRIMMING_QUEUESIZE_FACTOR, in whole packets,
  // uet-sim.md §0) unless fabric.switch.port_queue sets it. The derived RTO assumes it: without
  // a cap, queues grow past one RTO and every flow times out spuriously.
  if (sc.switch_config.port_queue_bytes == 0) {
    sc.switch_config.port_queue_bytes = (sc.uet.trimming ? 1 : 5) * bdp_pkts * frame;
    n.port_queue_bytes = sc.switch_config.port_queue_bytes;
  }
  net::EcnConfig& ecn = sc.switch_config.ecn;
  ecn.kmin_bytes = (2 * bdp_pkts + 9) / 10 * frame;  // ceil(0.2 x BDP_pkt) packets
  ecn.kmax_bytes = (8 * bdp_pkts + 9) / 10 * frame;  // ceil(0.8 x BDP_pkt) packets
  ecn.pmax = 1.0;
  net::TrimConfig& trim = sc.switch_config.trim;
  trim.enabled = sc.uet.trimming;
  trim.mask = static_cast<uint8_t>(1u << sc.uet.data_priority);
  trim.priority = static_cast<uint8_t>(sc.uet.control_priority);
  if (sc.uet.header_bytes > 0) trim.header_bytes = static_cast<uint16_t>(sc.uet.header_bytes);
  return n;
}

}  // namespace fabricsim::scenario
