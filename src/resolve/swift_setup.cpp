#include "resolve/swift_setup.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "resolve/hpcc_setup.h"
#include "transport/rc.h"

namespace fabricsim::scenario {

transport::SwiftParams resolve_swift(const Scenario& sc) {
  const transport::SwiftOverrides& o = sc.roce.swift;
  const int64_t base_rtt_ps =
      base_rtt_or_derived_ps(sc, o.base_rtt_ps, "fabric.roce.swift.base_rtt", "Swift's base RTT", 0);
  // What a switch hop adds to a round trip on a tiered fabric (longest_base_rtt_ps's terms):
  // a cable each way, the switch's latency each way and one data frame's serialization. Not
  // derived where the base RTT is given (it may not follow fabric.link.*).
  int64_t per_hop_rtt_ps = 0;
  int longest_hops = 0;
  if (!o.base_rtt_ps) {
    const int64_t frame =
        transport::data_frame_bytes(sc.roce, sc.roce.mtu_bytes, false, false) +
        transport::wire_only_bytes(sc.roce);
    per_hop_rtt_ps = 2 * sc.link.propagation_ps() + 2 * sc.switch_config.latency_ps +
                     serialization_ps(frame, sc.link.rate_bps);
    longest_hops = 2 * std::max(1, sc.topology.tiers) - 1;
  }
  // The BDP in full packets: what one flow alone keeps in flight at line rate.
  const double bdp_pkts = static_cast<double>(sc.link.rate_bps) / 8 *
                          static_cast<double>(base_rtt_ps) * 1e-12 / sc.roce.mtu_bytes;
  transport::SwiftParams p =
      transport::swift_defaults(base_rtt_ps, per_hop_rtt_ps, longest_hops, bdp_pkts);
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

transport::DctcpRdmaParams resolve_dctcp_rdma(const Scenario& sc) {
  const transport::DctcpRdmaOverrides& o = sc.roce.dctcp;
  transport::DctcpRdmaParams p = transport::dctcp_rdma_defaults(
      sc.link.rate_bps, sc.roce.mtu_bytes,
      base_rtt_or_derived_ps(sc, o.base_rtt_ps, "fabric.roce.dctcp.base_rtt", "DCTCP's T", 0));
  override_with(p.g, o.g);
  override_with(p.rate_ai_bps, o.rate_ai_bps);
  override_with(p.min_rate_bps, o.min_rate_bps);
  try {
    transport::validate_dctcp_rdma_params(p, sc.link.rate_bps);
  } catch (const transport::DctcpRdmaParamError& e) {
    throw InputError("fabric." + e.field, e.what());
  }
  return p;
}

}  // namespace fabricsim::scenario
