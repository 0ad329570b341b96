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
    // One connection per NIC pair for every channel (Transport::post_channel).
    return [tcp, unsprayed](uint32_t src, uint32_t dst, int, uint32_t) {
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
    return [uet, single, unsprayed](uint32_t src, uint32_t dst, int, uint32_t) {
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
  // Every NCCL channel on the NIC pair's one connection, though packet mode gives each channel
  // its own QP (Transport::post_channel): measured against packet mode, the fluid with a
  // connection per channel was 1.9x too long on a 16-node ring reduce-scatter of 37 MiB
  // (1,543.8 against 815.0 us; one connection: 822.5 us) and 5-31 % on the GPU rows of
  // docs/modes.md's error table: a fluid keeps the channels in lockstep, so every ring step
  // pays its latency after its bytes, where the NIC's packet round-robin lets them drift apart
  // and overlap (docs/modes.md).
  return [roce, ib, spray, unsprayed](uint32_t src, uint32_t dst, int sl, uint32_t) {
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

}  // namespace fabricsim::scenario
