// examples/multi-plane.yaml through `fabricsim compare`: the physics each column shows, against
// bounds derived from the rates (not from earlier runs).
//
// 16 NICs of N = 400 Gb/s, 4 planes of r = 100 Gb/s; all-to-all of 1 MB: every NIC sends 15
// messages and receives 15. A 1 MB message is 245 frames (244 of 4096 + 82 bytes on the wire, the
// last of 576 + 82; UET's headers are within a few bytes of RoCE's: the bounds allow 1%).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "../support/cli_runner.h"

namespace fabricsim {
namespace multi_plane_example_test {

namespace fs = std::filesystem;
using test_support::CliOutcome;
using test_support::parse_csv;
using test_support::read_file;
using test_support::run_fabricsim;
using test_support::ScratchDir;
using test_support::shell_quote;

const fs::path kSourceDir = FABRICSIM_SOURCE_DIR;

TEST(MultiPlaneExample, ColumnsShowThePlaneSplitAndThePlaneFailure) {
  ScratchDir scratch("fabricsim_multi_plane");
  const fs::path out = scratch / "out";
  const CliOutcome r =
      run_fabricsim("compare " + shell_quote((kSourceDir / "examples" / "multi-plane.yaml").string()) +
                        " --out " + shell_quote(out.string()),
                    scratch.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = parse_csv(read_file(out / "compare.csv"));
  ASSERT_GE(rows.size(), 2u);
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
  std::map<std::string, std::vector<std::string>> by;
  for (size_t i = 1; i < rows.size(); ++i) by[rows[i][0]] = rows[i];
  for (const char* v : {"one-plane", "per-connection", "per-packet", "plane-down", "spines-down",
                        "roce-plane-down", "ib-per-connection"}) {
    ASSERT_TRUE(by.count(v)) << v;
    EXPECT_EQ(by[v][col["flows_completed"]], "240") << v << ": every message delivered";
  }
  auto t = [&](const char* v) { return std::stod(by[v][col["completion_time_ps"]]); };
  auto n = [&](const char* v, const char* c) { return std::stod(by[v][col[c]]); };
  const double wire_msg = 244.0 * (4096 + 82) + (576 + 82);  // bytes of one 1 MB message
  const double ps_per_byte_nic = 8.0 * 1e12 / 400e9;
  const double ps_per_byte_plane = 8.0 * 1e12 / 100e9;
  // A NIC sends 15 messages through its 400 Gb/s: no split can finish sooner.
  const double nic_bound = 15 * wire_msg * ps_per_byte_nic;  // 306.0 us
  for (const char* v : {"one-plane", "per-connection", "per-packet"}) {
    EXPECT_GT(t(v), 0.99 * nic_bound) << v;
  }
  // Per packet, 4 planes of r carry what one fabric of N carries: within 5% of one-plane.
  EXPECT_NEAR(t("per-packet") / t("one-plane"), 1.0, 0.05);
  // Per connection, round-robin deals a NIC's 15 QPs over 4 planes as 4, 4, 4, 3: the busiest
  // plane port sends 4 messages at r, which takes longer than the NIC bound.
  const double busiest_plane = 4 * wire_msg * ps_per_byte_plane;  // 326.4 us
  EXPECT_GT(t("per-connection"), 0.99 * busiest_plane);
  EXPECT_GT(t("per-connection"), t("per-packet"));
  // Plane 1 fails at 100 us: what remains drains at 3/4 of the NIC rate, so it takes at least
  // 4/3 as long as in the healthy per-packet run; recovering the plane's in-flight packets
  // (dropped or trimmed, then resent after a NACK or UET's RTO) adds to it: bounded here by
  // 4/3 + 0.4, one RTO-scale recovery (~70 us) on the ~220 us that remained (measured 1.54).
  const double fail_ps = 100e6;
  const double stretch = (t("plane-down") - fail_ps) / (t("per-packet") - fail_ps);
  EXPECT_GT(stretch, 4.0 / 3.0 * 0.99);
  EXPECT_LT(stretch, 4.0 / 3.0 + 0.4);
  EXPECT_GT(n("plane-down", "dropped_packets"), 0) << "the plane had packets on it";
  // Only the spine tier down: the NICs cannot see it and keep spraying into plane 1 until the
  // routes converge (10 us): more is lost than when their own ports go down.
  EXPECT_GT(n("spines-down", "dropped_packets"), n("plane-down", "dropped_packets"));
  // RoCE recovers what was on the plane by the ACK timeout and go-back-N: slower than UET.
  EXPECT_GT(n("roce-plane-down", "timeouts"), 0);
  EXPECT_GT(t("roce-plane-down"), t("plane-down"));
  // InfiniBand, a subnet per plane and each QP on one port: its busiest plane port sends 4
  // messages of 244 full packets (4096 + 26 bytes: LRH, BTH, ICRC, VCRC) and one of 576 bytes,
  // the first with a RETH (16): 322.0 us at r. Credits, no drops: within 3 % of it.
  const double ib_msg = 244.0 * (4096 + 26) + (576 + 26) + 16;
  const double ib_busiest = 4 * ib_msg * ps_per_byte_plane;
  EXPECT_GT(t("ib-per-connection"), ib_busiest);
  EXPECT_LT(t("ib-per-connection"), 1.03 * ib_busiest);
  EXPECT_EQ(n("ib-per-connection", "dropped_packets"), 0);
}

}  // namespace multi_plane_example_test
}  // namespace fabricsim
