#include "resolve/tcp_setup.h"

#include <algorithm>

#include "core/time.h"
#include "net/wire.h"
#include "transport/tcp.h"

namespace fabricsim::scenario {

int64_t tcp_base_rtt_ps(const Scenario& sc) {
  const int64_t links = 2 * std::max(1, sc.topology.tiers);
  const transport::TcpConfig& t = sc.tcp;
  const int64_t data_wire =
      transport::tcp_data_frame_bytes(t, transport::tcp_payload_per_segment(t)) +
      net::kWireOnlyBytes;
  const int64_t ack_wire = transport::tcp_ack_frame_bytes(0) + net::kWireOnlyBytes;
  return 2 * (links * sc.link.propagation_ps() + (links - 1) * sc.switch_config.latency_ps +
              sc.nic.tx_latency_ps + sc.nic.rx_latency_ps) +
         links * (serialization_ps(data_wire, sc.link.rate_bps) +
                  serialization_ps(ack_wire, sc.link.rate_bps));
}

int64_t tcp_dctcp_k_bytes(const Scenario& sc) {
  if (sc.tcp.dctcp_k_bytes > 0) return sc.tcp.dctcp_k_bytes;
  const int64_t frame = transport::tcp_data_frame_bytes(
      sc.tcp, transport::tcp_payload_per_segment(sc.tcp));
  const int64_t bdp = static_cast<int64_t>(static_cast<__int128>(tcp_base_rtt_ps(sc)) *
                                           sc.link.rate_bps / (8 * kPsPerSecond));
  const int64_t k = (bdp + 6) / 7;
  return std::max<int64_t>(1, (k + frame - 1) / frame) * frame;
}

void configure_tcp(Scenario& sc) {
  sc.tcp.stack = sc.technology == Technology::kIwarp ? transport::TcpStack::kIwarp
                                                     : transport::TcpStack::kKernel;
  // Ordinary lossy Ethernet: TCP recovers its own losses (fabric.pfc.enabled is RoCE's).
  sc.switch_config.pfc.enabled = false;
  net::EcnConfig& ecn = sc.switch_config.ecn;
  ecn.mask = static_cast<uint8_t>(1u << sc.tcp.data_priority);
  if (sc.tcp.cc == transport::TcpCc::kDctcp) {
    // RFC 8257 §4 / the DCTCP paper: mark every packet that finds the queue above K (step:
    // kmin = kmax = K, probability 1).
    ecn.kmin_bytes = ecn.kmax_bytes = tcp_dctcp_k_bytes(sc);
    ecn.pmax = 1.0;
  }
  if (sc.tcp.stack == transport::TcpStack::kIwarp) {
    sc.nic.tx_latency_ps += sc.tcp.iwarp_tx_extra_ps;
    sc.nic.rx_latency_ps += sc.tcp.iwarp_rx_extra_ps;
  } else {
    sc.node.gpudirect = false;
  }
}

}  // namespace fabricsim::scenario
