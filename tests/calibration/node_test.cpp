// GPU node figures: NVLink peer-to-peer write bandwidth and GPU -> host PCIe copy bandwidth on
// H100 systems, reproduced by the node model (node::GpuNet) with its default (DGX H100) spec.
//
//   two DGX-like nodes: 8 GPUs each on one NVSwitch, 8 NICs 1:1, PCIe Gen5 x16 per GPU and NIC
#include <gtest/gtest.h>

#include "calibration.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace node_test {

using calibration::check_figure;
using calibration::Figure;

scenario::Scenario dgx_pair(bool gpudirect) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 2;
  sc.topology.nics_per_host = 8;
  sc.node.gpus_per_node = 8;
  sc.node.gpudirect = gpudirect;
  return sc;
}

// p2pBandwidthLatencyTest's unidirectional P2P=Enabled write matrix on HGX H100 SXM: GPU 0 to
// the others 371.02 - 376.82 GB/s (NVIDIA/nccl#1264). One 256 MiB copy GPU 0 -> GPU 1.
TEST(NodeCalibration, NvlinkP2pWriteBandwidthH100) {
  scenario::Simulation sim(dgx_pair(true));
  node::GpuNet& g = *sim.gpu_net();
  int64_t done = -1;
  g.on_arrived = [&](uint64_t) { done = g.now_ps(); };
  const int64_t size = int64_t{256} << 20;
  g.send(0, 1, size, 0);
  sim.run();
  check_figure(Figure{
      .name = "NVLink P2P write bandwidth, HGX H100 SXM, unidirectional",
      .published = "371 - 377 GB/s",
      .source = "p2pBandwidthLatencyTest output in NVIDIA/nccl#1264; NCCL SM90_NVLINK_BW 20.6 "
                "x 18 = 370.8 GB/s (src/graph/topo.h)",
      .scenario = "node_test NvlinkP2pWriteBandwidthH100: one 256 MiB GPU 0 -> GPU 1 transfer, "
                  "size / time, node.* defaults (450 GB/s x 0.824)",
      .unit = "GB/s",
      .value = static_cast<double>(size) / (static_cast<double>(done) * 1e-12) / 1e9,
      .lo = 360,
      .hi = 385});
}

// nvbandwidth device-to-host SM copy on an H100 Gen5 system: 52.8 GB/s (NVIDIA/nvbandwidth#24).
// The staged path's first copy (GPU -> host memory) crosses the GPU's PCIe link; its bytes over
// the time the link was held is the copy bandwidth. The model counts 128b/130b and 24 B per
// 256 B TLP but not DLLPs or copy-engine gaps, so it is expected at or up to ~10 % above.
TEST(NodeCalibration, GpuToHostPcieCopyBandwidthH100) {
  scenario::Simulation sim(dgx_pair(false));
  node::GpuNet& g = *sim.gpu_net();
  g.send(0, 8, int64_t{64} << 20, 0);
  sim.run();
  const node::FluidServer up = g.server(g.resource(node::ResourceKind::kGpuPcieUp, 0, 0));
  check_figure(Figure{
      .name = "GPU -> host copy over PCIe Gen5 x16, H100",
      .published = "52.8 GB/s (D2H, SM copy)",
      .source = "NVIDIA/nvbandwidth#24 (H100 cluster); PCIe Gen5 x16 raw 63.0 GB/s per "
                "direction after 128b/130b",
      .scenario = "node_test GpuToHostPcieCopyBandwidthH100: staged 64 MiB GPU 0 -> GPU 8, "
                  "GPU 0's PCIe uplink bytes / busy time (Gen5 x16, MPS 256, 24 B/TLP)",
      .unit = "GB/s",
      .value = static_cast<double>(up.bytes) / (static_cast<double>(up.busy_ps) * 1e-12) / 1e9,
      .lo = 52.8 * 0.95,
      .hi = 52.8 * 1.10});
}

}  // namespace node_test
}  // namespace fabricsim
