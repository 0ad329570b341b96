// NVLink SHARP (NVLS) all-reduce on one H100-class node, end to end: scenario -> GpuNet's
// fair-shared NVSwitch with its reduce / multicast (node/gpu_net.h) -> CollectiveEngine's NVLS
// plan. Published: ~480 GB/s busbw on 8 x H100 for sizes well above 256 MB (sjeaugey,
// NVIDIA/nccl-tests#212; 476 in nccl-tests#290), 420 / 440 / 460 / 480 for 5-8 GPUs with NVLS
// forced at 2-4 GiB (NVIDIA/nccl#1455); the ring stays at ~365-370.
//
// The bound each run is held against, derived here: with N heads each GPU's NVLink carries
// (N + 1)/N x S each way (its part of every head's reduce, its own multicast; the reduced part and
// every head's multicast in), at the NVLS rate 370.8 GB/s x node.nvls_efficiency, so
// busbw = algbw x 2(N - 1)/N = 2(N - 1)/(N + 1) x 370.8 x eta.
#include <gtest/gtest.h>

#include <string>

#include "calibration.h"
#include "engine/run.h"
#include "spec/load.h"

namespace fabricsim {
namespace nvls_test {

using calibration::check_figure;
using calibration::Figure;

struct Outcome {
  double busbw = 0;
  std::string algorithm;
};

Outcome one_node(int gpus, const std::string& size, const std::string& algorithm) {
  const std::string y =
      "name: cal\nseed: 1\nfabric: {technology: ib, link: {rate: 400Gbps, cable: 3m}}\n"
      "topology: {kind: rail, radix: 16}\nhosts: {count: 2, nics_per_host: 1}\n"
      "node: {gpus_per_node: " + std::to_string(gpus) + ", host: {sockets: 1}}\n"
      "jobs: [{name: a, nodes: 1, workload: {kind: collective, op: all_reduce, algorithm: " +
      algorithm + ", size: " + size + "}}]\n";
  const scenario::LoadedScenario s = scenario::load_scenario_string(y, "cal.yaml");
  const scenario::RunResult r = scenario::run_scenario(s.scenario);
  const auto& c = r.jobs.at(0).collectives.at(0);
  return {c.busbw_gbytes_per_s, c.algorithm};
}

double nvls_bound(int n, double eta) { return 2.0 * (n - 1) / (n + 1) * 370.8 * eta; }

TEST(NvlsCalibration, EightH100DefaultsPickNvlsAndReachTheMeasuredBusbw) {
  // NCCL's default on an H100 node picks NVLS from ~1 MB (docs/collectives.md). The issue's
  // figure holds from 256 MiB up: what is left below the bound is NCCL's 25 us NVLS latency
  // (tuning.cc), 2.4 % of a 256 MiB run at ~475 GB/s and 0.6 % at 1 GiB.
  for (const char* size : {"256MiB", "1GiB"}) {
    const Outcome o = one_node(8, size, "auto");
    EXPECT_EQ(o.algorithm, "nvls") << size;
    check_figure(Figure{
        .name = std::string("nccl-tests all_reduce busbw, 8 x H100 in one node, NCCL defaults "
                            "(NVLS), ") + size,
        .published = "~480 GB/s for sizes >> 256 MB (476 in nccl-tests#290)",
        .source = "sjeaugey, NVIDIA/nccl-tests#212; AddyLaddy, NVIDIA/nccl-tests#290",
        .scenario = std::string("nvls_test EightH100DefaultsPickNvlsAndReachTheMeasuredBusbw: ") +
                    size + ", auto",
        .unit = "GB/s",
        .value = o.busbw,
        .lo = 450.0,
        .hi = 490.0});
  }
}

TEST(NvlsCalibration, BusbwFollowsTheNvlsTrafficFrom5To8Gpus) {
  const double measured[4] = {420, 440, 460, 480};  // nccl#1455, 5..8 GPUs
  for (int n = 5; n <= 8; ++n) {
    const Outcome o = one_node(n, "2GiB", "nvls");
    const double bound = nvls_bound(n, 0.83);
    EXPECT_NEAR(o.busbw, bound, 0.05 * bound) << n << " GPUs";
    check_figure(Figure{
        .name = "nccl-tests all_reduce busbw, " + std::to_string(n) + " x H100, NVLS forced",
        .published = std::to_string(static_cast<int>(measured[n - 5])) + " GB/s (2-4 GiB)",
        .source = "NVIDIA/nccl#1455 (user measurement)",
        .scenario = "nvls_test BusbwFollowsTheNvlsTrafficFrom5To8Gpus: 2 GiB, algorithm nvls",
        .unit = "GB/s",
        .value = o.busbw,
        .lo = measured[n - 5] * 0.95,
        .hi = measured[n - 5] * 1.05});
  }
}

TEST(NvlsCalibration, TheRingStaysAtTheNvlinkRate) {
  check_figure(Figure{
      .name = "nccl-tests all_reduce busbw, 8 x H100 in one node, NCCL_ALGO=RING (NVLS on)",
      .published = "~365-370 GB/s",
      .source = "NVIDIA/nccl#1455; sjeaugey in NVIDIA/nccl-tests#212",
      .scenario = "nvls_test TheRingStaysAtTheNvlinkRate: 1 GiB, algorithm ring",
      .unit = "GB/s",
      .value = one_node(8, "1GiB", "ring").busbw,
      .lo = 360.0,
      .hi = 375.0});
}

}  // namespace nvls_test
}  // namespace fabricsim
