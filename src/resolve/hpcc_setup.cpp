#include "resolve/hpcc_setup.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/time.h"
#include "transport/rc.h"

namespace fabricsim::scenario {

int64_t hpcc_base_rtt_ps(const Scenario& sc) {
  return longest_base_rtt_ps(sc, transport::kHpccIntHeaderBytes);
}

int64_t longest_base_rtt_ps(const Scenario& sc, uint32_t extra_header_bytes) {
  const int links = 2 * std::max(1, sc.topology.tiers);
  const uint32_t frame = transport::data_frame_bytes(sc.roce, sc.roce.mtu_bytes, false, false) +
                         transport::wire_only_bytes(sc.roce) + extra_header_bytes;
  // The NICs' pipelines are part of a host-to-host delay here (third.cc's hosts have none).
  const int64_t one_way_ps = links * sc.link.propagation_ps() +
                             (links - 1) * sc.switch_config.latency_ps + sc.nic.tx_latency_ps +
                             sc.nic.rx_latency_ps;
  return 2 * one_way_ps + links * serialization_ps(frame, sc.link.rate_bps);
}

int64_t base_rtt_or_derived_ps(const Scenario& sc, const std::optional<int64_t>& set_ps,
                               const std::string& key, const std::string& what,
                               uint32_t extra_header_bytes) {
  if (set_ps) return *set_ps;
  // longest_base_rtt_ps knows the longest path of a tiered fabric (2 x tiers links of
  // fabric.link.*); a Dragonfly's routes and a topology file's own per-link delays and rates
  // are not derived yet, and a wrong base RTT silently mis-sizes every window: ask for it.
  if (sc.topology.kind == topo::TopologyKind::kFile ||
      sc.topology.kind == topo::TopologyKind::kDragonfly) {
    throw InputError(key, what + " is derived only for fat_tree, leaf_spine and rail fabrics; on a " +
                              std::string(sc.topology.kind == topo::TopologyKind::kFile
                                              ? "topology file"
                                              : "Dragonfly") +
                              " set it: 2 x the one-way delay of the longest host-to-host path "
                              "plus one data frame's serialization per link");
  }
  return longest_base_rtt_ps(sc, extra_header_bytes);
}

transport::HpccParams resolve_hpcc(const Scenario& sc) {
  const transport::HpccOverrides& o = sc.roce.hpcc;
  transport::HpccParams p = transport::hpcc_defaults(
      sc.link.rate_bps, base_rtt_or_derived_ps(sc, o.base_rtt_ps, "fabric.roce.hpcc.base_rtt",
                                               "HPCC's T", transport::kHpccIntHeaderBytes));
  override_with(p.eta, o.eta);
  override_with(p.max_stage, o.max_stage);
  override_with(p.rate_ai_bps, o.rate_ai_bps);
  override_with(p.min_rate_bps, o.min_rate_bps);
  try {
    transport::validate_hpcc_params(p, sc.link.rate_bps);
  } catch (const transport::HpccParamError& e) {
    throw InputError("fabric." + e.field, e.what());  // the key the value came from
  }
  return p;
}

}  // namespace fabricsim::scenario
