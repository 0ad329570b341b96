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

// How a switch decides that a lossless ingress priority group (PG) must send XOFF.
enum class PfcThreshold : uint8_t {
  // Shared-buffer MMU (Broadcom, NVIDIA Spectrum; the SONiC/SAI buffer model): a PG fills the
  // switch's shared pool while its occupancy is below alpha x (free shared pool) and sends XOFF
  // when it crosses that; what arrives after lands in the PG's own headroom, reserved out of the
  // switch buffer for every (port, lossless priority).
  kDynamic,
  // A fixed per-port share: XOFF = switch buffer / ports - headroom (or the explicit keys).
  kStatic,
};

// IEEE 802.1Qbb priority flow control, per (ingress port, lossless priority).
struct PfcConfig {
  bool enabled = false;
  uint8_t lossless_mask = 1u << 3;  // priorities that PFC protects (RoCE data: 3, NVIDIA default)
  PfcThreshold threshold = PfcThreshold::kDynamic;
  // Dynamic threshold of a lossless PG: XOFF once its shared-pool bytes reach alpha x the free
  // shared pool. SAI SHARED_DYNAMIC_TH n sets alpha = 2^n; SONiC's lossless PG profiles use
  // n = 0 on NVIDIA Spectrum (device/mellanox/.../ACS-MSN4700/pg_profile_lookup.ini, the
  // "threshold" column) and on Broadcom (device/common/profiles/th2,th4/.../pg_profile_lookup.ini),
  // so alpha = 1.
  double alpha = 1.0;
  // Dynamic mode XON (SAI saibuffer.h, SAI_BUFFER_PROFILE_ATTR_XON_OFFSET_TH): RESUME once the
  // PG's headroom is empty and its bytes <= max(XON_TH, limit - xon_offset), limit being the
  // dynamic threshold of now. 2288 bytes: SONiC's xon and xon_offset on Broadcom TH4 and NVIDIA
  // SN4600 (pg_profile_lookup.ini); Broadcom TH2 RDMA-CENTRIC uses xon_offset 2496.
  int64_t xon_offset_bytes = 2288;
  int64_t dynamic_xon_bytes = 2288;  // XON_TH of the dynamic mode (fabric.pfc.xon overrides it)
  // Static mode: buffer an ingress port may fill per lossless priority before it drops: XOFF
  // threshold plus headroom. 0 = the switch's shared buffer divided evenly among its ports.
  int64_t port_buffer_bytes = 0;
  // Headroom above XOFF that absorbs what is in flight after a PAUSE is sent. 0 = the Linux mlx5
  // driver's calculate_xoff() (drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c), in its
  // integer arithmetic: (301 + 216 x len_m / 100) x speed_Mbps / 1000 + 272 x MTU / 100, with
  // the cable length in whole metres (rounded up here) and the speed at least 40 Gb/s.
  int64_t headroom_bytes = 0;
  // Static mode: XOFF = port buffer - headroom and XON = XOFF - MTU (SPEC §8; mlx5 commit
  // e28408e98bce "Update xon formula"), unless set (0 = derived).
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
  // NVIDIA Spectrum switches' RoCE defaults: Cumulus Linux default_ecn_red_conf
  // min_threshold_bytes 150000, max_threshold_bytes 1500000, probability 100 (Cumulus Linux 5.x
  // user guide, Quality of Service, ECN); NVIDIA Onyx `show roce`: ecn absolute, min 150,
  // max 1500 (KB). The previous default, SPEC §5's example 100 KiB / 400 KiB / 0.2 (close to
  // HPCC's "Alibaba production" 100 KB / 400 KB / 0.2 at 25 Gb/s), stays reachable through
  // fabric.ecn.kmin/kmax/pmax, or with DCQCN as the hpcc-paper profile.
  int64_t kmin_bytes = 150'000;
  int64_t kmax_bytes = 1'500'000;
  double pmax = 1.0;  // Cumulus "probability 100": every ECT packet is marked at Kmax
  // InfiniBand CC (IBA Annex A10): a port whose VL is held back by credits is a victim of
  // congestion further on, not its root, and marks nothing unless its Victim_Mask bit is set
  // (OpenSM's cc_sw_cong_setting_victim_mask is all zero by default).
  bool skip_credit_victims = false;
  // IB CC Marking_Rate: eligible packets left unmarked between two marks (0: mark every one).
  uint16_t mark_gap = 0;
};

// UEC packet trimming (issue 11; docs/reference/uet-sim.md §4): a lossy data packet that the
// switch would drop for lack of buffer is cut to its first `header_bytes` and forwarded in the
// `priority` class (strict priority above data) so that the receiver learns of the loss one
// one-way delay later and NACKs it. Only packets of a class in `mask` are trimmed.
// Which packet a full data queue trims.
//   kArrival:         the arriving packet, the one the switch would discard (NVIDIA Spectrum-4
//                     packet trimming, Cumulus Linux 5.14+ "Packet Trimming": "trims and forwards
//                     packets that are about to be discarded"; SAI packet-trim proposal: queue
//                     stat TRIM_PACKETS "trimmed due to failed admission").
//   kArrivalOrNewest: uet-htsim's CompositeQueue::receivePacket: with probability 1/2 the
//                     arrival, otherwise the newest queued data packet is trimmed and the
//                     arrival admitted (spreads the loss over the flows already queued).
enum class TrimVictim : uint8_t { kArrival, kArrivalOrNewest };

struct TrimConfig {
  bool enabled = false;
  uint8_t mask = 1u << 3;
  // 64 B: uet-htsim's trimmed header (`-trimsize`, main_uec.cpp); the UEC spec value was not
  // found (UNVERIFIED); SONiC deployments configure 256 B (reference uet.md).
  uint16_t header_bytes = 64;
  uint8_t priority = 7;  // the header queue: above data, as htsim's CompositeQueue high class
  TrimVictim victim = TrimVictim::kArrival;
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
  // Per-port limit on the bytes queued in one lossy class, on top of the shared buffer's dynamic
  // threshold; 0 = none (the shared buffer alone, as a Spectrum/Tomahawk MMU). uet-htsim gives
  // every port a private queue of 1 x BDP with trimming (5 x BDP without): set this to compare.
  // With trimming on, the trimmed-header class may hold 2 x this (htsim's header-queue limit,
  // CompositeQueue::receivePacket).
  int64_t port_queue_bytes = 0;
  PfcConfig pfc;
  EcnConfig ecn;
  TrimConfig trim;
};

// One entry of a VL arbitration table (IBA VLArbitrationTable, attribute 0x0018): the VL and
// its weight in 64-byte units (0 skips the entry).
struct VlArbEntry {
  uint8_t vl = 0;
  uint8_t weight = 0;
};

// IBA Vol 1 §7.9 link-level flow control: credits are 64-byte blocks, and FCTBS / FCCL are
// 12-bit counts compared modulo 4096 (reference §1; Wireshark packet-infiniband.c field masks).
// A sender may send N blocks while (FCCL - (FCTBS + N)) mod 4096 <= 2048, so a limit further
// ahead than 2048 blocks would read as "behind": the receiver advertises FCCL = ABR + min(free
// blocks, 2048), ABR being the blocks it has received (the reference's cap, UNVERIFIED in the
// spec text; the 12-bit fields and 64-byte blocks are verified). The 2048 blocks = 128 KiB are a
// window on the blocks in flight between a sender and the receiver's ABR, not a bound on what
// the receiver holds: its buffer may be larger, and then fills as blocks arrive (net/credits.cpp;
// docs/calibration.md "The credit window"). The same half-range construction bounds PCIe credits.
inline constexpr int64_t kIbCreditBytes = 64;
inline constexpr int64_t kIbMaxAdvertisedBlocks = 2048;
inline constexpr int64_t kIbCreditWindowBytes = kIbMaxAdvertisedBlocks * kIbCreditBytes;  // 128 KiB
// Receive buffer of a ConnectX port: "Port buffer size = 262016" bytes in the mlx5 sysfs
// qos/buffer_size dump of NVIDIA's "HowTo Tune Receive Buffers on Mellanox Adapter Cards"
// (community.mellanox.com DOC-2933, Ethernet mode, MLNX_OFED 4.2+). That InfiniBand mode shares
// the same port buffer among its data VLs, and ConnectX-6/7's size, are UNVERIFIED.
inline constexpr int64_t kConnectXPortBufferBytes = 262016;

// The InfiniBand link layer (shared/reference/infiniband.md §1-2). When enabled every port uses
// credit-based flow control per VL instead of Ethernet's drop/PFC admission, and VL arbitration
// instead of strict priority. Packets carry their VL in Packet::priority.
struct IbLinkConfig {
  bool enabled = false;
  // Receive buffer per (switch port, data VL), in 64-byte credits. 0 = the switch's shared
  // buffer split evenly over its ports and data VLs (a static share: a Mellanox switch lends a
  // VL's overflow from a public pool, US patent 10,079,782, which this does not model). No public
  // per-port / per-VL buffer size of an NVIDIA Quantum or Quantum-2 switch was found
  // (UNVERIFIED). Mellanox's OMNeT++ IB model uses 1000 credits per port ("Is4", InfiniScale IV)
  // and 32 per VL in its fat-tree examples (ib_model modules.ini, examples/*/fat-tree.ini):
  // reachable by setting this key.
  int64_t vl_buffer_bytes = 0;
  // The same for a channel adapter's (HCA) receiving port. 0 = the ConnectX port buffer
  // (kConnectXPortBufferBytes) split over the data VLs.
  int64_t hca_vl_buffer_bytes = 0;
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
// application sees it. Where each part of a perftest latency goes: docs/calibration.md.
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
