// Registry entries of the topology family and its size: topology.kind, topology.tiers, radix,
// oversubscription, hosts.*. Descriptions and sources restate src/topo/topology_spec.h; defaults
// are read from its members.
#include <string>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

using knob_bind::positive;

// topology.kind; leaf_spine and rail also set tiers 2.
Knob topology_kind_knob() {
  Knob kind = bind_enum(
      {.path = "topology.kind",
       .description = "Topology family; leaf_spine = fat_tree with tiers 2; rail = 2-tier "
                      "rail-optimized (NIC k of every host on rail k's leaves, spines joining "
                      "the rails; hosts.nics_per_host rails); file = the explicit graph in "
                      "topology.file (native form or HPCC/ns-3 topology.txt); dragonfly = "
                      "groups of all-to-all switches joined by global links "
                      "(topology.dragonfly.*)",
       .source = "fat_tree: Al-Fares et al., SIGCOMM 2008; rail: NVIDIA DGX SuperPOD "
                 "reference architectures (B200 RA component table, H100 RA-11333-001), see "
                 "docs/topologies.md; file: docs/topologies.md \"Topology files\", HPCC "
                 "topology.txt as alibaba-edu/High-Precision-Congestion-Control "
                 "simulation/scratch/third.cc reads it; dragonfly: Kim, Dally, Scott, "
                 "Abts, ISCA 2008"},
      std::vector<std::pair<std::string, topo::TopologyKind>>{
          {"fat_tree", topo::TopologyKind::kFatTree},
          {"leaf_spine", topo::TopologyKind::kFatTree},
          {"rail", topo::TopologyKind::kRail},
          {"file", topo::TopologyKind::kFile},
          {"dragonfly", topo::TopologyKind::kDragonfly}},
      [](auto& s) -> auto& { return s.topology.kind; });
  // Knobs are applied in registry order, so an explicit `tiers` (topology_size_knobs, later)
  // overrides this and the loader reports the contradiction.
  kind.set = [base = kind.set](Scenario& s, const KnobValue& v) {
    base(s, v);
    const std::string& name = std::get<std::string>(v);
    if (name == "leaf_spine" || name == "rail") s.topology.tiers = 2;
  };
  return kind;
}

const std::vector<Knob> kTopologyKindKnobs = {topology_kind_knob()};

const std::vector<Knob> kTopologySizeKnobs = {
    bind(
        {.path = "topology.tiers",
         .type = KnobType::kInt,
         .description = "Switch tiers: 2 = leaf-spine, 3 = k-ary fat-tree",
         .source = "Al-Fares et al., SIGCOMM 2008",
         .one_of = {2, 3}},
        [](auto& s) -> auto& { return s.topology.tiers; }),
    bind(
        {.path = "topology.radix",
         .type = KnobType::kInt,
         .description = "Ports per switch",
         .source = "SPEC §5 example; at most 1024 = twice the largest switch ASIC radix shipping "
                   "(Broadcom Tomahawk 6, 512 x 200GbE), which keeps k^3/4 NICs within int32",
         .min = Bound{4},
         .max = Bound{1024},
         .multiple_of = 2},
        [](auto& s) -> auto& { return s.topology.radix; }),
    bind(
        {.path = "topology.oversubscription",
         .type = KnobType::kDouble,
         .description = "Leaf downlinks : uplinks (1 = non-blocking)",
         .source = "SPEC §5 example",
         .min = Bound{1}},
        [](auto& s) -> auto& { return s.topology.oversubscription; }),
    bind(
        {.path = "hosts.count",
         .type = KnobType::kInt,
         .description = "Number of hosts; 1 only with node.gpus_per_node (one node's GPUs on "
                        "NVLink, run as a one-node job on a two-host fabric, as scaling.nodes "
                        "runs 1)",
         .source = "SPEC §5 example; at most 2^24 (16.7 M), ~80x the largest AI cluster built "
                   "(~200k GPUs), so hosts x NICs per host fits int32",
         .min = Bound{1},
         .max = Bound{16'777'216}},
        [](auto& s) -> auto& { return s.topology.hosts; }),
    bind(
        {.path = "hosts.nics_per_host",
         .type = KnobType::kInt,
         .description = "NICs per host; without GPUs every NIC is a rank/endpoint; with "
                        "topology.kind: rail, the number of rails (NIC k of every host is on rail "
                        "k). With node.gpus_per_node set and this key not, it is gpus_per_node "
                        "(one NIC per GPU)",
         .source = "one NIC per host; with GPUs one per GPU as DGX H100's 8 ConnectX-7 for 8 "
                   "GPUs (DGX BasePOD RA, docs/reference/gpu-node.md §1.3); at most 64",
         .min = Bound{1},
         .max = Bound{64}},
        [](auto& s) -> auto& { return s.topology.nics_per_host; }),
};

}  // namespace

const std::vector<Knob>& topology_kind_knobs() { return kTopologyKindKnobs; }
const std::vector<Knob>& topology_size_knobs() { return kTopologySizeKnobs; }

}  // namespace fabricsim::scenario
