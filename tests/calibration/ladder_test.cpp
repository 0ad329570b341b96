// The latency ladder (examples/latency.yaml, issue 12 item 7) against published figures: the
// era variants (connectx-3, 10GbE RoCE through a DCB-class switch, FDR IB) against seed 002's
// one-hop magnitudes and the ConnectX-3 perftest / product figures; the today variants
// (connectx-7, 400 Gb/s) against today's perftest figures.
//
// Each value is the ping-pong's one-way latency (RTT / 2, as perftest's ib_write_lat reports
// it), run in-process on the example file with the variant's fabric and overrides applied,
// exactly as `fabricsim compare` applies them. Derivations: docs/calibration.md, section The latency ladder (item 7).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "calibration.h"
#include "spec/load.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace ladder_test {

using calibration::check_figure;
using calibration::Figure;

const std::string kExample =
    (std::filesystem::path(FABRICSIM_SOURCE_DIR) / "examples" / "latency.yaml").string();

// One-way latency in us of the example's variant `name`, with `extra` overrides after its own.
double ladder_us(const std::string& name, const std::vector<std::string>& extra = {}) {
  const scenario::Scenario file = scenario::load_scenario_file(kExample);
  for (const scenario::VariantSpec& v : file.variants) {
    if (v.name != name) continue;
    std::vector<std::string> sets = {"fabric.technology=" + v.fabric,
                                     "workload.ping_pong.iterations=20"};
    sets.insert(sets.end(), v.sets.begin(), v.sets.end());
    sets.insert(sets.end(), extra.begin(), extra.end());
    const scenario::Scenario sc = scenario::load_scenario_file(kExample, sets);
    scenario::Simulation sim(sc);
    sim.start_workload();
    EXPECT_TRUE(sim.run());
    return sim.workload().ping_pong()->stats().at(0).one_way_typical_ps * 1e-6;
  }
  ADD_FAILURE() << "examples/latency.yaml has no variant " << name;
  return 0;
}

constexpr const char* kSeed002 =
    "shared/seeds/002 (Architects' Tech Alliance article): 'TCP/IP ~50 us, RoCEv2 ~5 us, "
    "InfiniBand ~2 us' in intra-cluster one-hop tests";

TEST(LadderCalibration, Seed002TcpOneHopIsTensOfMicroseconds) {
  check_figure(Figure{
      .name = "seed 002 era: kernel TCP one-hop latency (10GbE, 3.2 us switch, 20k/s interrupts)",
      .published = "~50 us (band: within a factor 2)",
      .source = kSeed002,
      .scenario = "ladder_test: examples/latency.yaml variant tcp-era, ping-pong 2 B, RTT / 2",
      .unit = "us",
      .value = ladder_us("tcp-era"),
      .lo = 25.0,
      .hi = 100.0});
}

// Mellanox's own contrast of the two models (2019, "InfiniBand In-Network Computing Technology
// and Roadmap", slide 4): "CPU-centric (onload): communications latencies of 30-40 us" against
// "data-centric (offload): 3-4 us".
TEST(LadderCalibration, OnloadTcpIsThirtyToFortyMicroseconds) {
  check_figure(Figure{
      .name = "era kernel TCP (onload) one-hop latency",
      .published = "30 - 40 us ('CPU-centric (onload)')",
      .source = "Mellanox, 'InfiniBand In-Network Computing Technology and Roadmap', Sept 2019, "
                "slide 4",
      .scenario = "ladder_test: variant tcp-era",
      .unit = "us",
      .value = ladder_us("tcp-era"),
      .lo = 30.0,
      .hi = 40.0});
}

// "ConnectX-2 chips supporting Ethernet with RoCE extensions have a latency of around
// 1.3 microseconds per 10GE port compared to something on the order of 5 to 10 microseconds
// for other commercially available adapters" (The Register, 2011-06-06): the iWARP RNICs of the
// time. Back to back, as above. A competitor's claim: UNVERIFIED as a measurement.
TEST(LadderCalibration, EraIwarpAdapterIsAboutFiveMicroseconds) {
  check_figure(Figure{
      .name = "era iWARP adapter, 2 B back to back on 10GbE",
      .published = "5 - 10 us ('other commercially available adapters', vendor claim)",
      .source = "The Register, 'Mellanox forges switch-hitting ConnectX-3 adapters', 2011-06-06",
      .scenario = "ladder_test: variant iwarp-era, zero-latency switch, 2 x 1.5 m",
      .unit = "us",
      .value = ladder_us("iwarp-era", {"fabric.switch.latency=0ns", "fabric.link.cable=1.5m"}),
      .lo = 4.5,
      .hi = 10.0});
}

TEST(LadderCalibration, Seed002RoceOneHopIsAFewMicroseconds) {
  check_figure(Figure{
      .name = "seed 002 era: RoCEv2 one-hop latency (connectx-3, 10GbE, 3.2 us DCB switch)",
      .published = "~5 us (band: within a factor 2)",
      .source = kSeed002,
      .scenario = "ladder_test: examples/latency.yaml variant roce-era, ping-pong 2 B, RTT / 2",
      .unit = "us",
      .value = ladder_us("roce-era"),
      .lo = 2.5,
      .hi = 10.0});
}

TEST(LadderCalibration, Seed002IbOneHopIsOneToTwoMicroseconds) {
  check_figure(Figure{
      .name = "seed 002 era: InfiniBand one-hop latency (connectx-3, FDR, 170 ns switch)",
      .published = "~2 us (issue 12: IB ~1-2 us); perftest-level, the seed's figure is higher",
      .source = kSeed002,
      .scenario = "ladder_test: examples/latency.yaml variant ib-era, ping-pong 2 B, RTT / 2",
      .unit = "us",
      .value = ladder_us("ib-era"),
      .lo = 0.9,
      .hi = 2.5});
}

// The seed's ratio is ~2.5; fabricsim's era ratio is larger because its IB figure is the
// perftest one (~1 us), not the seed's 2 us. The ordering is what must hold.
TEST(LadderCalibration, Seed002EraRoceOverIbRatio) {
  check_figure(Figure{
      .name = "seed 002 era: RoCEv2 / InfiniBand one-hop latency ratio",
      .published = "~2.5 (5 us / 2 us)",
      .source = kSeed002,
      .scenario = "ladder_test: variants roce-era / ib-era",
      .unit = "x",
      .value = ladder_us("roce-era") / ladder_us("ib-era"),
      .lo = 1.5,
      .hi = 5.0});
}

TEST(LadderCalibration, ConnectX3FdrIbWriteLatOneSwitch) {
  check_figure(Figure{
      .name = "ib_write_lat 2 B, one FDR switch, ConnectX-3 (era profile)",
      .published = "0.98 us typical",
      .source = "published perftest log, ConnectX-3 FDR (mlx4), switched (as nic_test.cpp)",
      .scenario = "ladder_test: variant ib-era (connectx-3, 54.5 Gb/s, 170 ns switch, 2 x 3 m)",
      .unit = "us",
      .value = ladder_us("ib-era"),
      .lo = 0.90,
      .hi = 1.10});
}

// "With the ConnectX-3 chip implemented in an FDR InfiniBand or 40GE port with either RDMA or
// RoCE turned on will get sub-microsecond latency" (Mellanox's J. Monson, The Register,
// 6 June 2011). Back to back as nic_test emulates it: a zero-latency switch, 2 x 1.5 m.
TEST(LadderCalibration, ConnectX3RoceOn40GbeIsSubMicrosecond) {
  check_figure(Figure{
      .name = "RoCE 2 B back to back on 40GbE, ConnectX-3 (era profile)",
      .published = "sub-microsecond (ConnectX-2 on 10GbE: ~1.3 us)",
      .source = "The Register, 'Mellanox forges switch-hitting ConnectX-3 adapters', 2011-06-06",
      .scenario = "ladder_test: variant roce-era at 40 Gb/s, zero-latency switch, 2 x 1.5 m",
      .unit = "us",
      .value = ladder_us("roce-era", {"fabric.link.rate=40Gbps", "fabric.switch.latency=0ns",
                                      "fabric.link.cable=1.5m"}),
      .lo = 0.70,
      .hi = 1.00});
}

TEST(LadderCalibration, TodayIbPingPongOneSwitch) {
  check_figure(Figure{
      .name = "ib_write_lat 2 B, one switch, as a ping-pong (connectx-7, today)",
      .published = "0.96 - 1.00 us (typical)",
      .source = "perftest logs on ConnectX HCAs: ib_send_lat 2 B 1.00 us (mlx5, IB, one switch); "
                "docs/calibration.md NIC latency profiles",
      .scenario = "ladder_test: variant ib-today (400 Gb/s, 130 ns switch, 2 x 3 m), RTT / 2",
      .unit = "us",
      .value = ladder_us("ib-today"),
      .lo = 0.90,
      .hi = 1.10});
}

TEST(LadderCalibration, TodayRocePingPongOneSwitch) {
  check_figure(Figure{
      .name = "ib_write_lat 2 B, one switch, RoCEv2, as a ping-pong (connectx-7, today)",
      .published = "IB figure + ~0.3 us switch difference (UNVERIFIED)",
      .source = "UNM ConnectX-4 study via NADDOD (IB ~10% lower); switch latencies SPEC §8",
      .scenario = "ladder_test: variant roce-today (400 Gb/s, 450 ns switch, 2 x 3 m), RTT / 2",
      .unit = "us",
      .value = ladder_us("roce-today"),
      .lo = 1.10,
      .hi = 1.60});
}

}  // namespace ladder_test
}  // namespace fabricsim
