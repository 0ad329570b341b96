// A cable's state over a run: failure, local repair of the forwarding groups, and coming back
// up (faults.link_down with until/flaps; docs/load-balancing.md "Link failure, local repair and
// flaps"). All of it runs per failure event, never per packet.
#include <algorithm>
#include <vector>

#include "net/network.h"
#include "net/plane_choice.h"

namespace fabricsim::net {

void Network::fail_link(uint32_t port) {
  for (const uint32_t id : {port, ports_[port].peer}) {
    Port& p = ports_[id];
    PortQueues& q = queues_[id];
    p.up = false;
    ++q.down_count;
    // The pending arrival event (if any) is the head's; the control line drains one event at a
    // time and its frames are discarded on arrival while the cable is down.
    q.quiet_ps = sched_.now();
    if (p.arrive_event_pending && !p.line.empty()) q.quiet_ps = p.line.front().arrive_ps;
    if (!q.ctrl_line.empty()) q.quiet_ps = std::max(q.quiet_ps, q.ctrl_line.back().arrive_ps);
    // What is on the cable is lost; the pending arrival event finds the line empty.
    while (!p.line.empty()) {
      const Packet pkt = p.line.pop_front().pkt;
      if (pkt.type == PacketType::kPause || pkt.type == PacketType::kCredit) continue;
      drop(p.peer, pkt, DropReason::kLinkDown);
    }
    flush_queues(id);
  }
}

int64_t Network::link_quiet_ps(uint32_t port) const {
  return std::max(queues_[port].quiet_ps, queues_[ports_[port].peer].quiet_ps);
}

void Network::restore_link(uint32_t port) {
  const uint32_t ends[2] = {port, ports_[port].peer};
  for (const uint32_t id : ends) ports_[id].up = true;
  for (const uint32_t id : ends) {
    PortQueues& q = queues_[id];
    // PFC: a PAUSE sent before the failure may have been lost; this receiver starts from XON
    // and pauses its peer again if its ingress bytes still call for it.
    set_xoff(id, 0);
    if (!ib_on_) continue;
    // IB link initialization restarts the credit counters (IBA 7.9; reference §1): the sender
    // may use what the far receiver's buffer has free now. Blocks lost on the cable when it
    // failed were counted sent but never received, so a plain continuation would leak them.
    const PortQueues& far = queues_[ports_[id].peer];
    for (int vl = 0; vl < kPriorities; ++vl) {
      q.fc_sent_blocks[vl] = far.rx_freed_blocks[vl] + far.rx_blocks[vl];
      q.fc_limit_blocks[vl] = credit_limit(far, vl);
    }
  }
  for (const uint32_t id : ends) {
    if (ports_[id].is_nic) nic_kick(ports_[id].nic);  // it pulls its transport's data again
  }
}

int Network::remove_from_groups(uint32_t sw_index, uint32_t port) {
  Switch& sw = switches_[sw_index];
  if (is_plane_selector(sw)) return 0;  // a NIC's plane selector follows link state by itself
  const size_t groups = sw.group_offsets.empty() ? 0 : sw.group_offsets.size() - 1;
  std::vector<uint32_t> offsets(1, 0);
  std::vector<uint32_t> members;
  members.reserve(sw.group_ports.size());
  int changed = 0;
  for (size_t g = 0; g < groups; ++g) {
    const uint32_t begin = sw.group_offsets[g];
    const uint32_t end = sw.group_offsets[g + 1];
    const bool has = std::find(sw.group_ports.begin() + begin, sw.group_ports.begin() + end,
                               port) != sw.group_ports.begin() + end;
    const bool others = end - begin > 1;
    for (uint32_t i = begin; i < end; ++i) {
      // The member order is kept: on InfiniBand the first member is the static LFT port, which
      // then becomes the next one (SHIELD's FLFR picks an alternative the same way).
      if (sw.group_ports[i] != port || !others) members.push_back(sw.group_ports[i]);
    }
    changed += has && others;
    offsets.push_back(static_cast<uint32_t>(members.size()));
  }
  if (changed > 0) {
    sw.group_offsets.swap(offsets);
    sw.group_ports.swap(members);
  }
  return changed;
}

}  // namespace fabricsim::net
