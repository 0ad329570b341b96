// RoCEv2 RC transport configuration.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/time.h"
#include "transport/dctcp_rdma.h"
#include "transport/swift.h"
#include "transport/timely.h"

namespace fabricsim::transport {

// kIbCc: InfiniBand congestion control (IBA Annex A10, transport/ib_cc.h); kScheme: a scheme
// registered through the interface (transport/rate_cc.h), named by RoceConfig::cc_scheme;
// kTimely: TIMELY (transport/timely.h); kHpcc: HPCC (transport/hpcc.h), a window and a rate
// driven by in-band telemetry. New kinds go last so that the values of the others stay.
enum class CongestionControl : uint8_t {
  kNone, kDcqcn, kIbCc, kScheme, kTimely, kHpcc, kSwift, kDctcp
};

// Per-field overrides of a DCQCN profile (transport/dcqcn.h DcqcnParams); unset = the profile's.
struct DcqcnOverrides {
  std::optional<int64_t> min_rate_bps;
  std::optional<double> g;
  std::optional<double> initial_alpha;
  std::optional<int64_t> alpha_interval_ps;
  std::optional<bool> alpha_update_on_cnp;
  std::optional<int64_t> rate_decrease_interval_ps;
  std::optional<int64_t> rate_increase_timer_ps;
  std::optional<int64_t> byte_counter_bytes;
  std::optional<int> fast_recovery_steps;
  std::optional<bool> stage_counts_current_step;
  std::optional<int64_t> ai_rate_bps;
  std::optional<int64_t> hai_rate_bps;
  std::optional<double> min_decrease_factor;
  std::optional<bool> hyper_increase_scales;
  std::optional<bool> clamp_target_rate;
  std::optional<int64_t> cnp_interval_ps;
};

// Per-field overrides of TIMELY's defaults (transport/timely.h TimelyParams, fabric.roce.timely.*);
// unset = timely_defaults(line rate).
struct TimelyOverrides {
  std::optional<int64_t> delta_bps;
  std::optional<double> beta;
  std::optional<double> alpha;
  std::optional<int64_t> t_low_ps;
  std::optional<int64_t> t_high_ps;
  std::optional<int64_t> min_rtt_ps;
  std::optional<int> hai_n;
  std::optional<int> hai_after;
  std::optional<int64_t> min_rate_bps;
};

// Per-field overrides of HPCC's defaults (transport/hpcc.h hpcc_defaults); unset = the default.
struct HpccOverrides {
  std::optional<double> eta;
  std::optional<int> max_stage;
  std::optional<int64_t> rate_ai_bps;
  std::optional<int64_t> min_rate_bps;
  std::optional<int64_t> base_rtt_ps;  // T; unset: the fabric's largest base RTT between hosts
};

// Per-field overrides of Swift's defaults (transport/swift.h swift_defaults, fabric.roce.swift.*);
// unset = the default for the fabric's base RTT and BDP.
struct SwiftOverrides {
  std::optional<int64_t> base_rtt_ps;  // unset: the fabric's largest base RTT between hosts
  std::optional<int64_t> base_target_ps;
  std::optional<int64_t> per_hop_ps;
  std::optional<double> ai_pkts;
  std::optional<double> beta;
  std::optional<double> max_mdf;
  std::optional<int64_t> fs_range_ps;
  std::optional<double> fs_min_cwnd;
  std::optional<double> fs_max_cwnd;
  std::optional<double> min_cwnd;
  std::optional<double> max_cwnd;
  std::optional<int> retx_reset;
};

// Per-field overrides of DCTCP-on-RDMA's defaults (transport/dctcp_rdma.h, fabric.roce.dctcp.*).
struct DctcpRdmaOverrides {
  std::optional<double> g;
  std::optional<int64_t> rate_ai_bps;
  std::optional<int64_t> min_rate_bps;
  std::optional<int64_t> base_rtt_ps;  // unset: the fabric's largest base RTT between hosts
};

// Protective Load Balancing (Qureshi et al., SIGCOMM 2022; Linux net/ipv4/tcp_plb.c): after
// enough consecutive congested rounds the sender picks a new UDP source port (a new ECMP path).
// A round is congested when congested_fraction of its acknowledged packets echoed CE, or when a
// CNP reached the requester in it: under DCQCN the CNP is the requester's congestion signal, and
// DCQCN's pacing and RED marking keep the echoed fraction far below 0.5 (issue 22 item 5;
// docs/load-balancing.md "PLB").
struct PlbConfig {
  bool enabled = false;
  double congested_fraction = 0.5;  // a round is congested when >= this fraction was CE-marked
                                    // (tcp_plb_cong_thresh 128/256)
  int rehash_rounds = 12;           // repath after this many congested rounds in a row
                                    // (tcp_plb_rehash_rounds)
  int idle_rehash_rounds = 3;       // or after this many when nothing is in flight
                                    // (tcp_plb_idle_rehash_rounds)
};

// What carries the verbs: RoCEv2 frames on Ethernet or native InfiniBand packets (set from
// fabric.technology, not a knob of its own).
enum class LinkLayer : uint8_t { kEthernet, kInfiniband };
// IBTA transport services modelled (reference infiniband.md §5); RD is obsolete in practice
// (no current HCA implements it) and is refused by the scenario layer.
enum class Service : uint8_t { kRc, kUc, kUd };
// The verb a workload's messages use.
enum class Operation : uint8_t { kWrite, kSend, kRead };

// RDMA transport configuration: the RoCEv2 knobs (fabric.roce.*), which InfiniBand shares
// except where fabric.ib.* says otherwise.
struct RoceConfig {
  LinkLayer link_layer = LinkLayer::kEthernet;
  Service service = Service::kRc;
  Operation operation = Operation::kWrite;
  // Responder accepts packets out of PSN order within a window and places them (ConnectX-5+
  // "out-of-order data placement", reference §4), as adaptive routing needs; off = go-back-N
  // responder that NAKs a gap.
  bool out_of_order = false;
  // How many packets ahead of the expected PSN the out-of-order responder can hold (its reorder
  // buffer). An arrival beyond it makes the responder fall back to go-back-N: it NAKs the
  // expected PSN and discards what it held (transport/rc_spray.cpp). ConnectX's limit is not
  // public (UNVERIFIED); 4096 packets (16 MiB at a 4 KiB MTU) keeps the bitmap at 512 bytes per
  // reordering QP. Below 2^23: a 24-bit PSN space can only tell half of it ahead from behind.
  int reorder_buffer_packets = 4096;
  // Per-packet spraying (fabric.roce.spray): every data packet of a QP carries a new UDP source
  // port, so ECMP switches spread one QP over all equal-cost paths with no change in the switches.
  // The ports cycle through `spray_paths` values, each used once per round in an order redrawn
  // every round (uet-htsim's oblivious spraying, UecMpOblivious::nextEntropy; its -paths default
  // 64, docs/reference/uet-sim.md §3): no RoCE NIC documents a spraying sequence (UNVERIFIED).
  bool spray = false;
  int spray_paths = 64;  // a power of two, at most the 2^14 ports of RoCEv2's 0xC000 range
  // QPs between each (source, destination, SL); successive messages of the pair take them in
  // turn (all created with the pair's first message). 1 = NCCL_IB_QPS_PER_CONNECTION's
  // default; more QPs per NIC is what the context-cache scenarios (net/nic_context_cache.h) need.
  int qps_per_pair = 1;
  // InfiniBand: the service level of the workload's traffic and the VL it maps to at every port
  // (one SL2VL table fabric-wide, net::IbLinkConfig).
  int sl = 0;
  // RDMA payload bytes per packet (the path MTU). 4096 is the largest RoCE/IB MTU (SPEC §8).
  int mtu_bytes = 4096;
  // ACK coalescing, a property of the NIC's RC engine and the same on both fabrics
  // (fabric.nic.ack_every): the requester sets the BTH AckReq bit on every ack_every-th packet and
  // on each message's last packet, and the responder returns a (cumulative) ACK for exactly those
  // packets (IBTA 9.7.5.1; reference infiniband.md §5). 1 = AckReq on every packet: ConnectX's
  // QP context field log_ack_req_freq ("ACK required bit will be set in every 2^AckReqFreq packets
  // at least", Mellanox PRM; mlx5_ifc.h qpc.log_ack_req_freq) at 0. Verbs QPs (NCCL's) are
  // set up by the mlx5 kernel driver's modify path, which leaves the field 0 (UNVERIFIED: no
  // write of it found there); NVIDIA's own code that writes it explicitly uses 0 too (mlx5 core
  // steering dr_send.c, rdma-core's DR provider, NVSHMEM IBGDA "Ack every packet"); the HPCC
  // simulator also ACKs every packet (L2_ACK_INTERVAL 1). Sources that coalesce: UCX's DevX QPs
  // and the mlx5 FPGA connection set 8 (AckReq every 256 packets), the mlx4 driver
  // MLX4_IB_ACK_REQ_FREQ 8, soft-RoCE rxe every 64: set fabric.nic.ack_every 256 or 64 for those.
  int ack_every = 1;
  // Local ACK Timeout = 4.096 us x 2^exponent (IBTA; Linux rxe_qp.c). 20 (4.29 s) is what a
  // training job's QPs use: NCCL sets it from NCCL_IB_TIMEOUT, default 20 (NVIDIA/nccl
  // src/transport/net_ib/connect.cc, NCCL_PARAM(IbTimeout, "IB_TIMEOUT", 20), NCCL 2.30).
  // perftest uses 14 (~67 ms; perftest_parameters.h DEF_QP_TIME 14): set 14 to model it.
  int ack_timeout_exponent = 20;
  // Consecutive retransmit timeouts without progress before the QP goes to the error state and
  // its unfinished messages are reported as failed: the IBTA 3-bit retry_cnt. 7 is NCCL's
  // default (NCCL_PARAM(IbRetryCnt, "IB_RETRY_CNT", 7), same file) and perftest's.
  int retry_count = 7;
  int64_t retransmit_timeout_ps() const {
    return (4096ll * kPsPerNs) << ack_timeout_exponent;  // 4.096 us = 4096 ns
  }
  // Whether frames carry an 802.1Q tag (+4 bytes). Off: DSCP-based priority, the common RoCE
  // deployment (NVIDIA "RoCE configuration" guides use DSCP trust mode).
  bool vlan_tag = false;
  // Priority (traffic class) of RoCE data/ACKs and of CNPs; 3 and 6 are NVIDIA's defaults.
  int data_priority = 3;
  int cnp_priority = 6;
  // Congestion control at the sender; DCQCN (SPEC §8) reacts to CNPs from the receiver.
  CongestionControl cc = CongestionControl::kNone;
  std::string dcqcn_profile = "nvidia-default";  // SPEC §8 names three; see transport/dcqcn.h
  std::string cc_scheme;  // cc kScheme: the registered scheme's name (fabric.roce.cc_scheme)
  DcqcnOverrides dcqcn;
  TimelyOverrides timely;  // fabric.roce.timely.*
  // cc kTimely: the defaults with `timely` applied (resolve/resolve.cpp); the QPs' RPs point at
  // this copy (the transport keeps cfg_ for its lifetime).
  TimelyParams timely_params;
  HpccOverrides hpcc;
  SwiftOverrides swift;  // fabric.roce.swift.*
  // cc kSwift: the defaults with `swift` applied (resolve/swift_setup.cpp); the QPs point at this
  // copy, as at timely_params.
  SwiftParams swift_params;
  DctcpRdmaOverrides dctcp;  // fabric.roce.dctcp.*
  DctcpRdmaParams dctcp_params;  // cc kDctcp: resolved (resolve/swift_setup.cpp), as swift_params
  PlbConfig plb;
};

}  // namespace fabricsim::transport
