#include "resolve/swift_setup.h"

#include <string>

#include "core/error.h"
#include "resolve/hpcc_setup.h"
#include "transport/rc.h"

namespace fabricsim::scenario {

transport::SwiftParams resolve_swift(const Scenario& sc) {
  const transport::SwiftOverrides& o = sc.roce.swift;
  const int64_t base_rtt_ps =
      base_rtt_or_derived_ps(sc, o.base_rtt_ps, "fabric.roce.swift.base_rtt", "Swift's base RTT", 0);
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
