// routes.csv: the Subnet Manager's per-port route counts of an InfiniBand run, written next to
// result.json, against the counts a balanced fat-tree routing must give.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "output/csv.h"
#include "output/write.h"
#include "engine/run.h"

namespace fabricsim {
namespace routes_csv_test {

TEST(RoutesCsv, EveryLeafSpreadsItsRemoteCasEvenlyOverItsUplinks) {
  // 3-tier k=4 fat-tree, 16 CAs: an edge switch has 2 CAs and 2 uplinks, so its 14 remote CAs
  // go 7 and 7; an aggregation switch has 4 CAs below and 2 uplinks: 12 remote, 6 and 6. Every
  // down port to a CA carries exactly that CA's LID.
  scenario::Scenario sc;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 3;
  sc.topology.radix = 4;
  sc.topology.hosts = 16;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = 4096;
  const scenario::RunResult r = scenario::run_scenario(sc);
  ASSERT_FALSE(r.sm_routes.empty()) << "an IB run reports its routes";
  for (const scenario::PortRoutes& p : r.sm_routes) {
    if (p.far_is_nic) {
      EXPECT_EQ(p.routes, 1) << "switch " << p.switch_index << " port " << p.port << ": one CA";
    } else if (p.up && p.tier == 1) {
      EXPECT_EQ(p.routes, 7) << "edge " << p.switch_index << " uplink " << p.port;
    } else if (p.up && p.tier == 2) {
      EXPECT_EQ(p.routes, 6) << "aggregation " << p.switch_index << " uplink " << p.port;
    }
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "fabricsim-routes";
  std::filesystem::remove_all(dir);
  output::write_run_files(dir, r);
  std::ifstream in(dir / "routes.csv");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), output::routes_csv_text(r.sm_routes)) << "routes.csv is written";
  EXPECT_EQ(text.str().substr(0, text.str().find('\n')), "switch,tier,port,direction,far,routes");
  std::filesystem::remove_all(dir);
}

TEST(RoutesCsv, RoceRunsHaveNone) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 4;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = 4096;
  EXPECT_TRUE(scenario::run_scenario(sc).sm_routes.empty()) << "ECMP has no SM routes";
}

}  // namespace routes_csv_test
}  // namespace fabricsim
