// Wire sizes of the transport's packets and the ideal completion time built from them (declared
// in transport/rc.h): what a message costs on an idle path, per link layer, service and verb.
#include "transport/rc.h"

#include "net/wire.h"

namespace fabricsim::transport {

uint32_t packets_for(int64_t size_bytes, int mtu_bytes) {
  return size_bytes <= 0 ? 1 : static_cast<uint32_t>((size_bytes + mtu_bytes - 1) / mtu_bytes);
}

namespace {
uint32_t frame_bytes_after_bth(const RoceConfig& cfg, uint32_t after_bth) {
  return cfg.link_layer == LinkLayer::kInfiniband ? net::ib_packet_bytes(after_bth)
                                                  : net::roce_frame_bytes(after_bth, cfg.vlan_tag);
}
}  // namespace

int64_t posted_bytes(const RoceConfig& cfg, int64_t size_bytes) {
  return cfg.operation == Operation::kRead ? 0 : size_bytes;
}

uint32_t data_frame_bytes(const RoceConfig& cfg, uint32_t payload_bytes, bool first, bool last) {
  uint32_t after_bth = payload_bytes + net::bth_pad_bytes(payload_bytes);
  if (cfg.service == Service::kUd) {
    after_bth += net::kDethBytes;  // every UD packet names its Q_Key and source QP
  } else if (cfg.operation == Operation::kWrite && first) {
    after_bth += net::kRethBytes;  // RDMA WRITE FIRST/ONLY carries the RETH
  } else if (cfg.operation == Operation::kRead && (first || last)) {
    after_bth += net::kAethBytes;  // READ RESPONSE FIRST/LAST/ONLY carry the AETH
  }
  return frame_bytes_after_bth(cfg, after_bth);
}

uint32_t read_request_frame_bytes(const RoceConfig& cfg) {
  return frame_bytes_after_bth(cfg, net::kRethBytes);
}

uint32_t wire_only_bytes(const RoceConfig& cfg) {
  return cfg.link_layer == LinkLayer::kInfiniband ? 0 : net::kWireOnlyBytes;
}

int64_t ideal_fct_ps(int64_t size_bytes, int switch_hops, const RoceConfig& roce,
                     const net::LinkConfig& link, const net::SwitchConfig& sw,
                     const net::NicConfig& nic) {
  const uint32_t n = packets_for(size_bytes, roce.mtu_bytes);
  const int64_t last_payload = size_bytes - static_cast<int64_t>(n - 1) * roce.mtu_bytes;
  // Every frame's wire bytes: the first and the last carry their own headers (RETH, AETH), the
  // n - 2 between are alike (a closed form: flow mode asks this once per message).
  const int64_t gap = wire_only_bytes(roce);
  int64_t wire = 0;
  if (n == 1) {
    wire = data_frame_bytes(roce, static_cast<uint32_t>(last_payload), true, true) + gap;
  } else {
    const uint32_t mtu = static_cast<uint32_t>(roce.mtu_bytes);
    wire = data_frame_bytes(roce, mtu, true, false) + gap +
           static_cast<int64_t>(n - 2) * (data_frame_bytes(roce, mtu, false, false) + gap) +
           data_frame_bytes(roce, static_cast<uint32_t>(last_payload), false, true) + gap;
  }
  // The largest frame is the first (it carries the RETH or AETH) unless the message is one packet.
  const uint32_t largest_wire =
      data_frame_bytes(roce, n == 1 ? static_cast<uint32_t>(last_payload) : roce.mtu_bytes, true,
                       n == 1) +
      wire_only_bytes(roce);
  int64_t t = serialization_ps(wire, link.rate_bps);
  t += static_cast<int64_t>(switch_hops + 1) * link.propagation_ps();
  t += static_cast<int64_t>(switch_hops) * sw.latency_ps + nic.tx_latency_ps + nic.rx_latency_ps;
  // Once per message: the sender's post overhead before the first packet, the receiver's
  // completion after the last (NicConfig; every NIC of a scenario shares one config).
  t += nic.send_overhead_ps(posted_bytes(roce, size_bytes)) + nic.completion_ps();
  if (sw.forwarding == net::Forwarding::kStoreAndForward) {
    // A store-and-forward pipeline adds the largest frame's time once per switch.
    t += static_cast<int64_t>(switch_hops) * serialization_ps(largest_wire, link.rate_bps);
  }
  if (roce.operation == Operation::kRead) {
    // The responses start once the request has crossed the path one way.
    const int64_t request_wire = read_request_frame_bytes(roce) + wire_only_bytes(roce);
    t += serialization_ps(request_wire, link.rate_bps) +
         static_cast<int64_t>(switch_hops + 1) * link.propagation_ps() +
         static_cast<int64_t>(switch_hops) * sw.latency_ps + nic.tx_latency_ps +
         nic.rx_latency_ps;
    if (sw.forwarding == net::Forwarding::kStoreAndForward) {
      t += static_cast<int64_t>(switch_hops) * serialization_ps(request_wire, link.rate_bps);
    }
  }
  return t;
}

}  // namespace fabricsim::transport
