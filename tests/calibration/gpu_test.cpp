// nccl-tests all_reduce_perf busbw, the figures NVIDIA's engineers quote for H100 systems
// (docs/reference/nccl.md §5), reproduced end to end: scenario -> GpuNet (NVLink, PCIe, PXN) ->
// packet-level fabric -> CollectiveEngine, ring, Simple, default 16 channels.
//
// Why fabricsim lands where it does (tests/engine/gpu_collective_test.cpp derives each):
//   one node: busbw -> NVLink 450 GB/s x 0.824 = 370.8 GB/s (less the base latency and fill);
//   2 nodes: each GPU also receives its PXN relays over NVLink, so busbw <= 370.8 GB/s, i.e.
//   46.35 GB/s per NIC, below the wire ceilings (IB 49.68, RoCEv2 49.02 GB/s).
#include <gtest/gtest.h>

#include <string>

#include "calibration.h"
#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim {
namespace gpu_test {

using calibration::check_figure;
using calibration::Figure;

double busbw(const std::string& technology, int nodes, const std::string& size) {
  std::string y = "name: cal\nseed: 1\nfabric:\n  technology: " + technology +
                  "\n  link: {rate: 400Gbps, cable: 3m}\n";
  if (technology == "roce") y += "  pfc: {enabled: true}\n  roce: {cc: dcqcn}\n";
  y += "topology: {kind: rail, radix: 16}\nhosts: {count: 2, nics_per_host: 8}\n"
       "node: {gpus_per_node: 8}\n";
  const std::string w = "{kind: collective, op: all_reduce, algorithm: ring, protocol: simple, "
                        "size: " + size + "}";
  if (nodes == 1) {
    y += "jobs: [{name: a, nodes: 1, workload: " + w + "}]\n";
  } else {
    y += "workload: " + w + "\n";
  }
  const scenario::LoadedScenario s = scenario::load_scenario_string(y, "cal.yaml");
  const scenario::RunResult r = scenario::run_scenario(s.scenario);
  return r.jobs.at(0).collectives.at(0).busbw_gbytes_per_s;
}

TEST(GpuCalibration, RingAllReduceBusbwPerNdrNicInfiniBand) {
  check_figure(Figure{
      .name = "nccl-tests all_reduce busbw per 400G NIC, 2 nodes x 8 H100, ring (IB NDR)",
      .published = "46-48 GB/s per NIC",
      .source = "AddyLaddy, NVIDIA/nccl-tests#290 (2025-03-03); docs/reference/nccl.md §5",
      .scenario = "gpu_test RingAllReduceBusbwPerNdrNicInfiniBand: rail fabric, 2 x 8 GPUs, "
                  "8 x 400G IB NICs per node, ring/simple/16 channels, 1 GiB; busbw / 8",
      .unit = "GB/s",
      .value = busbw("ib", 2, "1GiB") / 8,
      .lo = 44.0,
      .hi = 49.5});
}

TEST(GpuCalibration, RingAllReduceBusbwPerNicRoce) {
  check_figure(Figure{
      .name = "nccl-tests all_reduce busbw per 400G NIC, H100 nodes, 8 x CX-7 RoCE",
      .published = "up to 48-49 GB/s per NIC",
      .source = "AddyLaddy, NVIDIA/nccl-tests#267 (2025-01-23; 6 nodes); "
                "docs/reference/nccl.md §5",
      .scenario = "gpu_test RingAllReduceBusbwPerNicRoce: as the IB row on RoCEv2 with PFC and "
                  "DCQCN, 2 nodes (not 6), 1 GiB; busbw / 8",
      .unit = "GB/s",
      .value = busbw("roce", 2, "1GiB") / 8,
      .lo = 44.0,
      .hi = 49.5});
}

TEST(GpuCalibration, RingAllReduceBusbwOneH100Node) {
  check_figure(Figure{
      .name = "nccl-tests all_reduce busbw, 8 x H100 in one node, NCCL_ALGO=RING",
      .published = "~365-370 GB/s (2-4 GiB)",
      .source = "NVIDIA/nccl#1455 (user measurement); ~370 GB/s effective NVLink, sjeaugey in "
                "NVIDIA/nccl-tests#212; docs/reference/nccl.md §5",
      .scenario = "gpu_test RingAllReduceBusbwOneH100Node: one job on 1 node of 8 GPUs, "
                  "ring/simple/16 channels, 2 GiB",
      .unit = "GB/s",
      .value = busbw("ib", 1, "2GiB"),
      .lo = 360.0,
      .hi = 371.0});
}

}  // namespace gpu_test
}  // namespace fabricsim
