// What a GPU node looks like (node.* keys): GPUs on NVLink/NVSwitch, PCIe switches pairing GPUs
// with the fabric's NICs, root complexes and host memory per CPU socket. Defaults describe a
// DGX/HGX H100 node; every figure names its source (docs/nodes.md has the table,
// docs/reference/gpu-node.md the primary citations).
#pragma once

#include <cstdint>

#include "core/time.h"
#include "node/nccl_view.h"
#include "topo/topology_spec.h"

namespace fabricsim::node {

struct NodeSpec {
  // 0 = no GPU layer: the fabric's NICs are the endpoints (every pre-GPU scenario). Otherwise
  // hosts.count nodes of this many GPUs each; GPU g lives on node g / gpus_per_node.
  int gpus_per_node = 0;

  // NVLink 4 per H100: 18 links x 25 GB/s per direction = 450 GB/s per direction (H100 datasheet
  // "900 GB/s" bidirectional; DGX H100 datasheet "18x NVLink connections per GPU").
  int64_t nvlink_rate_bps = 450LL * 8 * 1'000'000'000;
  // Usable fraction: NCCL's SM90_NVLINK_BW 20.6 GB/s per link x 18 = 370.8 GB/s
  // (nccl src/graph/topo.h), 370.8 / 450 = 0.824; measured ~376-380 GB/s p2p writes on HGX H100
  // (NVIDIA/nccl#1264).
  double nvlink_efficiency = 370.8 / 450.0;
  // First byte from GPU to GPU through one NVSwitch hop. UNVERIFIED: not published; 600 ns is
  // NCCL's hwLatencies[NVLINK] for LL (src/graph/tuning.cc), a per-step figure that includes
  // software, so an upper bound for the hardware part.
  int64_t nvlink_latency_ps = 600 * kPsPerNs;

  // NVLS (NVLink SHARP): the NVSwitch reduces (multimem.ld_reduce) and multicasts (multimem.st)
  // for NCCL's NVLS algorithms. Needs NVSwitch 3 and sm90+ (nccl src/transport/nvls.cc). No
  // node.* key names the NVSwitch generation; the defaults describe an HGX H100 (NVSwitch 3,
  // sm90), so true. Set false for PCIe-only or pre-Hopper nodes.
  bool nvls = true;
  // Rate of an NVLS reduce or multicast flow as a fraction of the NVLink effective rate (a cap
  // per flow, so concurrent unicast traffic is not slowed). FITTED: 0.83 reproduces nccl-tests
  // busbw 420/440/460/480 GB/s for 5/6/7/8 H100 GPUs with NVLS forced at 2-4 GiB
  // (NVIDIA/nccl#1455) through busbw = 2(N-1)/(N+1) x 370.8 x eta within 2.5 %. NCCL's own
  // tuning constant nvlsEfficiency is 0.85 (src/graph/tuning.cc @5067397), which gives 490 at N = 8.
  double nvls_efficiency = 0.83;

  // PCIe between each GPU / NIC and its switch: Gen5 x16 (H100 SXM and ConnectX-7 datasheets).
  int pcie_generation = 5;  // 3, 4 or 5: 8, 16, 32 GT/s per lane, all 128b/130b
  int pcie_lanes = 16;
  // Protocol efficiency of large DMA writes = MPS / (MPS + TLP overhead): 256 / 280 = 0.914.
  // MPS 256 B is the common platform value (UNVERIFIED for DGX H100); 24 B per TLP = 4 B STP
  // framing token with sequence number + 16 B 4-DW header (64-bit address) + 4 B LCRC (Intel
  // AN 708, PCIe Base Spec 3.0+ framing). DLLPs (ACK, UpdateFC) and SKP sets are not counted.
  int64_t pcie_max_payload_bytes = 256;
  int64_t pcie_tlp_overhead_bytes = 24;
  // One PCIe switch (or root complex) crossing, cut-through. UNVERIFIED: ~100-150 ns commonly
  // quoted for Gen4/Gen5 switches; vendor datasheets not read.
  int64_t pcie_switch_latency_ps = 150 * kPsPerNs;
  // DGX H100: each GPU is PIX (same switch) to exactly one NIC (nvidia-smi topo -m in
  // NVIDIA/nccl#1453), i.e. one GPU + one NIC per switch. NICs are spread evenly over the
  // switches (NIC k on switch k x switches / nics).
  int gpus_per_pcie_switch = 1;
  // Switch <-> root-complex uplink width. UNVERIFIED for DGX H100 (not in the pages read); x16.
  int pcie_uplink_lanes = 16;

  // DGX H100: 2 x Xeon 8480C; GPUs 0-3 and their NICs on socket 0, 4-7 on socket 1.
  int sockets = 2;
  // Peak DRAM per socket: 8 channels DDR5-4800 x 8 B = 307.2 GB/s (ServeTheHome / WWT, see
  // gpu-node.md §3; DGX H100 DIMM population UNVERIFIED).
  int64_t host_memory_rate_bps = 3072LL * 8 * 100'000'000;

  // GPUDirect RDMA: the NIC reads/writes GPU memory through the PCIe switch (NCCL's default for
  // a PIX GPU-NIC pair, NCCL_NET_GDR_LEVEL PXB, src/graph/paths.cc). Off: staged through host
  // memory (NCCL_NET_GDR_READ doc: "first stored in CPU memory, then goes to the card").
  bool gpudirect = true;
  // Staged only, per message and per side: the CPU proxy noticing the copy and posting the work
  // request (or the receive-side completion). UNVERIFIED: 1-5 us is the range quoted; 2 us.
  int64_t staged_cpu_ps = 2 * kPsPerUs;
  // NCCL PXN (PATH_PXN, src/graph/paths.cc): a cross-node send whose destination GPU is on
  // another rail first crosses NVLink to the local GPU on that rail and leaves from its NIC,
  // so inter-node traffic stays rail-aligned. NCCL enables it by default (NCCL_PXN_DISABLE=0).
  bool pxn = true;

  // The ideal network (training.ideal_network; not a scenario key: engine/run.cpp sets it for
  // the second run). The cross-node part of a transfer is no transport message but a crossing
  // of a non-blocking big switch: each NIC's line out and line in is a fluid resource at the
  // line rate (one message per NIC pair at a time, pairs sharing fairly), plus two cable
  // propagations; alone, a message takes ideal_fabric_delay_ps(bytes) (node/gpu_net.h). NVLink,
  // PCIe and host memory are modelled as always; SHARP is off (no switches to aggregate in).
  bool ideal_fabric = false;
};

// PCIe transfer rate per direction, bits per second, of `lanes` lanes of `spec`'s generation:
// lanes x GT/s x 128/130 x MPS / (MPS + TLP overhead).
double pcie_rate_bps(const NodeSpec& spec, int lanes);

// NCCL's view of a node of `spec` whose NICs run at `nic_rate_bps` (node/nccl_view.h).
NcclView nccl_view(const NodeSpec& spec, int64_t nic_rate_bps, int nics_per_node);

// Throws InputError naming the node.* key when the spec cannot describe a node of the fabric
// `topology` (hosts.nics_per_host NICs per node). Nothing to check when gpus_per_node is 0.
void check_spec(const NodeSpec& spec, const topo::TopologySpec& topology);

}  // namespace fabricsim::node
