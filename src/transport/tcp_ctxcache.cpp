// iWARP connections in the RNICs' context caches (net/nic_context_cache.h, docs/nic.md): the
// offloaded TCP control block and the QP context of every connection live in host memory and
// are cached on the NIC; a packet of an uncached connection waits for a PCIe read.
//   - send: when a NIC's scheduler picks a connection (TcpTransport::pull) it looks the
//     connection up at the sending NIC;
//   - receive: every data segment and ACK looks its connection up at the receiving NIC before
//     it is processed (here), in arrival order.
// Kernel TCP keeps its state in host memory and is refused with the cache on (simulation.cpp).
#include <algorithm>

#include "transport/tcp.h"

namespace fabricsim::transport {

void TcpTransport::set_context_cache(const net::ContextCacheConfig& cfg, int64_t miss_latency_ps) {
  ctx_ = net::NicContextCache(cfg, miss_latency_ps, net_.num_nics());
  for (uint32_t id = 0; id < conns_.size(); ++id) {
    ctx_.add_connection(conns_[id].src_nic, id);
    ctx_.add_connection(conns_[id].dst_nic, id);
  }
}

bool TcpTransport::wait_for_context(uint32_t nic, const net::Packet& p) {
  if (p.type != net::PacketType::kData && p.type != net::PacketType::kAck) return false;
  Nic& n = nics_[nic];
  const int64_t now = sched_.now_ps;
  int64_t ready = ctx_.access_waiting(nic, p.qp, now);
  if (n.rx_wait.empty() && ready <= now) return false;
  // Behind a packet that waits: the receive pipeline processes in arrival order.
  if (!n.rx_wait.empty()) ready = std::max(ready, n.rx_wait.back().arrive_ps);
  n.rx_wait.push_back(net::InFlight{ready, p});
  if (n.rx_wait.size() == 1) sched_.at(ready, kCtxRx, nic);  // one pending event per NIC
  return true;
}

void TcpTransport::on_ctx_rx(uint32_t nic) {
  Nic& n = nics_[nic];
  while (!n.rx_wait.empty() && n.rx_wait.front().arrive_ps <= sched_.now_ps) {
    const net::InFlight w = n.rx_wait.pop_front();
    receive(w.pkt);
  }
  if (!n.rx_wait.empty()) sched_.at(n.rx_wait.front().arrive_ps, kCtxRx, nic);
}

}  // namespace fabricsim::transport
