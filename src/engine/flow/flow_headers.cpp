#include "engine/flow/flow_headers.h"

#include "transport/rc.h"
#include "transport/tcp.h"
#include "transport/uet.h"

namespace fabricsim::scenario {

HeaderFn flow_headers(const Scenario& sc, transport::Transport& proto) {
  // Load-dependent group choices (Ethernet adaptive routing and flowlets, InfiniBand AR) become
  // a least-loaded choice per message; spraying a split over every member.
  const bool adaptive = sc.ecmp.load_balancing == routing::LoadBalancing::kAdaptive ||
                        sc.ecmp.load_balancing == routing::LoadBalancing::kFlowlet ||
                        (sc.technology == Technology::kInfiniband && sc.recovery.adaptive);
  const PathChoice unsprayed = adaptive ? PathChoice::kLeastLoaded : PathChoice::kForward;
  if (sc.technology == Technology::kTcp || sc.technology == Technology::kIwarp) {
    auto* tcp = static_cast<transport::TcpTransport*>(&proto);
    return [tcp, unsprayed](uint32_t src, uint32_t dst, int) {
      FlowHeader h;
      h.connection = h.qp = tcp->open_connection(src, dst);
      h.entropy = tcp->connection(h.connection).sport;
      h.priority = static_cast<uint8_t>(tcp->config().data_priority);
      h.traffic_class = h.priority;
      h.choice = unsprayed;
      return h;
    };
  }
  if (sc.technology == Technology::kUet) {
    auto* uet = static_cast<transport::UetTransport*>(&proto);
    const bool single = uet->config().load_balancing == transport::UetLoadBalancing::kSinglePath;
    return [uet, single, unsprayed](uint32_t src, uint32_t dst, int) {
      FlowHeader h;
      h.connection = h.qp = uet->open_pdc(src, dst);
      h.entropy = single ? uet->pdc_entropy(h.connection) : 0;
      h.priority = static_cast<uint8_t>(uet->config().data_priority);
      h.traffic_class = h.priority;
      h.choice = single ? unsprayed : PathChoice::kSpray;
      return h;
    };
  }
  auto* roce = static_cast<transport::RoceTransport*>(&proto);
  const bool ib = sc.technology == Technology::kInfiniband;
  const bool spray = roce->config().spray;
  return [roce, ib, spray, unsprayed](uint32_t src, uint32_t dst, int sl) {
    FlowHeader h;
    h.connection = h.qp = roce->open_qp(src, dst, sl);
    const transport::Qp& q = roce->qp(h.qp);
    h.entropy = q.entropy;
    h.priority = q.priority;
    h.traffic_class = ib ? q.sl : q.priority;
    h.choice = spray ? PathChoice::kSpray : unsprayed;
    return h;
  };
}

ChannelEntropyFn flow_channel_entropy(const Scenario& sc, transport::Transport& proto) {
  // TCP and iWARP give each channel a connection, so a source port, of its own too; UET keeps
  // one PDC per NIC pair, InfiniBand forwards every channel by the pair's DLID.
  if (sc.technology == Technology::kTcp || sc.technology == Technology::kIwarp) {
    auto* tcp = static_cast<transport::TcpTransport*>(&proto);
    return [tcp](uint32_t src, uint32_t dst, uint32_t channel) -> int32_t {
      return tcp->channel_sport(src, dst, channel);
    };
  }
  if (sc.technology != Technology::kRoce) return {};
  auto* roce = static_cast<transport::RoceTransport*>(&proto);
  return [roce](uint32_t src, uint32_t dst, uint32_t channel) {
    return roce->channel_entropy(src, dst, -1, channel);
  };
}

}  // namespace fabricsim::scenario
