// IB SHARP (NCCL CollNet) against the ring, end to end: scenario -> GpuNet -> packet-level IB
// with switch aggregation (net/sharp.cpp) -> CollectiveEngine. The expected ratios are derived
// here from the bytes each NIC and each NVLink port must carry (docs/reference/nccl-at-scale.md
// §5), not taken from an earlier run.
#include <gtest/gtest.h>

#include <string>

#include "calibration.h"
#include "engine/run.h"
#include "spec/load.h"

namespace fabricsim {
namespace sharp_test {

using calibration::check_figure;
using calibration::Figure;

struct Outcome {
  double time_us = 0;
  std::string algorithm;
};

Outcome run(const std::string& yaml) {
  const scenario::LoadedScenario s = scenario::load_scenario_string(yaml, "cal.yaml");
  const scenario::RunResult r = scenario::run_scenario(s.scenario);
  const auto& c = r.jobs.at(0).collectives.at(0);
  return {static_cast<double>(c.time_ps) / 1e6, c.algorithm};
}

// n ranks, one GPU and one NIC per node: the ring moves 2(n-1)/n x S through every NIC each way,
// SHARP moves S up and S down once, so t_ring / t_sharp = 2(n-1)/n once both run at the NIC's
// payload rate (1.875 for n = 16).
TEST(SharpCalibration, CollNetBeatsTheRingByItsTrafficReduction) {
  const std::string base =
      "name: cal\nseed: 1\nfabric:\n  technology: ib\n  link: {rate: 400Gbps, cable: 3m}\n"
      "  sharp: {enabled: true}\ntopology: {kind: fat_tree, tiers: 2, radix: 8}\n"
      "hosts: {count: 16}\nnode: {gpus_per_node: 1, host: {sockets: 1}}\n";
  const Outcome sharp =
      run(base + "workload: {kind: collective, op: all_reduce, size: 256MiB}\n");
  const Outcome ring = run(base +
                           "workload: {kind: collective, op: all_reduce, algorithm: ring, "
                           "protocol: simple, size: 256MiB}\n");
  EXPECT_EQ(sharp.algorithm, "collnet");  // auto takes CollNet where SHARP is on
  const int n = 16;
  const double predicted = 2.0 * (n - 1) / n;
  check_figure(Figure{
      .name = "IB SHARP all-reduce speed-up over the ring, 16 nodes x 1 GPU, 256 MiB",
      .published = "2(n-1)/n = 1.875 (traffic per NIC: ring 2(n-1)/n x S, SHARP S)",
      .source = "SHARP: 'eliminating the need to send data multiple times between endpoints' "
                "(NVIDIA SHARP docs, Introduction); derivation docs/reference/nccl-at-scale.md §5",
      .scenario = "sharp_test CollNetBeatsTheRingByItsTrafficReduction: t_ring / t_collnet",
      .unit = "x",
      .value = ring.time_us / sharp.time_us,
      .lo = predicted * 0.95,
      .hi = predicted * 1.05});
}

}  // namespace sharp_test
}  // namespace fabricsim
