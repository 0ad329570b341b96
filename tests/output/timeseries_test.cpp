// timeseries_ports.csv / timeseries_qps.csv text from a hand-built TelemetryResult: the agreed
// columns and the arithmetic (utilization = bytes x 8 / (rate x interval)), derived here.
#include <gtest/gtest.h>

#include <climits>

#include "output/timeseries.h"

namespace fabricsim::output {
namespace timeseries_test {

scenario::TelemetryResult two_samples() {
  scenario::TelemetryResult t;
  t.present = true;
  t.interval_ps = 10'000'000;             // 10 us
  t.times_ps = {10'000'000, 14'000'000};  // the second: a partial 4 us interval
  scenario::PortSeries p;
  p.port = 7;
  p.label = "sw1:3->sw4";
  p.rate_bps = 400'000'000'000;
  scenario::PortSample a;
  a.tx_bytes = 250'000;  // 10 us x 400 Gb/s = 500,000 bytes: half
  a.paused_ps = 2'500'000;
  a.class_bytes[3] = 9000;
  a.class_bytes[6] = 100;
  scenario::PortSample b;
  b.tx_bytes = 200'000;  // 4 us x 400 Gb/s = 200,000 bytes: all of it
  b.credits_blocks = 12;
  p.samples = {a, b};
  t.ports.push_back(p);
  scenario::QpSeries dcqcn;
  dcqcn.qp = 0;
  dcqcn.src_nic = 1;
  dcqcn.dst_nic = 0;
  dcqcn.cc = "dcqcn";
  dcqcn.rate_bps = {100'000'000'000, 40'000'000'000};
  dcqcn.window_bytes = {-1, -1};
  scenario::QpSeries late;  // opened after the first sample
  late.qp = 2;
  late.src_nic = 3;
  late.dst_nic = 0;
  late.cc = "nscc";
  late.rate_bps = {INT64_MIN, -1};
  late.window_bytes = {INT64_MIN, 65536};
  t.qps = {dcqcn, late};
  return t;
}

TEST(TimeseriesCsv, PortsColumnsAndArithmetic) {
  EXPECT_EQ(timeseries_ports_csv_text(two_samples()),
            "time_ps,port,link,utilization,queue_bytes,q0_bytes,q1_bytes,q2_bytes,q3_bytes,"
            "q4_bytes,q5_bytes,q6_bytes,q7_bytes,paused_fraction,credits_blocks\n"
            "10000000,7,sw1:3->sw4,0.500000000,9100,0,0,0,9000,0,0,100,0,0.250000000,\n"
            "14000000,7,sw1:3->sw4,1.000000000,0,0,0,0,0,0,0,0,0,0.000000000,12\n");
}

TEST(TimeseriesCsv, QpsRowsOnceOpenWithEmptyCellsForMissingQuantities) {
  EXPECT_EQ(timeseries_qps_csv_text(two_samples()),
            "time_ps,qp,src_nic,dst_nic,cc,rate_bps,window_bytes\n"
            "10000000,0,1,0,dcqcn,100000000000,\n"
            "14000000,0,1,0,dcqcn,40000000000,\n"
            "14000000,2,3,0,nscc,,65536\n");
}

TEST(TimeseriesCsv, NoSamplesIsTheHeaderAlone) {
  scenario::TelemetryResult t;
  t.present = true;
  EXPECT_EQ(timeseries_ports_csv_text(t), std::string(kTimeseriesPortsHeader) + "\n");
  EXPECT_EQ(timeseries_qps_csv_text(t), std::string(kTimeseriesQpsHeader) + "\n");
}

}  // namespace timeseries_test
}  // namespace fabricsim::output
