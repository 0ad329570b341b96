// RoCE/IB QP contexts in the NICs' context caches (net/nic_context_cache.h).
//
// Which packets look up which context:
//   - send: when a NIC's scheduler picks a QP to send a data packet (requester) or a READ
//     response (responder), the NIC core (transport/nic_core.h) looks up that QP at the sending
//     NIC; a miss parks the QP until the read completes, and with every read in flight the
//     scheduler waits.
//   - receive: every packet that belongs to a QP (data, READ request and response, ACK, NAK,
//     CNP; has_context here) looks up the QP at the receiving NIC before it is processed. The
//     ACK, NAK or CNP the responder returns follows that look-up, so it finds it cached.
// A QP's context exists at both its NICs (requester and responder side), written at set-up.
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

bool RoceTransport::has_context(const net::Packet& p) {
  switch (p.type) {
    case net::PacketType::kData:
    case net::PacketType::kReadRequest:
    case net::PacketType::kAck:
    case net::PacketType::kNak:
    case net::PacketType::kCnp:
      return true;
    default:
      return false;  // link-layer and other transports' frames belong to no QP
  }
}

}  // namespace fabricsim::transport
