// TCP and iWARP wire sizes, the host stack's copy time and the idle-path completion time built
// from them (declared in transport/tcp.h). Header sizes: IEEE 802.3 (Ethernet 14 + FCS 4, and
// preamble/SFD 8 + IFG 12 on the wire), RFC 791 (IPv4 20), RFC 9293 (TCP 20), RFC 7323 (the
// timestamps option, 10 B padded to 12), RFC 2018 (SACK), RFC 5044 (MPA), RFC 5041 (DDP).
#include <algorithm>

#include "core/time.h"
#include "net/wire.h"
#include "transport/tcp.h"

namespace fabricsim::transport {

namespace {
constexpr uint32_t kMpaLengthBytes = 2;   // RFC 5044 §4.1 ULPDU_Length
constexpr uint32_t kMpaCrcBytes = 4;      // RFC 5044 §4.1 CRC32c
constexpr uint32_t kDdpTaggedBytes = 14;  // RFC 5041 §4.2 + RFC 5040 §4 (RDMA WRITE)
constexpr uint32_t kMpaMarkerBytes = 4;   // RFC 5044 §5: one per 512 B of stream
constexpr uint32_t kMpaMarkerInterval = 512;
constexpr uint32_t kFrameOverheadBytes =
    net::kEthernetHeaderBytes + net::kIpv4HeaderBytes + kTcpHeaderBytes + net::kFcsBytes;  // 70
}  // namespace

uint32_t tcp_mss_bytes(const TcpConfig& cfg) {
  return static_cast<uint32_t>(cfg.mtu_bytes) - net::kIpv4HeaderBytes - kTcpHeaderBytes;
}

uint32_t tcp_segment_tcp_bytes(const TcpConfig& cfg, uint32_t payload_bytes) {
  if (cfg.stack == TcpStack::kKernel) return payload_bytes;
  // FPDU = length 2 + ULPDU (DDP header + payload) + pad to 4 + CRC 4.
  uint32_t fpdu = kMpaLengthBytes + kDdpTaggedBytes + payload_bytes;
  fpdu = (fpdu + 3) / 4 * 4 + kMpaCrcBytes;
  // Markers: one per 512 B of stream the segment covers (rounded up: an upper bound that does
  // not depend on where the segment falls in the stream).
  if (cfg.iwarp_mpa_markers) fpdu += (fpdu + kMpaMarkerInterval - 1) / kMpaMarkerInterval * kMpaMarkerBytes;
  return fpdu;
}

uint32_t tcp_payload_per_segment(const TcpConfig& cfg) {
  const uint32_t mss = tcp_mss_bytes(cfg);
  if (cfg.stack == TcpStack::kKernel) return mss;
  uint32_t p = mss - kMpaLengthBytes - kDdpTaggedBytes - kMpaCrcBytes;
  while (p > 0 && tcp_segment_tcp_bytes(cfg, p) > mss) --p;  // markers / padding
  return p;
}

uint32_t tcp_data_frame_bytes(const TcpConfig& cfg, uint32_t payload_bytes) {
  return std::max(kFrameOverheadBytes + tcp_segment_tcp_bytes(cfg, payload_bytes),
                  net::kMinFrameBytes);
}

uint32_t tcp_ack_frame_bytes(uint32_t sack_blocks) {
  const uint32_t blocks = std::min<uint32_t>(sack_blocks, 3);
  return kFrameOverheadBytes + (blocks > 0 ? 4 + 8 * blocks : 0);
}

int64_t tcp_copy_ps(const TcpConfig& cfg, int64_t bytes) {
  if (cfg.stack != TcpStack::kKernel || cfg.host_copy_rate_bps <= 0 || bytes <= 0) return 0;
  return serialization_ps(bytes, cfg.host_copy_rate_bps);
}

int64_t tcp_ideal_fct_ps(const TcpConfig& cfg, int64_t size_bytes, int switch_hops,
                         const net::LinkConfig& link, const net::SwitchConfig& sw,
                         const net::NicConfig& nic) {
  const int64_t per_seg = tcp_payload_per_segment(cfg);
  const int64_t bytes = std::max<int64_t>(size_bytes, 1);
  const int64_t n = (bytes + per_seg - 1) / per_seg;
  const int64_t last = bytes - (n - 1) * per_seg;
  const int64_t wire_full =
      tcp_data_frame_bytes(cfg, static_cast<uint32_t>(per_seg)) + net::kWireOnlyBytes;
  const int64_t wire_last =
      tcp_data_frame_bytes(cfg, static_cast<uint32_t>(last)) + net::kWireOnlyBytes;
  // Segments back to back at the sender, then the last one's path (as uet_ideal_fct_ps).
  int64_t t = serialization_ps((n - 1) * wire_full + wire_last, link.rate_bps);
  t += static_cast<int64_t>(switch_hops + 1) * link.propagation_ps();
  t += static_cast<int64_t>(switch_hops) * sw.latency_ps + nic.tx_latency_ps + nic.rx_latency_ps;
  if (sw.forwarding == net::Forwarding::kStoreAndForward) {
    t += static_cast<int64_t>(switch_hops) *
         serialization_ps(n == 1 ? wire_last : wire_full, link.rate_bps);
  }
  if (cfg.stack == TcpStack::kKernel) {
    // send(): syscall + copy + the first segment's stack pass, the driver's doorbell and the
    // NIC's descriptor/payload fetch; receive: the payload's DMA into the ring, the last
    // segment's stack pass, wake-up + recv() and the copy out.
    // (The copies are per segment and overlap the wire; for a one-segment message both count.)
    const int64_t first = std::min<int64_t>(std::max<int64_t>(size_bytes, 0), per_seg);
    t += cfg.host_tx_message_ps + cfg.host_tx_segment_ps + tcp_copy_ps(cfg, first) +
         nic.doorbell_ps + nic.dma_read_ps;
    t += nic.mem_write_ps + cfg.host_rx_segment_ps + tcp_copy_ps(cfg, last) +
         cfg.host_rx_message_ps;
  } else {
    // Verbs: as RoCE (post, doorbell, WQE/payload fetch unless inline; DMA write + poll).
    t += nic.send_overhead_ps(size_bytes) + nic.completion_ps();
  }
  return t;
}

}  // namespace fabricsim::transport
