// Registry entry of how a partial fat-tree's upper tiers are built (issue 13 item 6):
// topology.upper_tiers. The rule and its sources: topo/fat_tree.cpp, docs/topologies.md.
#include <cstdint>
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"
#include "topo/topology_spec.h"

namespace fabricsim::scenario {

using knob_bind::bind_enum;

namespace {

const std::vector<Knob> kFatTreeKnobs = {
    bind_enum(
        {.path = "topology.upper_tiers",
         .description = "The spines (2 tiers) and cores (3 tiers) of a partial fat_tree, "
                        "leaf_spine or rail fabric: fewest = the fewest that take every leaf/agg "
                        "uplink, the smallest divisor S of the uplinks with S >= ceil(switches "
                        "below x uplinks / radix), uplinks/S parallel cables per pair (a full "
                        "tree is unchanged); full = the switches of the full tree (one spine per "
                        "leaf uplink, k/2 cores per agg group), one cable per pair, the spare "
                        "ports left for the leaves/pods a full tree adds",
         .source = "fewest: NVIDIA DGX SuperPOD B200 RA larger-SuperPOD table (4 SU: 32 "
                   "leaves, 16 spines, 1,024 leaf-spine cables; 16 SU: 128 leaves, 128 spines, "
                   "64 cores) and B300 XDR RA table 3 (docs/reference/gpu-node.md s4); full: "
                   "the k-ary fat-tree of Al-Fares et al., SIGCOMM 2008, built whole"},
        std::vector<std::pair<std::string, topo::UpperTiers>>{{"fewest", topo::UpperTiers::kFewest},
                                                              {"full", topo::UpperTiers::kFull}},
        [](auto& s) -> auto& { return s.topology.upper_tiers; }),
};

}  // namespace

const std::vector<Knob>& fat_tree_knobs() { return kFatTreeKnobs; }

}  // namespace fabricsim::scenario
