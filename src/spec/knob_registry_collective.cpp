// Registry entries of the NCCL-style collective engine (collective.*), binding
// Scenario::collective (workload/collective_config.h). Every default is NCCL's own at
// nccl@5067397 (NVIDIA/nccl 2.30.7) as collected in docs/reference/nccl.md; each source names
// the NCCL file it comes from.
#include <string>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

using workload::AlgoLatencies;
using knob_bind::positive;
using knob_bind::non_negative;
const char* const proto_key[] = {"ll", "ll128", "simple"};
const char* const proto_name[] = {"LL", "LL128", "Simple"};
const char* const buffer_src[] = {
    "nccl@5067397 src/init.cc DEFAULT_LL_BUFFSIZE = 8 lines x 512 threads x 8 steps x 16 B",
    "nccl@5067397 src/init.cc DEFAULT_LL128_BUFFSIZE = 120 x 640 threads x 8 steps x 8 B",
    "nccl@5067397 src/init.cc DEFAULT_BUFFSIZE (NCCL_BUFFSIZE) = 4 MiB"};
const char* const eff_src[] = {
    "nccl@5067397 src/include/device.h ncclLLFifoLine: 8 B data per 16 B line",
    "nccl@5067397 src/include/device.h NCCL_LL128_DATAELEMS / LINEELEMS = 15/16",
    "raw data (nccl@5067397 src/transport/net.cc: completion via head/tail)"};
const char* const thr_src[] = {"nccl@5067397 src/include/comm.h NCCL_LL_THREAD_THRESHOLD = 8",
                               "nccl@5067397 src/include/comm.h NCCL_LL128_THREAD_THRESHOLD = 8",
                               "nccl@5067397 src/include/comm.h NCCL_SIMPLE_THREAD_THRESHOLD = 64"};
const char* const nt_src[] = {"nccl@5067397 src/include/device.h NCCL_LL_MAX_NTHREADS = 512",
                              "nccl@5067397 src/include/device.h NCCL_LL128_MAX_NTHREADS = 640",
                              "nccl@5067397 src/include/device.h NCCL_SIMPLE_MAX_NTHREADS = 512 "
                              "(tuning.cc: 256 when the ring is no faster than PCIe)"};
const Bound lat_max{static_cast<double>(kMaxDeviceLatencyPs)};
const char* const link_key[] = {"nvlink", "pci", "net"};

struct LatencyTable {
  const char* name;
  AlgoLatencies workload::CollectiveConfig::*field;
};

// collective.efficiency.<protocol> and collective.buffer.<protocol>, per protocol.
std::vector<Knob> protocol_fifo_knobs() {
  std::vector<Knob> k;
  for (int p = 0; p < workload::kProtocols; ++p) {
    k.push_back(bind(
        {.path = std::string("collective.efficiency.") + proto_key[p],
         .type = KnobType::kDouble,
         .description = std::string("Data bytes per wire byte of ") + proto_name[p] +
                        " (wire bytes = data / efficiency)",
         .source = eff_src[p],
         .min = positive,
         .max = Bound{1}},
        [p](auto& s) -> auto& { return s.collective.efficiency[p]; }));
    k.push_back(bind(
        {.path = std::string("collective.buffer.") + proto_key[p],
         .type = KnobType::kBytes,
         .description = std::string("Wire bytes of one ") + proto_name[p] +
                        " connection FIFO; a step is buffer / nccl_steps",
         .source = buffer_src[p],
         .min = Bound{64}},
        [p](auto& s) -> auto& { return s.collective.buffer_bytes[p]; }));
  }
  return k;
}

// collective.thread_threshold.<protocol> and collective.threads.<protocol>, per protocol.
std::vector<Knob> protocol_thread_knobs() {
  std::vector<Knob> k;
  for (int p = 0; p < workload::kProtocols; ++p) {
    k.push_back(bind(
        {.path = std::string("collective.thread_threshold.") + proto_key[p],
         .type = KnobType::kBytes,
         .description = std::string("Bytes per thread below which ") + proto_name[p] +
                        " drops a default channel (channels x threads x this; ring LL "
                        "x ranks)",
         .source = thr_src[p],
         .min = non_negative},
        [p](auto& s) -> auto& { return s.collective.thread_threshold_bytes[p]; }));
    k.push_back(bind(
        {.path = std::string("collective.threads.") + proto_key[p],
         .type = KnobType::kInt,
         .description = std::string("GPU threads per channel of ") + proto_name[p] +
                        " in the small-message channel rule",
         .source = nt_src[p],
         .min = Bound{1},
         .max = Bound{1024}},
        [p](auto& s) -> auto& { return s.collective.threads_per_channel[p]; }));
  }
  return k;
}

// collective.latency.<ring|tree>.base.<protocol> and .<link class>.<protocol>: NCCL's latency
// tables.
std::vector<Knob> latency_knobs() {
  std::vector<Knob> k;
  for (const LatencyTable& t : {LatencyTable{"ring", &workload::CollectiveConfig::ring},
                                LatencyTable{"tree", &workload::CollectiveConfig::tree}}) {
    for (int p = 0; p < workload::kProtocols; ++p) {
      k.push_back(bind(
          {.path = std::string("collective.latency.") + t.name + ".base." + proto_key[p],
           .type = KnobType::kTime,
           .description = std::string("NCCL baseLatency of ") + t.name + " / " + proto_name[p] +
                          ", charged once per collective before the first step",
           .source = "nccl@5067397 src/graph/tuning.cc ncclTunerConstantsDefaults.baseLatencies",
           .min = non_negative,
           .max = lat_max},
          [ f = t.field, p ](auto& s) -> auto& { return (s.collective.*f).base_ps[p]; }));
      for (int l = 0; l < workload::kLinkClasses; ++l) {
        k.push_back(bind(
            {.path = std::string("collective.latency.") + t.name + "." + link_key[l] + "." +
                     proto_key[p],
             .type = KnobType::kTime,
             .description = std::string("NCCL per-hop latency of ") + t.name + " / " +
                            proto_name[p] + " over " + link_key[l] +
                            "; the engine charges it minus the transport's own idle time of "
                            "the hop, floored at 0",
             .source = "nccl@5067397 src/graph/tuning.cc ncclTunerConstantsDefaults.hwLatencies",
             .min = non_negative,
             .max = lat_max},
            [ f = t.field, p, l ](auto& s) -> auto& { return (s.collective.*f).hop_ps[l][p]; }));
      }
    }
  }
  return k;
}

const std::vector<Knob> kCollectiveKnobs = knob_bind::concat({
    {bind(
         {.path = "collective.channels",
          .type = KnobType::kInt,
          .description = "Channels (independent rings / tree pairs, each with its own "
                         "share of the buffer) of a collective whose spec leaves it 0; "
                         "reduced so every channel has at least 1 B per rank",
          .source = "UNVERIFIED: 16 coll channels logged on 8 x H800 with NVLS off "
                    "(nccl#892); commonly 32 on HGX H100 (docs/reference/nccl.md §3)",
          .min = Bound{1},
          .max = Bound{64}},
         [](auto& s) -> auto& { return s.collective.channels; }),
     bind(
         {.path = "collective.p2p_channels",
          .type = KnobType::kInt,
          .description = "Connections per peer pair of send, send_recv and all_to_all "
                         "whose spec leaves channels 0",
          .source = "UNVERIFIED: NCCL's per-peer channel count is not on the "
                    "reference sheet; one connection with NCCL_STEPS credits covers a "
                    "400G NIC's bandwidth-delay product",
          .min = Bound{1},
          .max = Bound{64}},
         [](auto& s) -> auto& { return s.collective.p2p_channels; }),
     bind(
         {.path = "collective.nccl_steps",
          .type = KnobType::kInt,
          .description = "FIFO slots per connection: a sender may run this many steps "
                         "ahead of the receiver's credit (head) update",
          .source = "nccl@5067397 src/include/device.h NCCL_STEPS = 8",
          .min = Bound{1},
          .max = Bound{32}},
         [](auto& s) -> auto& { return s.collective.nccl_steps; }),
     bind(
         {.path = "collective.ring_chunk_steps",
          .type = KnobType::kInt,
          .description = "Steps per chunk (a rank's block per ring loop) of Simple ring "
                         "all-reduce / all-gather / reduce-scatter",
          .source = "nccl@5067397 src/include/collectives.h ALLREDUCE_CHUNKSTEPS = "
                    "NCCL_STEPS/2",
          .min = Bound{1},
          .max = Bound{32}},
         [](auto& s) -> auto& { return s.collective.ring_chunk_steps; }),
     bind(
         {.path = "collective.ring_slice_steps",
          .type = KnobType::kInt,
          .description = "Steps per slice (one message) of Simple ring all-reduce / "
                         "all-gather / reduce-scatter; a credit frees this many slots",
          .source = "nccl@5067397 src/include/collectives.h ALLREDUCE_SLICESTEPS = "
                    "NCCL_STEPS/4",
          .min = Bound{1},
          .max = Bound{32}},
         [](auto& s) -> auto& { return s.collective.ring_slice_steps; })},
    protocol_fifo_knobs(),
    protocol_thread_knobs(),
    {bind(
         {.path = "collective.p2p_net_chunk",
          .type = KnobType::kBytes,
          .description = "Message size of send / send_recv / all_to_all across nodes",
          .source = "nccl@5067397 src/init.cc P2pNetChunkSize (NCCL_P2P_NET_CHUNKSIZE)"
                    " = 128 KiB",
          .min = positive},
         [](auto& s) -> auto& { return s.collective.p2p_net_chunk_bytes; }),
     bind(
         {.path = "collective.p2p_nvl_chunk",
          .type = KnobType::kBytes,
          .description = "Message size of send / send_recv / all_to_all inside a node",
          .source = "nccl@5067397 src/init.cc P2pNvlChunkSize (NCCL_P2P_NVL_CHUNKSIZE)"
                    " = 512 KiB",
          .min = positive},
         [](auto& s) -> auto& { return s.collective.p2p_nvl_chunk_bytes; }),
     bind(
         {.path = "collective.p2p_ll_threshold",
          .type = KnobType::kBytes,
          .description = "Point-to-point operations use LL up to this many bytes per "
                         "channel when the protocol is auto",
          .source = "nccl@5067397 src/enqueue.cc P2pLLThreshold "
                    "(NCCL_P2P_LL_THRESHOLD) = 16384",
          .min = non_negative},
         [](auto& s) -> auto& { return s.collective.p2p_ll_threshold_bytes; })},
    latency_knobs(),
    {bind(
         {.path = "collective.net_overhead",
          .type = KnobType::kTime,
          .description = "Rings across nodes: each intra-node hop costs at least this "
                         "(x3 for Simple)",
          .source = "nccl@5067397 src/graph/tuning.cc getNetOverhead: 1 us on Intel "
                    "CPUs (2 us on AMD); NCCL_NET_OVERHEAD",
          .min = non_negative,
          .max = lat_max},
         [](auto& s) -> auto& { return s.collective.net_overhead_ps; }),
     bind_enum(
         {.path = "collective.intra_link",
          .description = "Latency table of intra-node hops: nvlink (NVLink/NVSwitch) or pci "
                         "(PCIe peer-to-peer)",
          .source = "nccl@5067397 src/graph/tuning.cc hwLatencies[NVLINK|PCI]; DGX/HGX nodes are "
                    "NVLink (docs/reference/gpu-node.md)"},
         std::vector<std::pair<std::string, int>>{{"nvlink", workload::kLinkNvlink},
                                                  {"pci", workload::kLinkPci}},
         [](auto& s) -> auto& { return s.collective.intra_link_class; }),
     bind(
         {.path = "collective.fold_channels",
          .type = KnobType::kBool,
          .description = "A ring all-reduce / all-gather / reduce-scatter on one node moves "
                         "its channels as one connection per NVLink pair weighted by the "
                         "channel count: the same link shares and ends (a few bytes apart per "
                         "message), channels x fewer messages; off when trace.json is written",
          .source = "fabricsim: exact by the channels' symmetry on one NVSwitch node "
                    "(docs/collectives.md \"Folded channels\"); off: one connection per "
                    "channel, as NCCL runs them"},
         [](auto& s) -> auto& { return s.collective.fold_channels; }),
     bind(
         {.path = "collective.fold_lanes",
          .type = KnobType::kInt,
          .description = "Flow mode, with fold_channels: a ring with one rank per node "
                         "moves its channels as this many connections across the fabric, "
                         "each weighted by the channels it carries (the flow fabric keeps one "
                         "connection per NIC pair); at least the channel count: unfolded",
          .source = "fabricsim: measured against unfolded flow and packet mode "
                    "(docs/collectives.md \"Folded channels across nodes\")",
          .min = Bound{1},
          .max = Bound{64}},
         [](auto& s) -> auto& { return s.collective.fold_lanes; }),
     bind(
         {.path = "collective.fold_p2p",
          .type = KnobType::kBool,
          .description = "Flow mode, with fold_channels: a send / send_recv / all-to-all "
                         "connection across nodes posts its bytes as one message instead of "
                         "P2P chunks (the flow fabric serves a connection's chunks back to "
                         "back, cut-through from PCIe); off: one message per chunk",
          .source = "fabricsim: measured against unfolded flow and packet mode "
                    "(docs/collectives.md \"Folded P2P chunks across nodes\")"},
         [](auto& s) -> auto& { return s.collective.fold_p2p; }),
     bind(
         {.path = "collective.ll128",
          .type = KnobType::kBool,
          .description = "Protocol auto may choose LL128 (NCCL enables it on NVLink "
                         "nodes whose NICs are within PXB/PXN of the GPU)",
          .source = "nccl@5067397 src/graph/tuning.cc LL128 enablement "
                    "(docs/reference/nccl.md §2.3 rule 10)"},
         [](auto& s) -> auto& { return s.collective.ll128_enabled; }),
     bind(
         {.path = "collective.nvls",
          .type = KnobType::kBool,
          .description = "Algorithm auto may choose NVLS (one node) and NVLS-tree (across "
                         "nodes) for all-reduce where the node supports NVLink SHARP "
                         "(node.nvls)",
          .source = "nccl@5067397 src/transport/nvls.cc NCCL_NVLS_ENABLE (default 2: use it "
                    "where CUDA multicast is supported)"},
         [](auto& s) -> auto& { return s.collective.nvls_enabled; }),
     bind(
         {.path = "collective.nvls_channels",
          .type = KnobType::kInt,
          .description = "Channels (CTAs) of NVLS and NVLS-tree, whatever the size",
          .source = "nccl@5067397 src/transport/nvls.cc NVLS_NCHANNELS_SM90 = 16",
          .min = Bound{1},
          .max = Bound{64}},
         [](auto& s) -> auto& { return s.collective.nvls_channels; }),
     bind(
         {.path = "collective.nvls_chunk",
          .type = KnobType::kBytes,
          .description = "Chunk of NVLS and NVLS-tree per head and channel (one message)",
          .source = "nccl@5067397 src/transport/nvls.cc NCCL_NVLS_CHUNKSIZE = 128 KiB",
          .min = positive},
         [](auto& s) -> auto& { return s.collective.nvls_chunk_bytes; }),
     bind(
         {.path = "collective.nvls_tree_chunk",
          .type = KnobType::kBytes,
          .description = "NVLS-tree chunk cap on 4 or more nodes",
          .source = "nccl@5067397 src/transport/nvls.cc NCCL_NVLSTREE_MAX_CHUNKSIZE default: "
                    "64 KiB on >= 4 nodes (sm90)",
          .min = positive},
         [](auto& s) -> auto& { return s.collective.nvls_tree_chunk_bytes; }),
     bind(
         {.path = "collective.collnet",
          .type = KnobType::kBool,
          .description = "Algorithm auto may use IB SHARP where fabric.sharp.enabled: CollNet "
                         "(one rank per node) and NVLS across nodes",
          .source = "nccl@5067397 src/init.cc NCCL_COLLNET_ENABLE: NCCL's default is 0, set to 1 with the SHARP plugin "
                    "(HPC-X 2.26 NCCL-RDMA-SHARP Plugins); on here, so turning SHARP on in the "
                    "fabric is what decides"},
         [](auto& s) -> auto& { return s.collective.collnet_enabled; })},
});

}  // namespace

const std::vector<Knob>& collective_knobs() { return kCollectiveKnobs; }

}  // namespace fabricsim::scenario
