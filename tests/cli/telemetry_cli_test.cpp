// outputs.timeseries.* on the command line: bad input exits 2 with one `file:line: key: message`
// line and writes nothing; a good run writes the two CSVs with the agreed headers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../support/cli_runner.h"

namespace telemetry_cli_test {

namespace fs = std::filesystem;
using fabricsim::test_support::CliOutcome;

class TelemetryCli : public fabricsim::test_support::CliFixture {
 protected:
  TelemetryCli() : CliFixture("fabricsim_telemetry_cli") {}
};

constexpr const char* kIncast =
    "name: small\n"
    "topology: {kind: leaf_spine, radix: 8}\n"
    "hosts: {count: 8}\n"
    "workload: {kind: pattern, pattern: incast, senders: 3, receiver: 0, flow_size: 256KB}\n";

TEST_F(TelemetryCli, UnknownPortLabelNamesItsLine) {
  const std::string file = write("bad_port.yaml", std::string(kIncast) +
                                                      "outputs:\n"
                                                      "  timeseries:\n"
                                                      "    interval: 5us\n"
                                                      "    ports: [sw0:0->nic0, sw9:1->sw2]\n");
  expect_bad_input(file, "",
                   "^.*bad_port\\.yaml:8: outputs\\.timeseries\\.ports: no port 'sw9:1->sw2' in "
                   "this fabric .*$");
}

TEST_F(TelemetryCli, NegativeIntervalNamesItsLine) {
  const std::string file = write("bad_interval.yaml",
                                 std::string(kIncast) + "outputs: {timeseries: {interval: -5us}}\n");
  expect_bad_input(file, "",
                   "^.*bad_interval\\.yaml:5: outputs\\.timeseries\\.interval: negative value "
                   "'-5us' is not allowed$");
}

TEST_F(TelemetryCli, NegativeTopAndEmptyNameAreRefused) {
  const std::string file = write("good.yaml", kIncast);
  expect_bad_input(file, "--set outputs.timeseries.interval=5us --set outputs.timeseries.top=-1",
                   "^--set:2: outputs\\.timeseries\\.top: must be >= 0$");
  expect_bad_input(file, "--set 'outputs.timeseries.ports=sw0:0->nic0,,x'",
                   "^--set:1: outputs\\.timeseries\\.ports: empty name in the list.*$");
}

TEST_F(TelemetryCli, RunWritesBothSeries) {
  const std::string file =
      write("ok.yaml", std::string(kIncast) + "outputs: {timeseries: {interval: 5us, top: 2}}\n");
  const fs::path out = dir_ / "out";
  const CliOutcome o = run("run '" + file + "' --out '" + out.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("timeseries_ports.csv, timeseries_qps.csv"), std::string::npos) << o.out;
  std::ifstream ports(out / "timeseries_ports.csv");
  std::string header;
  std::getline(ports, header);
  EXPECT_EQ(header,
            "time_ps,port,link,utilization,queue_bytes,q0_bytes,q1_bytes,q2_bytes,q3_bytes,"
            "q4_bytes,q5_bytes,q6_bytes,q7_bytes,paused_fraction,credits_blocks");
  std::ifstream qps(out / "timeseries_qps.csv");
  std::getline(qps, header);
  EXPECT_EQ(header, "time_ps,qp,src_nic,dst_nic,cc,rate_bps,window_bytes");
  std::string row;
  ASSERT_TRUE(std::getline(qps, row)) << "three QPs were sampled";
  // The series are fabricsim's own files: a second run may replace the directory.
  const CliOutcome again = run("run '" + file + "' --out '" + out.string() + "'");
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

}  // namespace telemetry_cli_test

namespace telemetry_cli_test {

// 10^6 samples of every port (8 NICs: 32 ports x 56 B = 1.8 KB per sample) need ~1.8 GB: the
// pre-flight refuses the run before it starts, naming the key that bounds the samples.
TEST_F(TelemetryCli, PreflightRefusesSamplesThatWouldNotFit) {
  const std::string file = write("big.yaml", std::string(kIncast) +
                                                 "outputs: {timeseries: {interval: 1ns, "
                                                 "max_samples: 1000000}}\n");
  const CliOutcome o =
      run("run '" + file + "' --max-memory 500MiB --out '" + (dir_ / "out").string() + "'");
  EXPECT_EQ(o.exit_code, 2) << o.err;
  ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
  EXPECT_NE(o.err_lines[0].find("outputs.timeseries.max_samples: estimated peak memory"),
            std::string::npos)
      << o.err;
  EXPECT_NE(o.err_lines[0].find("time series"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

}  // namespace telemetry_cli_test
