#include "resolve/swift_setup.h"

#include <string>

#include "core/error.h"
#include "resolve/hpcc_setup.h"
#include "transport/rc.h"

namespace fabricsim::scenario {

transport::SwiftParams resolve_swift(const Scenario& sc) {
  const transport::SwiftOverrides& o = sc.roce.swift;
  if (!o.base_rtt_ps && (sc.topology.kind == topo::TopologyKind::kFile ||
                         sc.topology.kind == topo::TopologyKind::kDragonfly)) {
    throw InputError("fabric.roce.swift.base_rtt",
                     "Swift's base RTT is derived only for fat_tree, leaf_spine and rail fabrics; "
                     "on a " +
                         std::string(sc.topology.kind == topo::TopologyKind::kFile
                                         ? "topology file"
                                         : "Dragonfly") +
                         " set it: 2 x the one-way delay of the longest host-to-host path plus "
                         "one data frame's serialization per link");
  }
  const int64_t base_rtt_ps = o.base_rtt_ps ? *o.base_rtt_ps : longest_base_rtt_ps(sc, 0);
  // The BDP in full packets: what one flow alone keeps in flight at line rate.
  const double bdp_pkts = static_cast<double>(sc.link.rate_bps) / 8 *
                          static_cast<double>(base_rtt_ps) * 1e-12 / sc.roce.mtu_bytes;
  transport::SwiftParams p = transport::swift_defaults(base_rtt_ps, bdp_pkts);
  override_with(p.base_target_ps, o.base_target_ps);
  override_with(p.per_hop_ps, o.per_hop_ps);
  override_with(p.ai_pkts, o.ai_pkts);
  override_with(p.beta, o.beta);
  override_with(p.max_mdf, o.max_mdf);
  if (o.fs_range_ps) p.fs_range_ps = static_cast<double>(*o.fs_range_ps);
  override_with(p.fs_min_cwnd, o.fs_min_cwnd);
  override_with(p.fs_max_cwnd, o.fs_max_cwnd);
  override_with(p.min_cwnd, o.min_cwnd);
  override_with(p.max_cwnd, o.max_cwnd);
  override_with(p.retx_reset, o.retx_reset);
  try {
    transport::validate_swift_params(p);
  } catch (const transport::SwiftParamError& e) {
    throw InputError("fabric." + e.field, e.what());  // the key the value came from
  }
  return p;
}

}  // namespace fabricsim::scenario
