// UET wire sizes and the idle-path completion time built from them (declared in transport/uet.h).
// Header lengths: Wireshark epan/dissectors/packet-uet.c @ 2e69f352 (its header cites
// UE-Specification-1.0.1): UET_PDS_RUD_ROD_MIN_HDR_LEN 12, UET_PDS_RUD_ROD_CC_MIN_HDR_LEN 16,
// UET_PDS_ACK_EXT_HDR_SIZE 20 (ACK_CC = 12 + 20), UET_SES_STD_MIN_HDR_LEN 44; UDP destination
// port 4793 (UDP_PORT_UET). With UDP encapsulation the EV is the UDP source port (uet-sim.md §6).
#include <algorithm>

#include "core/time.h"
#include "net/wire.h"
#include "transport/uet.h"

namespace fabricsim::transport {

namespace {
constexpr uint32_t kPdsRequestBytes = 12;    // RUD_REQ / ROD_REQ
constexpr uint32_t kPdsCcRequestBytes = 16;  // RUD_CC_REQ: + ccc_id and 24-bit credit_target
constexpr uint32_t kSesStandardBytes = 44;   // SES standard request header
constexpr uint32_t kPdsAckCcBytes = 12 + 20;
// NACK: prologue 2 + code 1 + vendor code 1 + NACK PSN 4 + SPDCID 2 + DPDCID 2 + max received
// PSN + 1 (4) = 16 (field list: Wireshark hf_uet_pds_nack_*); a CREDIT/CREDIT_REQ control
// packet is taken at the same 16 B (UNVERIFIED: the dissector's control layout was not checked
// field by field). Both frames are below 64 B and padded to the Ethernet minimum.
constexpr uint32_t kPdsNackBytes = 16;
constexpr uint32_t kUdpIpEthBytes = net::kEthernetHeaderBytes + net::kIpv4HeaderBytes +
                                    net::kUdpHeaderBytes + net::kFcsBytes;

uint32_t min_frame(uint32_t b) { return std::max(b, net::kMinFrameBytes); }
}  // namespace

uint32_t uet_data_overhead_bytes(const UetConfig& cfg) {
  if (cfg.header_bytes > 0) return static_cast<uint32_t>(cfg.header_bytes);
  return kUdpIpEthBytes + (cfg.rccc ? kPdsCcRequestBytes : kPdsRequestBytes) + kSesStandardBytes;
}

uint32_t uet_data_frame_bytes(const UetConfig& cfg, uint32_t payload_bytes) {
  const uint32_t f = payload_bytes + uet_data_overhead_bytes(cfg);
  return cfg.header_bytes > 0 ? f : min_frame(f);
}

uint32_t uet_ack_frame_bytes(const UetConfig& cfg) {
  if (cfg.header_bytes > 0) return static_cast<uint32_t>(cfg.header_bytes);
  return min_frame(kUdpIpEthBytes + kPdsAckCcBytes);
}

uint32_t uet_control_frame_bytes(const UetConfig& cfg) {
  if (cfg.header_bytes > 0) return static_cast<uint32_t>(cfg.header_bytes);
  return min_frame(kUdpIpEthBytes + kPdsNackBytes);
}

int64_t uet_ideal_fct_ps(const UetConfig& cfg, int64_t size_bytes, int switch_hops,
                         const net::LinkConfig& link, const net::SwitchConfig& sw,
                         const net::NicConfig& nic) {
  const int64_t mtu = cfg.mtu_bytes;
  const int64_t n = size_bytes <= 0 ? 1 : (size_bytes + mtu - 1) / mtu;
  const int64_t last = size_bytes - (n - 1) * mtu;
  const int64_t wire_full = uet_data_frame_bytes(cfg, static_cast<uint32_t>(mtu)) + net::kWireOnlyBytes;
  const int64_t wire_last =
      uet_data_frame_bytes(cfg, static_cast<uint32_t>(std::max<int64_t>(last, 0))) +
      net::kWireOnlyBytes;
  // Every packet back to back at the sender, then the last one's path: propagation per cable,
  // latency per switch, the NIC pipelines, plus per-message post and completion overheads.
  int64_t t = serialization_ps((n - 1) * wire_full + wire_last, link.rate_bps);
  t += static_cast<int64_t>(switch_hops + 1) * link.propagation_ps();
  t += static_cast<int64_t>(switch_hops) * sw.latency_ps + nic.tx_latency_ps + nic.rx_latency_ps;
  t += nic.send_overhead_ps(size_bytes) + nic.completion_ps();
  if (sw.forwarding == net::Forwarding::kStoreAndForward) {
    t += static_cast<int64_t>(switch_hops) *
         serialization_ps(n == 1 ? wire_last : wire_full, link.rate_bps);
  }
  return t;
}

}  // namespace fabricsim::transport
