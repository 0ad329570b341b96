// RoCE/IB QP contexts in the NICs' context caches (net/nic_context_cache.h).
//
// Which packets look up which context:
//   - send: when a NIC's scheduler picks a QP to send a data packet (requester) or a READ
//     response (responder), RoceTransport::pull() looks up that QP at the sending NIC; a miss
//     parks the QP until the read completes, and with every read in flight the scheduler waits.
//   - receive: every packet that belongs to a QP (data, READ request and response, ACK, NAK,
//     CNP) looks up the QP at the receiving NIC before it is processed (here). The ACK, NAK or
//     CNP the responder returns follows that look-up, so it finds the context cached.
// A QP's context exists at both its NICs (requester and responder side), written at set-up.
#include <algorithm>

#include "transport/rc.h"

namespace fabricsim::transport {

void RoceTransport::set_context_cache(const net::ContextCacheConfig& cfg,
                                      int64_t miss_latency_ps) {
  ctx_ = net::NicContextCache(cfg, miss_latency_ps, net_.num_nics());
  for (uint32_t id = 0; id < qps_.size(); ++id) {  // QPs created before (none when REQUIRES held)
    ctx_.add_connection(qps_[id].src_nic, id);
    ctx_.add_connection(qps_[id].dst_nic, id);
  }
}

uint32_t RoceTransport::next_entry(Nic& n, uint32_t nic, int64_t now_ps) {
  if (!n.active.empty() && ctx_.read_slot_free(nic, now_ps)) return n.active.pop_front();
  if (!n.ctx_wait.empty() && n.ctx_wait.front().ready_ps <= now_ps) {
    return n.ctx_wait.pop_front().entry;
  }
  return n.active.empty() ? kNoMessage : n.active.pop_front();
}

bool RoceTransport::context_ready(Nic& n, uint32_t nic, uint32_t entry, uint32_t qp_id,
                                  int64_t now_ps, int64_t& earliest, bool& stall) {
  const net::ContextAccess a = ctx_.access(nic, qp_id, now_ps);
  if (a.ready_ps <= now_ps) return true;
  earliest = std::min(earliest, a.ready_ps);
  if (a.engine_busy) {  // nothing issued: it keeps its turn in the round-robin
    n.active.push_back(entry);
    stall = true;
    return false;
  }
  // Its read is under way: park it. Reads complete in issue order, so the parked list stays in
  // completion order (a read issued earlier for a received packet may complete sooner: it then
  // waits for the one ahead, never longer than one read).
  const int64_t ready = n.ctx_wait.empty() ? a.ready_ps
                                           : std::max(a.ready_ps, n.ctx_wait.back().ready_ps);
  n.ctx_wait.push_back(WaitingTx{ready, entry});
  return false;
}

bool RoceTransport::wait_for_context(uint32_t nic, const net::Packet& p) {
  switch (p.type) {
    case net::PacketType::kData:
    case net::PacketType::kReadRequest:
    case net::PacketType::kAck:
    case net::PacketType::kNak:
    case net::PacketType::kCnp:
      break;
    default:
      return false;  // link-layer and other transports' frames belong to no QP
  }
  Nic& n = nics_[nic];
  const int64_t now = sched_.now_ps;
  int64_t ready = ctx_.access_waiting(nic, p.qp, now);
  if (n.rx_wait.empty() && ready <= now) return false;
  // Behind a packet that waits: the receive pipeline processes in arrival order.
  if (!n.rx_wait.empty()) ready = std::max(ready, n.rx_wait.back().ready_ps);
  n.rx_wait.push_back(WaitingRx{ready, p});
  if (n.rx_wait.size() == 1) sched_.at(ready, kCtxRx, nic);  // one pending event per NIC
  return true;
}

void RoceTransport::on_ctx_rx(uint32_t nic) {
  Nic& n = nics_[nic];
  while (!n.rx_wait.empty() && n.rx_wait.front().ready_ps <= sched_.now_ps) {
    const WaitingRx w = n.rx_wait.pop_front();
    receive(nic, w.pkt);
  }
  if (!n.rx_wait.empty()) sched_.at(n.rx_wait.front().ready_ps, kCtxRx, nic);
}

}  // namespace fabricsim::transport
