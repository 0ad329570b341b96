// Registry entries for Ethernet load balancing: the ECMP hash (routing.ecmp.*) and what goes beyond
// it (routing.load_balancing, routing.flowlet_gap, routing.te.*). Sources restate the comments on
// routing::EcmpConfig and routing::TeConfig (routing/config.h); docs/load-balancing.md explains the
// mechanisms.
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

using routing::EcmpHash;
using routing::EcmpSeedMode;
using routing::LoadBalancing;
using knob_bind::non_negative;
const Condition flowlet{"routing.load_balancing", "flowlet"};
const Condition te{"routing.load_balancing", "te"};
// One hour bounds every interval: far beyond any run, and far from int64 picoseconds' limit.
const Bound an_hour{3600e12};

const std::vector<Knob> kEcmpKnobs = {
    bind_enum(
        {.path = "routing.ecmp.hash",
         .description = "ECMP hash over the 5-tuple",
         .source = "CRC32, as switch ASICs offer"},
        std::vector<std::pair<std::string, EcmpHash>>{{"crc32", EcmpHash::kCrc32},
                                                      {"xor_fold", EcmpHash::kXorFold}},
        [](auto& s) -> auto& { return s.ecmp.hash; }),
    bind_enum(
        {.path = "routing.ecmp.seed",
         .description = "per_switch seeds avoid hash polarization; same "
                        "reproduces it",
         .source = "Cisco CEF tech note 116376; mlxsw seeds from the base MAC"},
        std::vector<std::pair<std::string, EcmpSeedMode>>{{"per_switch", EcmpSeedMode::kPerSwitch},
                                                          {"same", EcmpSeedMode::kSame}},
        [](auto& s) -> auto& { return s.ecmp.seed_mode; }),
    bind(
        {.path = "routing.ecmp.base_seed",
         .type = KnobType::kUint,
         .description = "The shared seed with seed: same; mixed into every switch's "
                        "seed with per_switch",
         .source = "any fixed value",
         .max = Bound{4294967295.0}},
        [](auto& s) -> auto& { return s.ecmp.seed; }),
};

const std::vector<Knob> kLoadBalancingKnobs = {
    bind_enum(
        {.path = "routing.load_balancing",
         .description = "How an Ethernet switch picks among equal-cost ports: ecmp (5-tuple hash), "
                        "adaptive (per packet, least bytes queued in the class; RoCE needs "
                        "fabric.roce.out_of_order), flowlet (per flowlet, least-occupied port), te "
                        "(a centralized controller's per-flow rules for large flows, ECMP "
                        "otherwise). Ethernet only: InfiniBand uses routing.sm.adaptive",
         .source = "ecmp: what data-center switches do by default; the remedies for hash "
                   "collisions: adaptive routing (switch AR with reordering NICs), flowlets "
                   "(CONGA SIGCOMM 2014, LetFlow NSDI 2017), central TE (Hedera NSDI 2010)"},
        std::vector<std::pair<std::string, LoadBalancing>>{{"ecmp", LoadBalancing::kEcmp},
                                                           {"adaptive", LoadBalancing::kAdaptive},
                                                           {"flowlet", LoadBalancing::kFlowlet},
                                                           {"te", LoadBalancing::kTe}},
        [](auto& s) -> auto& { return s.ecmp.load_balancing; }),
    bind(
        {.path = "routing.flowlet_gap",
         .type = KnobType::kTime,
         .description = "Idle time after which a flow's next packet starts a new "
                        "flowlet (and may take another port); 0 = auto: the fabric's "
                        "idle base RTT plus the time a link drains 62.5 KB",
         .source = "Flare (CCR 2007): the gap must exceed the paths' delay spread; "
                   "62.5 KB = the 50 us flowlet timeout at 10 Gb/s of the LetFlow/"
                   "CONGA ns-3 reference (snowzjx/ns3-load-balance) in bytes",
         .min = non_negative,
         .max = an_hour,
         .only_with = {flowlet}},
        [](auto& s) -> auto& { return s.ecmp.flowlet_gap_ps; }),
    bind(
        {.path = "routing.te.install_delay",
         .type = KnobType::kTime,
         .description = "Control-loop delay: from the controller learning of a flow "
                        "(or re-optimizing) to its rules taking effect in the switches",
         .source = "10 ms: ms-scale OpenFlow rule installation on hardware switches "
                   "(OFLOPS, PAM 2012; UNVERIFIED figures); Hedera's loop (NSDI "
                   "2010) is 5 s",
         .min = non_negative,
         .max = an_hour,
         .only_with = {te}},
        [](auto& s) -> auto& { return s.ecmp.te.install_delay_ps; }),
    bind(
        {.path = "routing.te.reoptimize_interval",
         .type = KnobType::kTime,
         .description = "Re-place the active large flows from measured link loads "
                        "every interval; 0 = place each flow once, when it is posted",
         .source = "0: the flows are known when posted; Hedera re-schedules every "
                   "5 s (NSDI 2010)",
         .min = non_negative,
         .max = an_hour,
         .only_with = {te}},
        [](auto& s) -> auto& { return s.ecmp.te.reoptimize_interval_ps; }),
    bind(
        {.path = "routing.te.min_flow_size",
         .type = KnobType::kBytes,
         .description = "Messages at least this large are placed by the controller; "
                        "smaller ones stay on ECMP",
         .source = "100 KB: Mahout's elephant threshold (INFOCOM 2011; UNVERIFIED)",
         .min = non_negative,
         .only_with = {te}},
        [](auto& s) -> auto& { return s.ecmp.te.min_flow_size_bytes; }),
};

}  // namespace

const std::vector<Knob>& ecmp_knobs() { return kEcmpKnobs; }
const std::vector<Knob>& load_balancing_knobs() { return kLoadBalancingKnobs; }

}  // namespace fabricsim::scenario
