// ASTRA-sim's published Chakra traces (tests/workload/data/chakra) run end to end through the
// scenario (training.source: chakra) on 8 GPUs, one per host, each host's 400 Gb/s NIC on a
// rail switch:
//
//   gpu0  gpu1  ...  gpu7
//    |     |          |       400 Gb/s, 3 m
//   [========= rail switch =========]
//
// The all-reduce trace is one 1 MiB all-reduce over the 8 ranks. Ring all-reduce moves
// 2(n-1)/n x S through every NIC (Patarasuk & Yuan 2009, the bandwidth-optimal bound any
// all-reduce meets), so the step is at least 2(n-1)/n x S / B; it is at most ring Simple's time
// (NCCL's latency table plus the bandwidth term), which NCCL's choice never exceeds. The same
// all-reduce run as a plain collective workload is the simulator's own reference: the imported
// step must equal it exactly.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "engine/run.h"
#include "spec/load.h"

namespace fabricsim {
namespace chakra_run_test {

const std::string kData = std::string(FABRICSIM_SOURCE_DIR) + "/tests/workload/data/chakra/";
constexpr double kRateBps = 400e9;
constexpr int kRanks = 8;

std::string fabric() {
  return "name: chakra\nseed: 1\n"
         "fabric: {technology: ib, link: {rate: 400Gbps, cable: 3m}}\n"
         "topology: {kind: rail, radix: 16}\n"
         "hosts: {count: 8, nics_per_host: 1}\n"
         "node: {gpus_per_node: 1, host: {sockets: 1}}\n";
}

scenario::RunResult run(const std::string& yaml) {
  return scenario::run_scenario(scenario::load_scenario_string(yaml, "chakra.yaml").scenario);
}

scenario::RunResult run_trace(const std::string& prefix) {
  return run(fabric() +
             "workload: {kind: training}\n"
             "training: {source: chakra, file: " +
             kData + prefix + "}\n");
}

TEST(ChakraRun, AllReduceTraceStepIsTheRingAllReduceOfOneMiB) {
  const scenario::RunResult r = run_trace("all_reduce");
  ASSERT_EQ(r.jobs.size(), 1u);
  const scenario::TrainingResult& t = r.jobs[0].training;
  ASSERT_TRUE(t.present);
  ASSERT_GT(t.step_time_ps, 0);
  EXPECT_EQ(t.compute_ps, 0) << "the trace has no compute node";
  int64_t n = 0, bytes = 0;
  for (const scenario::PhaseComm& pc : t.comm) {
    n += pc.collectives;
    bytes += pc.bytes;
  }
  EXPECT_EQ(n, 1);
  EXPECT_EQ(bytes, 1 << 20);

  // NIC payload rate: 50 GB/s x MTU / (MTU + IB's 26 B per packet: LRH 8, BTH 12, ICRC 4,
  // VCRC 2; src/net/wire.h), as tests/engine/gpu_collective_test.cpp derives it.
  const double nic_bytes_per_s = kRateBps / 8 * 4096.0 / (4096.0 + 26.0);
  const double size = 1 << 20;
  const double bw_ps = 2.0 * (kRanks - 1) / kRanks * size / nic_bytes_per_s * 1e12;  // 36.9 us
  EXPECT_GE(t.step_time_ps, bw_ps) << "no all-reduce beats 2(n-1)/n x S / B";
  // Above: NCCL picks the algorithm and protocol of least predicted time (workload.algorithm
  // auto), so what runs is no slower than ring Simple, whose time is its base latency 8.4 us
  // plus 2(n-1) network hops of NCCL's Simple NET latency 14 us and the NIC's 0.5 us DMA read
  // (tuning.cc, docs/reference/nccl.md 2.3; the engine charges them per hop,
  // docs/collectives.md "Latency") plus the bandwidth term.
  const double ring_simple_ps = (8.4 + 2 * (kRanks - 1) * (14.0 + 0.5)) * 1e6 + bw_ps;
  EXPECT_LE(t.step_time_ps, ring_simple_ps);

  const scenario::RunResult ref = run(fabric() +
                                      "workload: {kind: collective, op: all_reduce, "
                                      "size: 1MiB}\n");
  ASSERT_EQ(ref.jobs.at(0).collectives.size(), 1u);
  EXPECT_EQ(t.step_time_ps, ref.jobs[0].collectives[0].time_ps)
      << "the imported step is the plain collective's time";
}

// The custom ring: each rank's chain is 14 sends, 14 receives and 7 reductions of 7 us, all in
// series (each node data-depends on the one before). The reductions alone are 49 us; each
// receive waits for a 131,072 B message, which cannot arrive faster than its serialization.
TEST(ChakraRun, CustomRingAllReduceRunsItsMessagesAndReductions) {
  const scenario::RunResult r = run_trace("custom_allreduce");
  const scenario::TrainingResult& t = r.jobs.at(0).training;
  ASSERT_GT(t.step_time_ps, 0);
  EXPECT_EQ(t.compute_ps, 7 * 7'000'000) << "the critical rank's seven 7 us reductions";
  EXPECT_EQ(t.step_time_ps, t.compute_ps + t.exposed_comm_ps);
  int64_t n = 0, bytes = 0;
  for (const scenario::PhaseComm& pc : t.comm) {
    n += pc.collectives;
    bytes += pc.bytes;
  }
  EXPECT_EQ(n, 8 * 14);
  EXPECT_EQ(bytes, int64_t{8 * 14} * 131'072);
  const double message_ps = 8.0 * 131'072 / kRateBps * 1e12;
  EXPECT_GE(t.step_time_ps, 7 * 7e6 + 14 * message_ps);
}

TEST(ChakraRun, RankCountMismatchIsReportedNamingTheFile) {
  const std::string yaml =
      "name: chakra\n"
      "topology: {kind: rail, radix: 16}\n"
      "hosts: {count: 2, nics_per_host: 8}\n"
      "node: {gpus_per_node: 8}\n"
      "workload: {kind: training}\n"
      "training: {source: chakra, file: " +
      kData + "all_reduce}\n";
  const scenario::LoadedScenario loaded = scenario::load_scenario_string(yaml, "chakra.yaml");
  try {
    scenario::run_scenario(loaded.scenario);
    ADD_FAILURE() << "an 8-rank trace ran on 16 GPUs";
  } catch (const InputError& e) {
    const std::string line = scenario::format_input_error(loaded, e);
    EXPECT_EQ(line.rfind(kData + "all_reduce.8.et:", 0), 0u) << line;
    EXPECT_NE(line.find("training.file: missing: the scenario has 16 GPUs"), std::string::npos)
        << line;
  }
}

}  // namespace chakra_run_test
}  // namespace fabricsim
