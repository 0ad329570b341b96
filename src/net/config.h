// Configuration of links, switches and NICs, frozen before a run starts.
#pragma once

#include <cstdint>

#include "core/time.h"

namespace fabricsim::net {

// Propagation speed in copper/fibre: about 5 ns per metre (SPEC §8; light at ~0.68 c).
inline constexpr int64_t kPropagationPsPerMetre = 5000;

struct LinkConfig {
  int64_t rate_bps = 400'000'000'000;  // SPEC §5 example: 400 Gb/s (NDR-class Ethernet port)
  double cable_m = 3.0;                // SPEC §5 example: 3 m in-rack / adjacent-rack cable
  // Probability that a data frame is corrupted on a link crossing and discarded by the receiver
  // (bit errors after FEC). 0 by default: a healthy link; set it to study lossy RoCE.
  double loss_rate = 0.0;
  int64_t propagation_ps() const {
    return static_cast<int64_t>(cable_m * kPropagationPsPerMetre + 0.5);
  }
};

enum class Forwarding : uint8_t { kCutThrough, kStoreAndForward };

// IEEE 802.1Qbb priority flow control, per (ingress port, lossless priority).
struct PfcConfig {
  bool enabled = false;
  uint8_t lossless_mask = 1u << 3;  // priorities that PFC protects (RoCE data: 3, NVIDIA default)
  // Buffer an ingress port may fill per lossless priority before it drops: XOFF threshold plus
  // headroom. 0 = the switch's shared buffer divided evenly among its ports.
  int64_t port_buffer_bytes = 0;
  // Headroom above XOFF that absorbs what is in flight after a PAUSE is sent. 0 = the Linux mlx5
  // driver formula (SPEC §8): (301 + 2.16 x cable_m) x speed_Gbps + 2.72 x MTU bytes.
  int64_t headroom_bytes = 0;
  // XOFF = port buffer - headroom and XON = XOFF - MTU (SPEC §8), unless set (0 = derived).
  int64_t xoff_bytes = 0;
  int64_t xon_bytes = 0;
  // Pause time carried by a PAUSE frame, in quanta of 512 bit times; the sender refreshes it at
  // half that period while still congested (as ns3-rdma does). 65535 is the field's maximum.
  int pause_quanta = 65535;
  // PFC watchdog: a switch egress queue paused continuously this long is declared stormed; it
  // then ignores PAUSE for that class and drops what is queued and what arrives for it until no
  // PAUSE has arrived for one more period. 0 = off. Typical 100-400 ms (SPEC §8).
  int64_t watchdog_ps = 0;
  int mtu_bytes = 4096;  // the RoCE MTU, for the headroom formula and XON (set by the scenario)
};

// RED-style ECN marking on egress queue length (SPEC §4): probability 0 below Kmin, rising
// linearly to Pmax at Kmax, 1 above Kmax; applied when a packet leaves the queue, as HPCC's
// switch model does (shared/reference/rocev2.md §1).
struct EcnConfig {
  bool enabled = false;
  uint8_t mask = 1u << 3;  // priorities that are marked
  int64_t kmin_bytes = 100 << 10;  // SPEC §5 example
  int64_t kmax_bytes = 400 << 10;
  double pmax = 0.2;
};

struct SwitchConfig {
  // Port-to-port latency. SPEC §8: Ethernet cut-through switches add roughly 400-600 ns;
  // 450 ns is the SPEC §5 example value.
  int64_t latency_ps = 450 * kPsPerNs;
  // Shared packet buffer per switch. 64 MiB: NVIDIA Spectrum-3/4 class (SPEC §5 example).
  int64_t buffer_bytes = 64ll << 20;
  // Dynamic-threshold alpha (Choudhury & Hahne, "Dynamic queue length thresholds for
  // shared-memory packet switches", IEEE/ACM ToN 1998): a queue may grow while its length is
  // below alpha x (free shared buffer). alpha = 1 is the common Broadcom default setting.
  double dt_alpha = 1.0;
  // Cut-through begins forwarding when the header arrives; it applies only when a switch's
  // ports all run at one rate (a real switch falls back to store-and-forward otherwise).
  Forwarding forwarding = Forwarding::kCutThrough;
  PfcConfig pfc;
  EcnConfig ecn;
};

// One entry of a VL arbitration table (IBA VLArbitrationTable, attribute 0x0018): the VL and
// its weight in 64-byte units (0 skips the entry).
struct VlArbEntry {
  uint8_t vl = 0;
  uint8_t weight = 0;
};

// The InfiniBand link layer (shared/reference/infiniband.md §1-2). When enabled every port uses
// credit-based flow control per VL instead of Ethernet's drop/PFC admission, and VL arbitration
// instead of strict priority. Packets carry their VL in Packet::priority.
struct IbLinkConfig {
  bool enabled = false;
  // Receive buffer per (receiving port, data VL), advertised as credits of 64 bytes. 0 = the
  // switch's shared buffer split evenly over its ports and the operational VLs: no public
  // per-VL buffer sizes exist (reference §1 UNVERIFIED), and the same split is PFC's default.
  int64_t vl_buffer_bytes = 0;
  int data_vls = 1;  // operational data VLs (OpenSM max_op_vls is 5; what the SL2VL map uses)
  // SL -> VL, one table for every port (OpenSM programs the same map on all ports unless QoS
  // policy says otherwise). OpenSM default sl2vl 0,1,...,14,7 folded onto the operational VLs.
  uint8_t sl_to_vl[16] = {};
  // VL arbitration (OpenSM defaults, reference §2: vlarb_high 0:4, vlarb_low 1:4..14:4,
  // high_limit 0); the scenario fills them.
  VlArbEntry vlarb_high[16] = {};
  int vlarb_high_count = 0;
  VlArbEntry vlarb_low[16] = {};
  int vlarb_low_count = 0;
  // High-priority bytes (units of 4 KiB) sent before a waiting low-priority packet gets a turn;
  // 255 = unbounded, 0 = one packet (OpenSM QoS doc, reference §2).
  int high_limit = 0;
  // Head-of-queue lifetime of a switch port: a VL whose head packet has waited this long for
  // credits is declared stalled, its queue discarded and its arrivals dropped for 8 lifetimes
  // (IBA VL stall; OpenSM head_of_queue_lifetime 0x12 = 4.096 us x 2^18 ~ 1.07 s, UNVERIFIED).
  int64_t hoq_lifetime_ps = 4096ll * 1000 << 18;
};

// A NIC and its host, per NIC class (net/nic_profile.h names the classes and the sources of
// their values). Per-packet costs are pipeline delays charged where a packet crosses the NIC
// (net/network.cpp); per-message costs are charged by the transport (transport/rc.cpp) once per
// message: after the post before its first packet, and after its last byte before the
// application sees it. Where each part of a perftest latency goes: docs/calibration.d/nic.md.
struct NicConfig {
  // Per packet: from the transport engine to the first bit on the wire (send pipeline), and from
  // the last bit off the wire to the transport engine (receive pipeline: the responder's ACK and
  // the payload's write toward host memory start there).
  int64_t tx_latency_ps = 0;
  int64_t rx_latency_ps = 0;
  // Per message, before the first packet: the host's post (ibv_post_send: build the WQE, memory
  // barrier), the doorbell's PCIe crossing (an MMIO write; with BlueFlame it carries the WQE and,
  // for an inline message, its data), and for a message larger than inline_max_bytes the PCIe
  // read round trip that fetches the WQE and the first payload (later payload reads pipeline
  // behind the wire).
  int64_t host_post_ps = 0;
  int64_t doorbell_ps = 0;
  int64_t dma_read_ps = 0;
  int64_t inline_max_bytes = 0;
  // Per message, after its last byte reached the NIC: the PCIe posted write of the payload (and
  // completion entry) into host memory, and the polling host noticing it.
  int64_t mem_write_ps = 0;
  int64_t host_poll_ps = 0;
  // Receive buffer that fills only while the NIC is stalled (a fault): the NIC sends PAUSE at
  // the switch's XOFF rule applied to this buffer, and drops beyond it. 1 MiB: order of a
  // ConnectX port buffer (UNVERIFIED; only the stall scenarios depend on it).
  int64_t rx_buffer_bytes = 1 << 20;

  // What a message waits between its post and its first packet's entering the send pipeline.
  int64_t send_overhead_ps(int64_t size_bytes) const {
    return host_post_ps + doorbell_ps + (size_bytes > inline_max_bytes ? dma_read_ps : 0);
  }
  // What a message's receiver waits between its last byte's arrival at the transport engine and
  // seeing the data (perftest's ib_write_lat polls the last byte of the buffer).
  int64_t completion_ps() const { return mem_write_ps + host_poll_ps; }
};

}  // namespace fabricsim::net
