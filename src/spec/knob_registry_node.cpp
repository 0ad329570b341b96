// Registry entries of the GPU node model (node.*). Descriptions and sources restate the comments
// on node/spec.h NodeSpec; docs/nodes.md has the model and docs/reference/gpu-node.md the
// primary citations.
#include <vector>

#include "core/checked.h"
#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;

namespace {

using knob_bind::non_negative;
const Bound device_latency_max{static_cast<double>(kMaxDeviceLatencyPs)};
const std::vector<int64_t> lane_widths{1, 2, 4, 8, 16};

const std::vector<Knob> kNodeKnobs = {
    bind(
        {.path = "node.gpus_per_node",
         .type = KnobType::kInt,
         .description = "GPUs per host (node); 0 = no GPU layer, the NICs are the endpoints. "
                        "GPU l of a node uses NIC floor(l x nics_per_host / gpus_per_node), so "
                        "a multiple of hosts.nics_per_host gives 1:1, 1:2, 1:4 ... sharing",
         .source = "0 keeps NIC-level scenarios unchanged; DGX/HGX H100: 8 GPUs, 8 compute "
                   "NICs (DGX BasePOD RA 'Core Components')",
         .min = non_negative,
         .max = Bound{1024}},
        [](auto& s) -> auto& { return s.node.gpus_per_node; }),
    bind(
        {.path = "node.nvlink.rate",
         .type = KnobType::kRate,
         .description = "NVLink rate per GPU per direction, into and out of the NVSwitch "
                        "(non-blocking: only the GPUs' own ports are shared)",
         .source = "H100 SXM: 18 NVLink 4 links x 25 GB/s = 450 GB/s per direction (H100 "
                   "datasheet '900GB/s' bidirectional; DGX H100 datasheet '18x NVLink')",
         .min = Bound{static_cast<double>(kMinLinkRateBps)}},
        [](auto& s) -> auto& { return s.node.nvlink_rate_bps; }),
    bind(
        {.path = "node.nvlink.efficiency",
         .type = KnobType::kDouble,
         .description = "Fraction of node.nvlink.rate that data moves at",
         .source =
             "NCCL SM90_NVLINK_BW 20.6 GB/s x 18 links = 370.8 GB/s (src/graph/topo.h), "
             "370.8/450 = 0.824; measured ~376 GB/s p2p writes on HGX H100 (NVIDIA/nccl#1264)",
         .min = Bound{0, true},
         .max = Bound{1}},
        [](auto& s) -> auto& { return s.node.nvlink_efficiency; }),
    bind(
        {.path = "node.nvls",
         .type = KnobType::kBool,
         .description = "The NVSwitch supports NVLS (NVLink SHARP): in-switch reduce and "
                        "multicast for NCCL's NVLS algorithms. Needs NVSwitch 3 and sm90+; "
                        "false for PCIe-only or pre-Hopper nodes",
         .source = "nccl src/transport/nvls.cc (ncclNvlsInit: NVSwitch, sm90, CUDA multicast); "
                   "the node.* defaults describe an HGX H100, so true"},
        [](auto& s) -> auto& { return s.node.nvls; }),
    bind(
        {.path = "node.nvls_efficiency",
         .type = KnobType::kDouble,
         .description = "Rate cap of each NVLS reduce or multicast flow as a fraction of the "
                        "NVLink effective rate (node.nvlink.rate x node.nvlink.efficiency)",
         .source = "FITTED: 0.83 gives busbw 2(N-1)/(N+1) x 370.8 x 0.83 within 2.5 % of "
                   "420/440/460/480 GB/s for 5-8 H100 (NVIDIA/nccl#1455, NVLS forced, 2-4 GiB); "
                   "NCCL's nvlsEfficiency is 0.85 (src/graph/tuning.cc @5067397)",
         .min = Bound{0, true},
         .max = Bound{1}},
        [](auto& s) -> auto& { return s.node.nvls_efficiency; }),
    bind(
        {.path = "node.nvlink.latency",
         .type = KnobType::kTime,
         .description = "First byte from one GPU to another through the NVSwitch",
         .source = "UNVERIFIED (not published): NCCL hwLatencies[NVLINK] LL 0.6 us "
                   "(src/graph/tuning.cc), a per-step figure with software, used as an upper bound",
         .min = non_negative,
         .max = device_latency_max},
        [](auto& s) -> auto& { return s.node.nvlink_latency_ps; }),
    bind(
        {.path = "node.pcie.generation",
         .type = KnobType::kInt,
         .description = "PCIe generation of GPU, NIC and switch links: 3, 4, 5 = 8, 16, 32 GT/s "
                        "per lane, 128b/130b encoding",
         .source = "H100 SXM and ConnectX-7: PCIe Gen5 x16 (datasheets); PCIe Base Spec 4.2",
         .one_of = {3, 4, 5}},
        [](auto& s) -> auto& { return s.node.pcie_generation; }),
    bind(
        {.path = "node.pcie.lanes",
         .type = KnobType::kInt,
         .description = "Lanes of each GPU's and NIC's PCIe link",
         .source = "H100 SXM, ConnectX-7: x16 (datasheets)",
         .one_of = lane_widths},
        [](auto& s) -> auto& { return s.node.pcie_lanes; }),
    bind(
        {.path = "node.pcie.max_payload",
         .type = KnobType::kBytes,
         .description = "PCIe Max Payload Size: data bytes per TLP. Rate per direction = lanes x "
                        "GT/s x 128/130 / 8 x MPS / (MPS + tlp_overhead): Gen5 x16 57.6 GB/s",
         .source = "256 B common platform default (PLX PEX8532 datasheet §8.4.1.3, secondary; "
                   "UNVERIFIED for DGX H100)",
         .one_of = {128, 256, 512, 1024, 2048, 4096}},
        [](auto& s) -> auto& { return s.node.pcie_max_payload_bytes; }),
    bind(
        {.path = "node.pcie.tlp_overhead",
         .type = KnobType::kBytes,
         .description = "Bytes each TLP adds to its payload on the link (framing, sequence, "
                        "header, LCRC); DLLPs and SKP ordered sets are not counted",
         .source = "Intel AN 708: 4 B STP token + 16 B 4-DW header + 4 B LCRC = 24 B (Gen3+)",
         .min = non_negative,
         .max = Bound{64}},
        [](auto& s) -> auto& { return s.node.pcie_tlp_overhead_bytes; }),
    bind(
        {.path = "node.pcie.switch_latency",
         .type = KnobType::kTime,
         .description = "One PCIe switch or root-complex crossing (cut-through)",
         .source = "UNVERIFIED: ~100-150 ns commonly quoted for Gen4/Gen5 switches",
         .min = non_negative,
         .max = device_latency_max},
        [](auto& s) -> auto& { return s.node.pcie_switch_latency_ps; }),
    bind(
        {.path = "node.pcie.gpus_per_switch",
         .type = KnobType::kInt,
         .description = "GPUs behind each PCIe switch; the node's NICs are spread evenly over "
                        "the switches. A GPU whose NIC is on another switch reaches it through "
                        "the root complex (both uplinks)",
         .source = "DGX H100: each GPU PIX to exactly one NIC (nvidia-smi topo -m, "
                   "NVIDIA/nccl#1453): one GPU + one NIC per switch",
         .min = Bound{1}},
        [](auto& s) -> auto& { return s.node.gpus_per_pcie_switch; }),
    bind(
        {.path = "node.pcie.uplink_lanes",
         .type = KnobType::kInt,
         .description = "Lanes of each PCIe switch's uplink to its CPU root complex (staged "
                        "transfers and GPU-NIC pairs on different switches cross it)",
         .source = "UNVERIFIED for DGX H100: x16",
         .one_of = lane_widths},
        [](auto& s) -> auto& { return s.node.pcie_uplink_lanes; }),
    bind(
        {.path = "node.host.sockets",
         .type = KnobType::kInt,
         .description = "CPU sockets per node; PCIe switches (and so GPUs and NICs) are split "
                        "evenly, each socket with its own memory",
         .source = "DGX H100: 2 x Xeon Platinum 8480C (DGX BasePOD RA 'Core Components')",
         .min = Bound{1},
         .max = Bound{64}},
        [](auto& s) -> auto& { return s.node.sockets; }),
    bind(
        {.path = "node.host.memory_rate",
         .type = KnobType::kRate,
         .description = "Host DRAM rate per socket, shared by the writes and reads of staged "
                        "transfers",
         .source = "8 channels DDR5-4800 x 8 B = 307.2 GB/s peak per Xeon 8480C socket "
                   "(ServeTheHome, WWT; DGX H100 DIMM population UNVERIFIED)",
         .min = Bound{static_cast<double>(kMinLinkRateBps)}},
        [](auto& s) -> auto& { return s.node.host_memory_rate_bps; }),
    bind(
        {.path = "node.gpudirect",
         .type = KnobType::kBool,
         .description = "GPUDirect RDMA: the NIC reads and writes GPU memory through the PCIe "
                        "switch; false = staged through host memory (copy, CPU post, and the "
                        "mirror image on receive)",
         .source = "NCCL uses GDR for a GPU-NIC pair up to NCCL_NET_GDR_LEVEL PXB (default, "
                   "src/graph/paths.cc); DGX H100 pairs are PIX"},
        [](auto& s) -> auto& { return s.node.gpudirect; }),
    bind(
        {.path = "node.staged.cpu",
         .type = KnobType::kTime,
         .description = "Staged transfers: CPU proxy time per message per side (noticing the "
                        "copy into the bounce buffer and posting; noticing the completion)",
         .source = "UNVERIFIED: 1-5 us commonly quoted; 2 us",
         .min = non_negative,
         .max = device_latency_max},
        [](auto& s) -> auto& { return s.node.staged_cpu_ps; }),
    bind(
        {.path = "node.pxn",
         .type = KnobType::kBool,
         .description = "NCCL PXN: a cross-node send to a GPU on another rail first crosses "
                        "NVLink to the local GPU on that rail and leaves from its NIC",
         .source = "NCCL PATH_PXN, NCCL_PARAM(PxnDisable, \"PXN_DISABLE\", 0) in "
                   "src/graph/paths.cc: on by default (RCCL defaults it off)"},
        [](auto& s) -> auto& { return s.node.pxn; }),
};

}  // namespace

const std::vector<Knob>& node_knobs() { return kNodeKnobs; }

}  // namespace fabricsim::scenario
