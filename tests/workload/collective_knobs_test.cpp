// The collective.* scenario keys: each default is the CollectiveConfig value (read from a
// default Scenario), each cites its source (NCCL's file at nccl@5067397, or says UNVERIFIED),
// bad values are refused, and a set value lands in Scenario::collective.
#include <gtest/gtest.h>

#include <string>

#include "spec/knobs.h"

namespace fabricsim::scenario {
namespace collective_knobs_test {

TEST(CollectiveKnobs, DefaultsAndSources) {
  int count = 0;
  for (const Knob& k : knobs()) {
    if (k.path.rfind("collective.", 0) != 0) continue;
    ++count;
    // collective.fold_channels, fold_lanes and fold_p2p are the simulator's own (how it moves
    // NCCL's channels and chunks, not a figure of NCCL's): their sources name what makes them
    // right.
    const bool own = k.path == "collective.fold_channels" || k.path == "collective.fold_lanes" ||
                     k.path == "collective.fold_p2p";
    EXPECT_TRUE(own ? k.source.rfind("fabricsim:", 0) == 0
                    : k.source.find("nccl@5067397") != std::string::npos ||
                          k.source.find("UNVERIFIED") != std::string::npos ||
                          k.source.find("DGX") != std::string::npos)
        << k.path << ": " << k.source;
    EXPECT_FALSE(k.description.empty()) << k.path;
  }
  EXPECT_GE(count, 40);
  const Scenario s;
  auto get = [&](const char* path) { return find_knob(path)->get(s); };
  EXPECT_EQ(get("collective.channels"), "16");
  EXPECT_EQ(get("collective.nccl_steps"), "8");
  EXPECT_EQ(get("collective.latency.ring.nvlink.simple"), "3.4us");
  EXPECT_EQ(get("collective.latency.tree.net.ll"), "5us");
  EXPECT_EQ(get("collective.latency.ring.base.ll"), "6.6us");
  EXPECT_EQ(get("collective.buffer.simple"), "4MiB");
  EXPECT_EQ(get("collective.efficiency.ll128"), "0.9375");
  EXPECT_EQ(get("collective.p2p_net_chunk"), "128KiB");
  EXPECT_EQ(get("collective.intra_link"), "nvlink");
  EXPECT_EQ(get("collective.fold_channels"), "true");
}

TEST(CollectiveKnobs, RangesAndSetting) {
  EXPECT_FALSE(parse_knob_value(*find_knob("collective.channels"), "0").ok);
  EXPECT_FALSE(parse_knob_value(*find_knob("collective.channels"), "65").ok);
  EXPECT_FALSE(parse_knob_value(*find_knob("collective.efficiency.ll"), "1.5").ok);
  EXPECT_FALSE(parse_knob_value(*find_knob("collective.nccl_steps"), "33").ok);
  EXPECT_FALSE(parse_knob_value(*find_knob("collective.latency.ring.net.ll"), "3").ok);  // no unit
  Scenario s;
  const Knob& k = *find_knob("collective.latency.tree.nvlink.ll128");
  const auto v = parse_knob_value(k, "2us");
  ASSERT_TRUE(v.ok) << v.error;
  k.set(s, v.value);
  EXPECT_EQ(s.collective.tree.hop_ps[workload::kLinkNvlink][workload::kProtoLL128], 2'000'000);
  const Knob& e = *find_knob("collective.intra_link");
  e.set(s, parse_knob_value(e, "pci").value);
  EXPECT_EQ(s.collective.intra_link_class, workload::kLinkPci);
}

}  // namespace collective_knobs_test
}  // namespace fabricsim::scenario
