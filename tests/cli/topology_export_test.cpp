// `fabricsim topology-export`: the built topology on stdout in the native topology-file form,
// which reads back with the counts of the k-ary fat-tree (Al-Fares et al. 2008: k=4 holds
// k^3/4 = 16 NICs, 5k^2/4 = 20 switches, 3k^3/4 = 48 cables); bad input exits 2 with one line.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "../support/cli_runner.h"
#include "topo/file_topology.h"

namespace topology_export_test {

using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::ScratchDir;
using fabricsim::test_support::run_fabricsim;
using fabricsim::test_support::shell_quote;

TEST(TopologyExport, PrintsTheFatTreeInTheNativeForm) {
  ScratchDir scratch("fabricsim_topology_export");
  const std::string scenario = (scratch.path() / "k4.yaml").string();
  std::ofstream(scenario) << "topology: {kind: fat_tree, tiers: 3, radix: 4}\nhosts: {count: 16}\n";
  const CliOutcome r = run_fabricsim("topology-export " + shell_quote(scenario), scratch.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const fabricsim::topo::TopologyFile f =
      fabricsim::topo::parse_topology_text(r.out, "stdout", "topology.file");
  EXPECT_EQ(f.nics(), 16);
  EXPECT_EQ(f.switches(), 20);
  EXPECT_EQ(f.links.size(), 48u);
}

TEST(TopologyExport, BadTopologyFileExitsTwoWithFileAndLine) {
  ScratchDir scratch("fabricsim_topology_export");
  std::ofstream(scratch.path() / "bad.topo") << "nic a\nnic b\nswitch s\nlink a s\nlink b q\n";
  const std::string scenario = (scratch.path() / "bad.yaml").string();
  std::ofstream(scenario) << "topology: {kind: file, file: bad.topo}\n";
  const CliOutcome r = run_fabricsim("topology-export " + shell_quote(scenario), scratch.path());
  EXPECT_EQ(r.exit_code, 2);
  ASSERT_EQ(r.err_lines.size(), 1u) << r.err;
  EXPECT_EQ(r.err_lines[0], (scratch.path() / "bad.topo").string() +
                                ":5: topology.file: unknown node 'q' (declare it with nic or "
                                "switch first)");
}

}  // namespace topology_export_test
