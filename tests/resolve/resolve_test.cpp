// resolve() is the one place a scenario's rules between keys are checked and its derived defaults
// filled (issue 21 item 1): the refusals that used to surface only while the Simulation was being
// built come from resolve() alone, without building anything; what it derives matches the rules
// written out by hand below; and the same input gives the same output.
#include "resolve/resolve.h"

#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace resolve_test {

Scenario scenario_of(const std::string& yaml) { return load_scenario_string(yaml, "s.yaml").scenario; }

// "key: message" of resolve()'s InputError, "" when the scenario passes.
std::string refusal(const std::string& yaml) {
  try {
    (void)resolve(scenario_of(yaml));
  } catch (const InputError& e) {
    return e.key_path() + ": " + e.what();
  }
  return "";
}

TEST(Resolve, RefusesWhatOnlyTheBuildUsedToRefuse) {
  const std::string four = "hosts: {count: 4}\n";
  EXPECT_EQ(refusal(four + "fabric: {roce: {plb: {enabled: true}}}\n"),
            "fabric.roce.plb.enabled: PLB reacts to ECN marks: set fabric.ecn.marking: on (or use "
            "DCQCN)");
  EXPECT_EQ(refusal(four + "fabric: {ecn: {marking: on, kmin: 100KB, kmax: 50KB}}\n"),
            "fabric.ecn.kmax: must be at least fabric.ecn.kmin");
  EXPECT_EQ(refusal(four + "fabric: {technology: uet}\noutputs: {pcap: {frames: 10}}\n"),
            "outputs.pcap.frames: packet capture synthesizes RoCEv2/InfiniBand frames; a uet run "
            "has none");
  EXPECT_EQ(refusal(four + "fabric: {technology: iwarp}\noutputs: {pcap: {frames: 10}}\n"),
            "outputs.pcap.frames: packet capture synthesizes RoCEv2/InfiniBand frames; a "
            "tcp/iwarp run has none");
  EXPECT_EQ(refusal(four + "fabric: {technology: tcp, nic: {context_cache: {enabled: true}}}\n"),
            "fabric.nic.context_cache.enabled: kernel TCP keeps its connection state in host "
            "memory; the NIC context cache applies to iwarp, roce and ib");
  EXPECT_EQ(refusal(four + "fabric: {technology: uet, nic: {context_cache: {enabled: true}}}\n"),
            "fabric.nic.context_cache.enabled: the connection-context cache is modelled for roce "
            "and ib QPs, not uet");
  EXPECT_EQ(refusal("hosts: {count: 2}\nnode: {gpus_per_node: 2}\noutputs: {steady_window: true}\n"),
            "outputs.steady_window: measures the flows of a traffic pattern; GPU runs report "
            "their collectives and steps instead");
  // The same features where they exist pass.
  EXPECT_EQ(refusal(four + "fabric: {technology: iwarp, nic: {context_cache: {enabled: true}}}\n"),
            "");
  EXPECT_EQ(refusal(four + "fabric: {ecn: {marking: on}, roce: {plb: {enabled: true}}}\n"), "");
}

// A lossless Dragonfly moves a packet up one class per global hop (routing/dragonfly.h): Valiant
// crosses at most two global links, so classes base, base + 1 and base + 2 must be lossless and
// ECN-marked; minimal crosses one, so base and base + 1. Base = fabric.roce.data_priority (3).
TEST(Resolve, WidensTheDragonflysLosslessClasses) {
  const std::string df =
      "fabric: {link: {rate: 100Gbps}, pfc: {enabled: true}, roce: {out_of_order: true}}\n"
      "topology: {kind: dragonfly, dragonfly: {p: 2}}\n"
      "workload: {kind: pattern, pattern: group_shift, flow_size: 1MB}\n";
  const Resolved valiant = resolve(scenario_of(df + "routing: {dragonfly: valiant}\n"));
  EXPECT_EQ(valiant.sc.switch_config.pfc.lossless_mask, (1u << 3) | (1u << 4) | (1u << 5));
  EXPECT_EQ(valiant.sc.switch_config.ecn.mask, (1u << 3) | (1u << 4) | (1u << 5));
  const Resolved minimal = resolve(scenario_of(df));
  EXPECT_EQ(minimal.sc.switch_config.pfc.lossless_mask, (1u << 3) | (1u << 4));
  // group_shift's groups are the Dragonfly's: p NICs per switch x a switches per group, with
  // a = 2p for the balanced shape (Kim et al. ISCA 2008): 2 x 4 = 8.
  EXPECT_EQ(minimal.sc.workload.group_nics, 8);
}

// DCQCN's ECN thresholds come from its profile (transport/dcqcn.h) unless the scenario sets
// them; a scenario's own kmin wins.
TEST(Resolve, EcnThresholdsFollowTheDcqcnProfileUnlessSet) {
  const Resolved r = resolve(scenario_of("hosts: {count: 4}\nfabric: {roce: {cc: dcqcn}}\n"));
  EXPECT_TRUE(r.sc.switch_config.ecn.enabled) << "marking: auto is on with DCQCN";
  EXPECT_EQ(r.sc.switch_config.ecn.kmin_bytes, r.dcqcn.ecn.kmin_bytes);
  EXPECT_EQ(r.sc.switch_config.ecn.kmax_bytes, r.dcqcn.ecn.kmax_bytes);
  const Resolved set =
      resolve(scenario_of("hosts: {count: 4}\nfabric: {roce: {cc: dcqcn}, ecn: {kmin: 7KB}}\n"));
  EXPECT_EQ(set.sc.switch_config.ecn.kmin_bytes, 7000);
  EXPECT_FALSE(resolve(scenario_of("hosts: {count: 4}\n")).sc.switch_config.ecn.enabled)
      << "no congestion control: marking auto stays off";
}

TEST(Resolve, IsAPureFunctionOfItsInput) {
  const Scenario in = scenario_of("hosts: {count: 4}\nfabric: {technology: ib}\n");
  const Resolved a = resolve(in);
  const Resolved b = resolve(in);
  EXPECT_EQ(a.sc.roce.mtu_bytes, b.sc.roce.mtu_bytes);
  EXPECT_EQ(a.sc.nic.tx_latency_ps, b.sc.nic.tx_latency_ps);
  EXPECT_EQ(a.sc.switch_config.pfc.lossless_mask, b.sc.switch_config.pfc.lossless_mask);
  EXPECT_EQ(a.sc.ib.link.data_vls, b.sc.ib.link.data_vls);
}

}  // namespace resolve_test
}  // namespace fabricsim::scenario
