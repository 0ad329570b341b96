// Registry entries of the Dragonfly topology and its routing (issue 12 item 4):
// topology.dragonfly.* (topo/dragonfly.cpp) and routing.dragonfly (routing/dragonfly.h).
#include <string>
#include <utility>
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

const std::vector<Condition> dfly = {{"topology.kind", "dragonfly"}};

const std::vector<Knob> kDragonflyKnobs = {
    bind(
        {.path = "topology.dragonfly.p",
         .type = KnobType::kInt,
         .description = "NICs per switch (p); the switch radix is p + (a - 1) + h and the "
                        "fabric has p·a·g NICs (hosts.count follows)",
         .source = "Kim, Dally, Scott, Abts, ISCA 2008 §3; default 2: the balanced a=4, p=2, "
                   "h=2, g=9 (72 NICs) of Kim et al.'s small example, quick to simulate",
         .min = Bound{1},
         .max = Bound{512},
         .only_with = dfly},
        [](auto& s) -> auto& { return s.topology.dfly_p; }),
    bind(
        {.path = "topology.dragonfly.a",
         .type = KnobType::kInt,
         .description = "Switches per group (a), all-to-all local links; 0 = balanced, a = 2p",
         .source = "Kim et al. ISCA 2008 §3.1: a = 2p = 2h balances local and global channel "
                   "load under uniform traffic",
         .min = Bound{0},
         .max = Bound{1024},
         .only_with = dfly},
        [](auto& s) -> auto& { return s.topology.dfly_a; }),
    bind(
        {.path = "topology.dragonfly.h",
         .type = KnobType::kInt,
         .description = "Global links per switch (h); 0 = balanced, h = p",
         .source = "Kim et al. ISCA 2008 §3.1 (a = 2p = 2h)",
         .min = Bound{0},
         .max = Bound{1024},
         .only_with = dfly},
        [](auto& s) -> auto& { return s.topology.dfly_h; }),
    bind(
        {.path = "topology.dragonfly.groups",
         .type = KnobType::kInt,
         .description = "Groups (g); 0 = the largest, a·h + 1 (one global link per group "
                        "pair). Fewer groups must have g - 1 dividing a·h (the same number of "
                        "links per group pair)",
         .source = "Kim et al. ISCA 2008 §3: g <= a·h + 1",
         .min = Bound{0},
         .max = Bound{65535},
         .only_with = dfly},
        [](auto& s) -> auto& { return s.topology.dfly_groups; }),
    bind_enum(
        {.path = "topology.dragonfly.arrangement",
         .description = "Which global port leads to which group: absolute (consecutive: group "
                        "i's port t goes to group t, skipping i) or palmtree (port t goes to "
                        "group i - t - 1 mod g)",
         .source = "absolute: Kim et al. ISCA 2008 wiring, named by Hastings et al. IEEE Cluster "
                   "2015 (the default: comparable with the original results); palmtree: "
                   "Camarero, Vallejo, Beivide, ACM TACO 2014",
         .only_with = dfly},
        std::vector<std::pair<std::string, topo::DragonflyArrangement>>{
            {"absolute", topo::DragonflyArrangement::kAbsolute},
            {"palmtree", topo::DragonflyArrangement::kPalmtree}},
        [](auto& s) -> auto& { return s.topology.dfly_arrangement; }),
    bind(
        {.path = "topology.dragonfly.global_cable",
         .type = KnobType::kLength,
         .description = "Cable length of the global (inter-group, optical) links; local and NIC "
                        "links take fabric.link.cable",
         .source = "inter-group optical links span inter-cabinet distances of tens of metres "
                   "(Kim et al. ISCA 2008 §3; doi:10.1007/978-3-319-67630-2_5); 30 m is the "
                   "middle of that range, UNVERIFIED as a measured figure",
         .min = Bound{0},
         .max = Bound{20'000'000},
         .only_with = dfly},
        [](auto& s) -> auto& { return s.topology.dfly_global_cable_m; }),
};

// Registered last: the routing and workload groups keep their place in key listings.
const std::vector<Knob> kDragonflyRoutingKnobs = {
    bind(
        {.path = "workload.group_size",
         .type = KnobType::kInt,
         .description = "pattern group_shift: NICs per group (NIC j of group i sends to NIC j "
                        "of group i + 1); 0 = a Dragonfly's p·a",
         .source = "Kim et al. ISCA 2008 §4: the adversarial (worst-case) pattern, each group "
                   "sending to the next",
         .min = Bound{0},
         .max = Bound{16'777'216},
         .only_with = {{"workload.pattern", "group_shift"}}},
        [](auto& s) -> auto& { return s.workload.group_nics; }),
    bind_enum(
        {.path = "routing.dragonfly",
         .description = "Dragonfly routing: minimal (local, global, local), valiant (a random "
                        "intermediate group per packet) or ugal (UGAL-L: the source switch picks "
                        "minimal or one Valiant candidate by queued bytes x hops). valiant and "
                        "ugal reorder a flow's packets (RoCE needs fabric.roce.out_of_order) and "
                        "are Ethernet only; InfiniBand routes minimally by the SM's LFTs (with "
                        "routing.sm.adaptive for AR). Lossless classes move up one per global hop "
                        "(2 classes minimal, 3 valiant/ugal)",
         .source = "Kim et al. ISCA 2008 §4 (minimal, Valiant, UGAL-L; VCs per phase); Valiant, "
                   "SIAM J. Comput. 1982; Singh, PhD thesis, Stanford 2005 (UGAL)",
         .only_with = dfly},
        std::vector<std::pair<std::string, routing::DragonflyRouting>>{
            {"minimal", routing::DragonflyRouting::kMinimal},
            {"valiant", routing::DragonflyRouting::kValiant},
            {"ugal", routing::DragonflyRouting::kUgal}},
        [](auto& s) -> auto& { return s.ecmp.dragonfly; }),
};

}  // namespace

const std::vector<Knob>& dragonfly_knobs() { return kDragonflyKnobs; }
const std::vector<Knob>& dragonfly_routing_knobs() { return kDragonflyRoutingKnobs; }

}  // namespace fabricsim::scenario
