// iWARP connections in the RNICs' context caches (net/nic_context_cache.h, docs/nic.md): the
// offloaded TCP control block and the QP context of every connection live in host memory and
// are cached on the NIC; a packet of an uncached connection waits for a PCIe read.
//   - send: when a NIC's scheduler picks a connection (the NIC core, transport/nic_core.h) it
//     looks the connection up at the sending NIC;
//   - receive: every data segment and ACK (TcpTransport::has_context) looks its connection up
//     at the receiving NIC before it is processed, in arrival order.
// Kernel TCP keeps its state in host memory and is refused with the cache on (simulation.cpp).
#include "transport/tcp.h"

namespace fabricsim::transport {

void TcpTransport::set_context_cache(const net::ContextCacheConfig& cfg, int64_t miss_latency_ps) {
  ctx_ = net::NicContextCache(cfg, miss_latency_ps, net_.num_nics());
  for (uint32_t id = 0; id < conns_.size(); ++id) {
    ctx_.add_connection(conns_[id].src_nic, id);
    ctx_.add_connection(conns_[id].dst_nic, id);
  }
}

}  // namespace fabricsim::transport
