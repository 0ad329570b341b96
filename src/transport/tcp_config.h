// TCP transport configuration (fabric.tcp.*, technology tcp or iwarp). Facts and sources are in
// docs/transports.md "TCP" and "iWARP"; each default names its source here and in
// spec/knob_registry_tcp.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "core/time.h"

namespace fabricsim::transport {

// Congestion control of every connection (Linux net.ipv4.tcp_congestion_control).
//   kNewReno: RFC 5681 slow start / congestion avoidance, RFC 6582 recovery with RFC 6675 SACK
//             loss detection; data sent Not-ECT (no ECN).
//   kDctcp:   RFC 8257: ECT(0) data, the receiver echoes CE exactly (ECE), the sender keeps
//             alpha (g = 1/16) and cuts cwnd by alpha/2 once per window of marks.
//   kCubic:   RFC 9438 (Linux's default): cubic window growth W(t) = C (t - K)^3 + W_max with
//             C = 0.4, beta 0.7, fast convergence and the Reno-friendly region; data Not-ECT.
//             HyStart is not modelled (slow start as NewReno's).
//   kScheme:  a rule registered through transport/tcp_window_cc.h, named by cc_scheme; its data
//             is ECN-capable and the receiver echoes CE exactly, as DCTCP's (whether the switches
//             mark is fabric.ecn.marking's).
enum class TcpCc : uint8_t { kNewReno, kDctcp, kCubic, kScheme };

// Where the stack runs (set from fabric.technology, not a knob of its own).
//   kKernel: kernel sockets on the host CPU: per-message syscalls, per-segment protocol work,
//            copies between user and kernel buffers (host_* costs below).
//   kIwarp:  TCP offloaded into the NIC with RDMA semantics (RFC 5040 RDMAP / RFC 5041 DDP /
//            RFC 5044 MPA): verbs posting, zero-copy placement, MPA/DDP framing in every segment.
enum class TcpStack : uint8_t { kKernel, kIwarp };

struct TcpConfig {
  TcpStack stack = TcpStack::kKernel;
  TcpCc cc = TcpCc::kDctcp;
  std::string cc_scheme;  // cc kScheme: the registered rule (fabric.tcp.cc_scheme)
  // IP MTU. 1500: the Ethernet payload size (IEEE 802.3 / RFC 894); MSS = MTU - IPv4 20 (RFC 791)
  // - TCP 20 (RFC 9293) - timestamps option 12 (RFC 7323 §3: 10 B + 2 NOP) = 1448 B.
  int mtu_bytes = 1500;
  // RFC 6928: initial window of 10 segments (Linux TCP_INIT_CWND 10).
  int init_cwnd_segments = 10;
  // Connections per (source NIC, destination NIC) pair, opened together with the pair's first
  // message; messages take them in turn. 1: one connection per peer (the model's unit, NCCL's
  // socket transport opens one per peer and channel); more reproduce applications with a
  // connection per thread or queue (iWARP connection scaling, docs/nic.md).
  int connections_per_pair = 1;
  // Receive window: Linux net.ipv4.tcp_rmem max 6291456 B (Documentation/networking/
  // ip-sysctl.rst, the autotuning ceiling). The receiving application reads at once, so the
  // window is always the whole buffer.
  int64_t rwnd_bytes = 6291456;
  // RTO floor. Linux TCP_RTO_MIN = HZ/5 = 200 ms (include/net/tcp.h); RFC 6298 §2.4 says 1 s.
  // Linux's value: it is what a kernel socket does (datacenters lower it per route with
  // `ip route ... rto_min`; fabric.tcp.rto_min sets it).
  int64_t rto_min_ps = 200 * kPsPerMs;
  // RTO before the first RTT sample: RFC 6298 §2.1 and Linux TCP_TIMEOUT_INIT, 1 s.
  int64_t rto_initial_ps = 1000 * kPsPerMs;
  // RTO ceiling: Linux TCP_RTO_MAX 120 s (RFC 6298 §2.5 allows a maximum of at least 60 s).
  int64_t rto_max_ps = 120'000 * kPsPerMs;
  // Delayed ACKs (RFC 5681 §4.2: at least every second full-sized segment, within 500 ms): the
  // timer is Linux's TCP_DELACK_MIN = HZ/25 = 40 ms (include/net/tcp.h). 0 = ACK every segment.
  int64_t delack_ps = 40 * kPsPerMs;
  int ack_every_segments = 2;  // RFC 5681 §4.2 "every second full-sized segment"
  // Linux quick-ack mode: a connection's first segments are ACKed at once (TCP_MAX_QUICKACKS 16,
  // include/net/tcp.h), so slow start is not slowed by the delayed-ACK timer.
  int quickacks = 16;
  // DCTCP (RFC 8257 §3.3): alpha gain g = 1/16 (Linux dctcp_shift_g 4) and initial alpha 1
  // (Linux dctcp_alpha_on_init = DCTCP_MAX_ALPHA).
  double dctcp_g = 1.0 / 16;
  double dctcp_initial_alpha = 1.0;
  // The DCTCP marking threshold K at the switch (step marking: fabric.ecn.kmin = kmax = K).
  // 0 = derived: C x RTT / 7 (Alizadeh et al., SIGCOMM 2010 §3.3, the least K that keeps the
  // link busy), rounded up to whole full frames (resolve/tcp_setup.cpp).
  int64_t dctcp_k_bytes = 0;
  int data_priority = 0;  // 802.1p class of TCP segments and ACKs (best effort)
  // Phase-effect randomisation: the sender acts on each ACK after a random time, uniform in
  // [0, one full frame's serialization at its link rate]. Without it identical senders behind
  // one drop-tail queue lock each other out deterministically (one flow's segments always find
  // the queue full). Measured (tests/transport/tcp_test.cpp's two NewReno flows, 100 KB port
  // queue, RTO floor 1 ms): off, one flow gets 0 Gb/s over 5-10 ms and 5 RTOs fire; on, 2 RTOs
  // and 47.5 / 46.7 Gb/s over the same 5 ms. Floyd & Jacobson, "On
  // Traffic Phase Effects in Packet-Switched Gateways" (1992), add such a random processing time
  // at the source (ns-2's Agent/TCP overhead_); the exact bound is this model's choice.
  bool phase_jitter = true;

  // ---- host stack costs (kernel sockets; zero for iwarp, whose NIC does this work) ----
  // Per message on the sender: the send() syscall and socket layer (tcp_sendmsg) up to the
  // driver's doorbell. UNVERIFIED order of magnitude, see docs/transports.md "TCP".
  int64_t host_tx_message_ps = 2 * kPsPerUs;
  // Per message on the receiver: interrupt, softirq wake-up of the blocked reader and the
  // recv() syscall. UNVERIFIED order of magnitude.
  int64_t host_rx_message_ps = 5 * kPsPerUs;
  // Per segment of protocol work (TCP/IP + driver), with TSO/GRO amortising. UNVERIFIED.
  int64_t host_tx_segment_ps = 100 * kPsPerNs;
  int64_t host_rx_segment_ps = 150 * kPsPerNs;
  // User <-> kernel copy bandwidth of one core (copy_from_user / copy_to_user). UNVERIFIED:
  // ~10 GB/s per core is the order that Cai et al., "Understanding Host Network Stack
  // Overheads" (SIGCOMM 2021) find data copy to limit a single flow to.
  int64_t host_copy_rate_bps = 80'000'000'000;  // 10 GB/s

  // ---- iWARP NIC (RNIC) processing beyond the NIC profile's RoCE pipeline, per packet ----
  // The TCP offload engine's extra per-segment work (state lookup, MPA CRC32c, DDP placement).
  // UNVERIFIED: Chelsio quotes ~1.5 us end-to-end RDMA latency for T5 (chelsio.com/nic/
  // rdma-iwarp) and "sub 1 us through hardware" for T6; against ConnectX RoCE's ~1 us that
  // leaves a few hundred ns per side.
  int64_t iwarp_tx_extra_ps = 250 * kPsPerNs;
  int64_t iwarp_rx_extra_ps = 250 * kPsPerNs;
  // MPA markers every 512 B of the TCP stream (RFC 5044 §5): negotiated off in practice: Linux
  // iw_cxgb4 (drivers/infiniband/hw/cxgb4/cm.c) has markers_enabled default 0 ("Enable MPA
  // MARKERS (default(0)=disabled)") and crc_enabled default 1, so the CRC is counted and the
  // markers are not.
  bool iwarp_mpa_markers = false;
};

}  // namespace fabricsim::transport
