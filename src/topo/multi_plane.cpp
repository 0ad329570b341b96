// Multi-plane builder (topo/multi_plane.h).
#include "topo/multi_plane.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "net/plane_choice.h"

namespace fabricsim::topo {
namespace {

// The selector inside a NIC: no forwarding latency (the NIC's own pipeline latency is
// fabric.nic.*), no ECN or trimming (a NIC does not mark or trim its own packets). A NIC sends
// on a port only when the port can take it, so the selector must not queue without bound (the
// NIC pulls at its aggregate rate, a plane port drains at 1/P of it, and after a plane failure
// the surviving ports at (P-1)/P): it holds the NIC back with PFC on every class, a few frames
// per plane port deep (XOFF = 2 frames per plane, at least 4; XON one frame lower; headroom 4
// frames: the frame that crossed XOFF being stored while the NIC sends the next, the frame under
// way when PAUSE arrives over 0 m, and margin: 2 frames were measured to overflow). The depth of
// a real NIC's per-port transmit FIFO is not published (UNVERIFIED); this one keeps every plane
// port busy (round-robin refills each one within P frames) with the queue inside the NIC below
// 2 frames per port.
net::SwitchConfig selector_config(const net::SwitchConfig& fabric, int planes) {
  net::SwitchConfig c;
  c.latency_ps = 0;
  c.buffer_bytes = fabric.buffer_bytes;
  c.dt_alpha = 1.0;
  c.forwarding = net::Forwarding::kStoreAndForward;  // ports of two rates: never cut-through
  const int64_t frame = fabric.pfc.mtu_bytes + 256;  // an MTU of payload and its headers
  c.pfc = fabric.pfc;
  c.pfc.enabled = true;
  c.pfc.lossless_mask = 0xFF;
  c.pfc.threshold = net::PfcThreshold::kStatic;
  c.pfc.watchdog_ps = 0;
  c.pfc.headroom_bytes = 4 * frame;
  c.pfc.xoff_bytes = std::max(4, 2 * planes) * frame;
  c.pfc.xon_bytes = c.pfc.xoff_bytes - frame;
  c.pfc.port_buffer_bytes = c.pfc.xoff_bytes + c.pfc.headroom_bytes;
  c.ecn.enabled = false;
  c.trim.enabled = false;
  return c;
}

TopologySpec one_plane(const TopologySpec& spec) {
  TopologySpec s = spec;
  s.planes = 1;
  return s;
}

}  // namespace

int64_t plane_rate_bps(const TopologySpec& spec, int64_t link_rate_bps) {
  return spec.plane_rate_bps > 0 ? spec.plane_rate_bps : link_rate_bps / spec.planes;
}

void check_multi_plane(const TopologySpec& spec) {
  if (spec.planes < 1) throw InputError("topology.planes", "must be >= 1");
  if (spec.planes == 1) return;
  if (spec.kind == TopologyKind::kFile) {
    throw InputError("topology.planes",
                     "a topology file describes every plane itself; planes > 1 needs "
                     "topology.kind fat_tree, leaf_spine or rail");
  }
  check_shape(one_plane(spec));
}

BuiltTopology build_multi_plane(const TopologySpec& spec, const FabricParams& params,
                                net::Network& net) {
  check_multi_plane(spec);
  const int nics = spec.hosts * spec.nics_per_host;
  // The NICs, each cabled to its selector at the NIC's aggregate rate over no distance: the
  // selector is inside the NIC.
  net::LinkConfig host_side = params.link;
  host_side.cable_m = 0.0;
  host_side.loss_rate = 0.0;
  const net::SwitchConfig sel_cfg = selector_config(params.switch_config, spec.planes);
  std::vector<uint32_t> selectors(static_cast<size_t>(nics));
  for (int i = 0; i < nics; ++i) {
    const uint32_t nic = net.add_nic(params.nic);
    const uint32_t sel = net.add_switch(sel_cfg, 0);
    selectors[i] = net.switch_node(sel);
    net.connect(net.nic_node(nic), selectors[i], host_side);
  }
  FabricParams plane = params;
  plane.link.rate_bps = plane_rate_bps(spec, params.link.rate_bps);
  const TopologySpec one = one_plane(spec);
  BuiltTopology out;
  for (int p = 0; p < spec.planes; ++p) {
    out = spec.kind == TopologyKind::kRail ? detail::build_rail(one, plane, net, &selectors)
                                           : detail::build_fat_tree(one, plane, net, &selectors);
  }
  // Selectors first: finalize() sizes an IB selector's buffers as the NIC's (net/credits.cpp).
  for (int i = 0; i < nics; ++i) {
    net::make_plane_selector(net.switch_at(static_cast<uint32_t>(i)),
                             static_cast<net::PlaneSplit>(spec.plane_split));
  }
  net.finalize();
  out.nics = nics;
  out.hosts = spec.hosts;
  out.switches = static_cast<int>(net.num_switches());
  out.cables = static_cast<int>(net.num_cables());
  out.description = std::to_string(spec.planes) + " planes of " + out.description + ", " +
                    std::to_string(plane.link.rate_bps / 1'000'000'000) + " Gb/s per plane port";
  return out;
}

PlaneSwitches plane_switches(const net::Network& net, const TopologySpec& spec, int plane) {
  const uint32_t nics = net.num_nics();
  const uint32_t per_plane = (net.num_switches() - nics) / static_cast<uint32_t>(spec.planes);
  return {nics + static_cast<uint32_t>(plane) * per_plane, per_plane};
}

std::vector<uint32_t> plane_cable_ports(const net::Network& net, const TopologySpec& spec,
                                        int plane, bool uplinks_only) {
  const PlaneSwitches ps = plane_switches(net, spec, plane);
  std::vector<uint32_t> out;
  for (uint32_t sw = ps.first; sw < ps.first + ps.count; ++sw) {
    const net::Switch& s = net.switch_at(sw);
    for (uint32_t k = 0; k < s.num_ports; ++k) {
      const uint32_t port = s.first_port + k;
      const net::Port& far = net.port(net.port(port).peer);
      const bool to_selector = static_cast<uint32_t>(far.switch_index) < ps.first;
      if (uplinks_only && to_selector) continue;
      // Each cable once: from the plane switch of the lower index, or towards a selector.
      if (to_selector || static_cast<uint32_t>(far.switch_index) > sw) {
        out.push_back(port);
      }
    }
  }
  return out;
}

}  // namespace fabricsim::topo
