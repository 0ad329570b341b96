// RoceTransport as a transport::Transport (transport.h): received-packet dispatch (the NIC core,
// transport/nic_core.h, dispatches the events), and the idle-path figures the result and node
// layers ask any transport for.
#include "transport/rc.h"

namespace fabricsim::transport {

using net::Packet;
using net::PacketType;

void RoceTransport::receive(uint32_t /*nic*/, const Packet& p) {
  switch (p.type) {
    case PacketType::kData:
      if (p.flags & net::kFlagResponse) {
        on_read_response(p);
      } else {
        on_data(p);
      }
      break;
    case PacketType::kReadRequest:
      on_read_request(p);
      break;
    case PacketType::kAck:
      on_ack(p.qp, p.psn, p.flags & net::kFlagEce);
      break;
    case PacketType::kNak:
      on_nak(p.qp, p.psn);
      break;
    case PacketType::kCnp:
      on_cnp(p.qp);
      break;
    case PacketType::kPause:
    case PacketType::kCredit:
      break;  // PFC and IB flow-control packets are consumed by the link layer (net/)
    case PacketType::kUetControl:
      break;  // UET's (transport/uet.h); never sent on a RoCE/IB fabric
    case PacketType::kSharp:
      break;  // consumed by the network's SHARP engine (net/sharp.cpp), never delivered here
  }
}

int64_t RoceTransport::ideal_fct_ps(int64_t size_bytes, int switch_hops,
                                    const net::LinkConfig& link, const net::SwitchConfig& sw,
                                    const net::NicConfig& nic) const {
  return transport::ideal_fct_ps(size_bytes, switch_hops, cfg_, link, sw, nic);
}

double RoceTransport::payload_rate_bps(int64_t link_rate_bps) const {
  // Line rate x MTU payload / (full-MTU frame + preamble and IFG).
  const auto mtu = static_cast<uint32_t>(cfg_.mtu_bytes);
  const double frame = data_frame_bytes(cfg_, mtu, false, false) + wire_only_bytes(cfg_);
  return static_cast<double>(link_rate_bps) * mtu / frame;
}

}  // namespace fabricsim::transport
