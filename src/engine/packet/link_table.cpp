#include "engine/packet/link_table.h"

#include <algorithm>

#include "engine/packet/link_load.h"

namespace fabricsim::scenario {

std::vector<LinkRow> link_table(const net::Network& net, const LinkLoads& loads) {
  std::vector<LinkRow> rows;
  rows.reserve(net.num_ports());
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    const net::Port& port = net.port(p);
    const net::PortQueues& q = net.queues(p);
    LinkRow r;
    r.port = p;
    r.link = port_label(net, p);
    r.from = node_label(net, net.port_node(p));
    r.to = node_label(net, net.port_node(port.peer));
    r.from_tier = port_tier(net, p);
    r.to_tier = port_tier(net, port.peer);
    r.direction = r.to_tier > r.from_tier ? "up" : r.to_tier < r.from_tier ? "down" : "same";
    r.rate_bps = port.rate_bps;
    r.tx_bytes = net.port_tx_bytes(p);
    r.utilization = loads.span_ps > 0 ? port_utilization(net, p, loads.span_ps) : 0.0;
    for (const net::ClassQueue& c : q.cls) {
      r.peak_queue_bytes = std::max<int64_t>(r.peak_queue_bytes, c.peak_bytes);
    }
    r.drops = q.drops;
    r.pause_frames_sent = q.pause_frames_sent;
    r.pause_frames_received = q.pause_frames_received;
    r.paused_ps = q.paused_ps;
    r.ecn_marks = q.ecn_marks;
    r.credit_waits = q.credit_waits;
    r.trimmed = q.trims;
    r.down = q.down_count > 0;  // failed during the run (it may be up again)
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace fabricsim::scenario
