// Parameters of the NCCL-style collective engine (workload/collective_engine.h) and of NCCL's
// analytic model (workload/nccl_model.h). Every default is NCCL's own value at nccl@5067397
// (NVIDIA/nccl 2.30.7), as collected in docs/reference/nccl.md; the scenario keys collective.*
// (spec/knob_registry_collective.cpp) cite the same files.
#pragma once

#include <array>
#include <cstdint>

namespace fabricsim::workload {

// Indices of the per-protocol arrays, in NCCL's own order (nccl_tuner.h: NCCL_PROTO_LL = 0,
// LL128 = 1, SIMPLE = 2).
inline constexpr int kProtoLL = 0;
inline constexpr int kProtoLL128 = 1;
inline constexpr int kProtoSimple = 2;
inline constexpr int kProtocols = 3;
// Link classes of tuning.cc's hwLatencies[NVLINK|PCI|NET].
inline constexpr int kLinkNvlink = 0;
inline constexpr int kLinkPci = 1;
inline constexpr int kLinkNet = 2;
inline constexpr int kLinkClasses = 3;

// µs -> ps for the tuning.cc tables below (which are in µs).
constexpr int64_t us_to_ps(double us) { return static_cast<int64_t>(us * 1'000'000.0 + 0.5); }

// Latencies of one algorithm (tuning.cc tables), per protocol [LL, LL128, Simple].
struct AlgoLatencies {
  std::array<int64_t, kProtocols> base_ps{};                           // baseLatencies
  std::array<std::array<int64_t, kProtocols>, kLinkClasses> hop_ps{};  // hwLatencies[link][proto]
};

struct CollectiveConfig {
  // Data bytes per wire byte (docs/reference/nccl.md §2.1, device.h): LL carries 8 B of data in a
  // 16 B line (4 B data + 4 B flag per 8 B store), LL128 120 B in a 128 B line, Simple raw data.
  std::array<double, kProtocols> efficiency{0.5, 120.0 / 128.0, 1.0};

  // Per-connection FIFO buffer sizes on the wire (init.cc DEFAULT_LL_BUFFSIZE,
  // DEFAULT_LL128_BUFFSIZE, DEFAULT_BUFFSIZE); a step is buffer / nccl_steps.
  std::array<int64_t, kProtocols> buffer_bytes{524'288, 4'915'200, 4'194'304};
  // FIFO slots per connection (device.h NCCL_STEPS): a sender may be this many steps ahead of
  // the receiver's credit (head) update.
  int nccl_steps = 8;
  // Ring all-reduce / all-gather / reduce-scatter with Simple: a chunk is 4 steps, a slice 2
  // (collectives.h ALLREDUCE_CHUNKSTEPS = NCCL_STEPS/2, ALLREDUCE_SLICESTEPS = NCCL_STEPS/4);
  // everything else 1 and 1 (enqueue.cc calcCollChunking).
  int ring_chunk_steps = 4;
  int ring_slice_steps = 2;
  // A ring whose ranks are all on one node moves its channels as one connection per NVLink
  // pair with weight = channels (collective_plan.h fold_ring_channels): the same shares and
  // ends, a few bytes apart per message, at 1/channels of the messages and events. Off: one
  // connection per channel (as trace.json always records them).
  bool fold_channels = true;
  // In flow mode a ring with one rank per node folds its channels too, into this many lanes of
  // channels / fold_lanes each (docs/collectives.md "Folded channels across nodes"): one lane
  // keeps the channels in lockstep, two let the second half of a step's bytes cover the first
  // half's latency as the unfolded channels do.
  int fold_lanes = 2;
  // In flow mode a send / send_recv / all-to-all connection across nodes posts its part as one
  // message instead of NCCL_P2P_NET_CHUNKSIZE chunks (docs/collectives.md "Folded P2P chunks
  // across nodes"): the flow fabric serves a connection's chunks back to back and the node
  // layer's stages are cut-through, so the chunks' fluid is one flow; off: a message per chunk.
  bool fold_p2p = true;

  // NCCL's channel tuning for small messages (enqueue.cc ncclGetAlgoInfo "Ring/Tree channel
  // tuning"): with the default channel count, channels are dropped while
  // bytes < channels x threads x threshold (ring LL's threshold x nRanks). Thresholds per
  // protocol from comm.h NCCL_{LL,LL128,SIMPLE}_THREAD_THRESHOLD; threads per channel from
  // tuning.cc maxThreads (NCCL_LL_MAX_NTHREADS 512, NCCL_LL128_MAX_NTHREADS 640,
  // NCCL_SIMPLE_MAX_NTHREADS 512 on NVLink nodes). [LL, LL128, Simple].
  std::array<int64_t, kProtocols> thread_threshold_bytes{8, 8, 64};
  std::array<int, kProtocols> threads_per_channel{512, 640, 512};

  // P2P (send, send_recv, all-to-all) step size: NCCL_P2P_NET_CHUNKSIZE across nodes,
  // NCCL_P2P_NVL_CHUNKSIZE inside a node (init.cc P2pNetChunkSize, P2pNvlChunkSize).
  int64_t p2p_net_chunk_bytes = 131'072;
  int64_t p2p_nvl_chunk_bytes = 524'288;
  // P2P uses LL up to this many bytes per channel (enqueue.cc P2pLLThreshold, 16384).
  int64_t p2p_ll_threshold_bytes = 16'384;

  // Channels of collective rings/trees when the spec leaves it 0. NCCL derives it from its
  // topology search; 16 is the coll channel count logged on an 8 x H800 node with NVLS off
  // (nccl#892) -- UNVERIFIED for H100 (commonly 32 there; docs/reference/nccl.md §3).
  int channels = 16;
  // Channels of P2P operations when the spec leaves it 0: one connection per peer pair. NCCL's
  // per-peer channel count is not on the reference sheet (UNVERIFIED); with NCCL_STEPS credits of
  // 128 KiB one connection already covers the bandwidth-delay product of a 400 Gb/s NIC.
  int p2p_channels = 1;

  // tuning.cc ncclTunerConstantsDefaults, µs converted to ps. [LL, LL128, Simple].
  AlgoLatencies tree{{us_to_ps(6.8), us_to_ps(14.0), us_to_ps(8.4)},
                     {{{us_to_ps(0.6), us_to_ps(1.25), us_to_ps(4.0)},     // NVLink
                       {us_to_ps(1.0), us_to_ps(1.9), us_to_ps(4.0)},      // PCI
                       {us_to_ps(5.0), us_to_ps(8.5), us_to_ps(14.0)}}}};  // NET
  AlgoLatencies ring{{us_to_ps(6.6), us_to_ps(14.0), us_to_ps(8.4)},
                     {{{us_to_ps(0.6), us_to_ps(1.9), us_to_ps(3.4)},
                       {us_to_ps(1.0), us_to_ps(2.5), us_to_ps(5.7)},
                       {us_to_ps(2.7), us_to_ps(4.0), us_to_ps(14.0)}}}};
  // Ring latency across nodes: the intra-node hop costs at least the network overhead, x3 for
  // Simple (tuning.cc getNetOverhead: 1 µs on Intel CPUs, 2 µs on AMD; NCCL_NET_OVERHEAD).
  int64_t net_overhead_ps = us_to_ps(1.0);
  // Intra-node hops are NVLink (kLinkNvlink) or PCIe peer-to-peer (kLinkPci) for the latency
  // tables; the transport below decides the bytes' actual path.
  int intra_link_class = kLinkNvlink;
  // NVLink SHARP (NVLS): NCCL_NVLS_ENABLE (default 2 = use it where the node supports it:
  // NVSwitch, sm90+, CUDA multicast; src/transport/nvls.cc ncclNvlsInit). The node decides
  // whether it can (node.nvls); this is NCCL's switch.
  bool nvls_enabled = true;
  // CTAs (channels) of NVLS and NVLS-tree: NVLS_NCHANNELS_SM90 = 16 (nvls.cc ncclNvlsTuning), not
  // reduced for small sizes (enqueue.cc topoGetAlgoInfo).
  int nvls_channels = 16;
  // NCCL_NVLS_CHUNKSIZE = 128 KiB; NVLS-tree on >= 4 nodes caps it at
  // NCCL_NVLSTREE_MAX_CHUNKSIZE's default 64 KiB (nvls.cc ncclNvlsTuning, sm90).
  int64_t nvls_chunk_bytes = 131'072;
  int64_t nvls_tree_chunk_bytes = 65'536;
  // tuning.cc hwLatencies, Simple: NVLS and NVLS-tree 25 us over NVLink, 18 us (NVLS) and
  // 20.9 us (NVLS-tree, per tree level, twice) over the network; baseLatencies 0.
  int64_t nvls_intra_latency_ps = us_to_ps(25.0);
  int64_t nvls_tree_net_latency_ps = us_to_ps(20.9);
  int64_t nvls_net_latency_ps = us_to_ps(18.0);
  // tuning.cc nvlsEfficiency for Hopper (0.85; Blackwell 0.74): the tuner's own figure for
  // what NVLS reaches of the graph's bandwidth. The simulated NVSwitch uses node.nvls_efficiency.
  double nvls_model_efficiency = 0.85;

  // NCCL_COLLNET_ENABLE: use IB SHARP (CollNet) where the fabric offers it (fabric.sharp).
  // NCCL's own default is 0, but a SHARP deployment sets it to 1 with the plugin (HPC-X 2.26
  // "NCCL-RDMA-SHARP Plugins"); a scenario that turns SHARP on wants NCCL to use it.
  bool collnet_enabled = true;
  // tuning.cc hwLatencies, Simple: CollNet Direct 3.7 us NVLink / 31 us NET, CollNet Chain
  // 2.8 / 30 us; with one rank per node the NET entry is the tree's (14 us).
  int64_t collnet_direct_nvlink_latency_ps = us_to_ps(3.7);
  int64_t collnet_direct_net_latency_ps = us_to_ps(31.0);
  int64_t collnet_chain_nvlink_latency_ps = us_to_ps(2.8);
  int64_t collnet_chain_net_latency_ps = us_to_ps(30.0);
  // Messages of SHARP stages: NCCL's 16 channels x NCCL_STEPS x 128 KiB in flight per head are
  // run as one stream of 512 KiB messages, 32 in flight (the same 16 MiB), because every member
  // of a SHARP group must issue its reductions in the same order (docs/collectives.md).
  int64_t collnet_chunk_bytes = 524'288;
  int collnet_window = 32;

  // LL128 may be chosen by `auto` (tuning.cc: enabled on NVLink nodes whose NICs are at most
  // PXB/PXN from the GPU, i.e. DGX/HGX with GPUDirect RDMA).
  bool ll128_enabled = true;
};

}  // namespace fabricsim::workload
