// Registry entries of multi-plane fabrics (issue 12 item 5): topology.planes,
// topology.plane_rate, fabric.planes.split and the plane failure faults.plane_down.*. The model
// and its sources: topo/multi_plane.h and net/plane_choice.h.
#include <cstdint>
#include <vector>

#include "net/plane_choice.h"
#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

const std::vector<Knob> kPlanesKnobs = {
    bind(
        {.path = "topology.planes",
         .type = KnobType::kInt,
         .description = "Parallel planes: identical copies of the fat_tree/rail fabric, every NIC "
                        "with one port on each (1 = a single fabric). NIC i's plane selector is "
                        "switch i, then each plane's switches follow in turn",
         .source = "1; Alibaba HPN dual-plane: 2 (Qian et al., SIGCOMM 2024, doi "
                   "10.1145/3651890.3672265); NVIDIA Spectrum-X Multiplane on ConnectX-8: 2 "
                   "or 4 (NVIDIA Network Operator 26.4 docs, numberOfPlanes); at most 16",
         .min = Bound{1},
         .max = Bound{16}},
        [](auto& s) -> auto& { return s.topology.planes; }),
    bind(
        {.path = "topology.plane_rate",
         .type = KnobType::kRate,
         .description = "Rate of a NIC's plane port and of every link inside a plane; 0 = "
                        "fabric.link.rate / topology.planes (fabric.link.rate is the NIC's "
                        "aggregate)",
         .source = "a NIC of N Gb/s as P ports of N/P: HPN's NICs as 2 x 200G (SIGCOMM "
                   "2024), ConnectX-8's 800G as 4 x 200G (arithmetic; UNVERIFIED)",
         .min = Bound{0}},
        [](auto& s) -> auto& { return s.topology.plane_rate_bps; }),
    bind_enum(
        {.path = "fabric.planes.split",
         .description = "How a NIC spreads traffic over its planes: connection = each QP/PDC on "
                        "one plane, dealt round-robin (order kept; what a QP bound to one port "
                        "does); message = each message on one plane, round-robin (needs a "
                        "transport that accepts reordering between messages: uet or RoCE with "
                        "fabric.roce.out_of_order); packet = data packets round-robin over the "
                        "planes (reorders: same requirement). Control packets follow their "
                        "connection's plane. InfiniBand: connection only (a subnet per plane, "
                        "each QP bound to one HCA port)",
         .source = "connection: works with every transport; Spectrum-X swplb (one PF per "
                   "plane, software balancing; NVIDIA Network Operator 26.4 docs). packet: "
                   "hwplb's in-NIC fan-out, granularity UNVERIFIED"},
        std::vector<std::pair<std::string, uint8_t>>{
            {"connection", static_cast<uint8_t>(net::PlaneSplit::kConnection)},
            {"message", static_cast<uint8_t>(net::PlaneSplit::kMessage)},
            {"packet", static_cast<uint8_t>(net::PlaneSplit::kPacket)}},
        [](auto& s) -> auto& { return s.topology.plane_split; }),
    bind(
        {.path = "faults.plane_down.plane",
         .type = KnobType::kInt,
         .description = "A whole plane fails: every cable of it (its switch-to-switch links and "
                        "the NICs' ports on it) goes down at once; -1 = none. NICs stop using it "
                        "at once (local link down); the fabric's routes follow after "
                        "routing.ecmp.convergence. InfiniBand: the QPs bound to it stay (a QP "
                        "lives on one port) and exhaust their retries; new QPs take the other "
                        "planes; only that plane's SM re-sweeps",
         .source = "no failure",
         .min = Bound{-1},
         .max = Bound{15}},
        [](auto& s) -> auto& { return s.plane_fail.plane; }),
    bind(
        {.path = "faults.plane_down.at",
         .type = KnobType::kTime,
         .description = "When the plane fails",
         .source = "at start",
         .min = Bound{0}},
        [](auto& s) -> auto& { return s.plane_fail.at_ps; }),
    bind_enum(
        {.path = "faults.plane_down.scope",
         .description = "plane = every cable of the plane, the NICs' plane ports included (the "
                        "NICs stop using it at once); uplinks = only the cables above its leaves "
                        "(its spine tier): the NIC ports stay up, so traffic keeps entering the "
                        "plane until routing.ecmp.convergence removes it from the NICs' groups",
         .source = "plane"},
        std::vector<std::pair<std::string, bool>>{{"plane", false}, {"uplinks", true}},
        [](auto& s) -> auto& { return s.plane_fail.uplinks_only; }),
};

}  // namespace

const std::vector<Knob>& planes_knobs() { return kPlanesKnobs; }

}  // namespace fabricsim::scenario
