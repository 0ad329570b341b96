// Registry entries for InfiniBand (fabric.ib.*), the verbs transport service and operation, the
// Subnet Manager and route recovery (routing.sm.*, routing.ecmp.convergence) and link faults.
// Sources restate the comments on scenario::IbSpec, net::IbLinkConfig, scenario::RoutingRecovery
// and transport::RoceConfig.
#include <string>
#include <utility>
#include <vector>

#include "core/checked.h"
#include "net/config.h"
#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_enum;

namespace {

using transport::Operation;
using transport::Service;
using knob_bind::positive;
using knob_bind::non_negative;
const Condition ib_cc{"fabric.ib.cc.enabled", "true"};
// A VL buffer is bytes of a switch's shared buffer (fabric.switch.buffer's own bound); what it
// may not exceed on a given switch is checked when the fabric is built (net/credits.cpp).
const Bound buffer_bound{1024.0 * 1024 * 1024 * 1024};

const std::vector<Knob> kInfinibandKnobs = {
    // No key here is conditional on fabric.technology: one scenario file may describe both fabrics
    // (fabricsim compare runs it as each), and a run uses the settings of its own technology.
    bind(
        {.path = "fabric.ib.mtu",
         .type = KnobType::kBytes,
         .description = "InfiniBand MTU: payload bytes per packet",
         .source = "SPEC §8 MTUs; 4096 as NCCL-class HCAs use",
         .one_of = {256, 512, 1024, 2048, 4096}},
        [](auto& s) -> auto& { return s.ib.mtu_bytes; }),
    bind_enum(
        {.path = "fabric.ib.generation",
         .description = "InfiniBand link generation: sets an ib run's link rate "
                        "to its 4x data rate (EDR 100, HDR 200, NDR 400, XDR 800 "
                        "Gb/s); none = fabric.link.rate",
         .source = "SPEC §8 link generations"},
        std::vector<std::pair<std::string, IbGeneration>>{{"none", IbGeneration::kNone},
                                                          {"edr", IbGeneration::kEdr},
                                                          {"hdr", IbGeneration::kHdr},
                                                          {"ndr", IbGeneration::kNdr},
                                                          {"xdr", IbGeneration::kXdr}},
        [](auto& s) -> auto& { return s.ib.generation; }),
    bind(
        {.path = "fabric.ib.switch_latency",
         .type = KnobType::kTime,
         .description = "InfiniBand switch port-to-port latency (replaces "
                        "fabric.switch.latency on an ib fabric)",
         .source = "SPEC §8: roughly 130-300 ns; Quantum-class low end; at most 1 s "
                   "(core/checked.h kMaxDeviceLatencyPs)",
         .min = non_negative,
         .max = Bound{static_cast<double>(kMaxDeviceLatencyPs)}},
        [](auto& s) -> auto& { return s.ib.switch_latency_ps; }),
    bind(
        {.path = "fabric.ib.vl_buffer",
         .type = KnobType::kBytes,
         .description = "Receive buffer per switch port and data VL in 64-byte credits "
                        "(the sender's window stays 2048 credits = 128 KiB ahead of what "
                        "was received); 0 = switch buffer / ports / data VLs",
         .source = "IBA 7.9: FCCL = ABR + free blocks, at most 2048 ahead (12-bit "
                   "FCTBS/FCCL); no public Quantum/Quantum-2 per-VL size (UNVERIFIED)",
         .min = non_negative,
         .max = buffer_bound},
        [](auto& s) -> auto& { return s.ib.link.vl_buffer_bytes; }),
    bind(
        {.path = "fabric.ib.hca_vl_buffer",
         .type = KnobType::kBytes,
         .description = "Receive buffer per HCA port and data VL in 64-byte credits; "
                        "0 = the ConnectX port buffer / data VLs",
         .source = "ConnectX port buffer 262016 B (NVIDIA DOC-2933 mlx5 qos/"
                   "buffer_size; CX-6/7 UNVERIFIED); IBA 7.9's window of 2048 credits",
         .min = non_negative,
         .max = buffer_bound},
        [](auto& s) -> auto& { return s.ib.link.hca_vl_buffer_bytes; }),
    bind(
        {.path = "fabric.ib.data_vls",
         .type = KnobType::kInt,
         .description = "Operational data VLs (the buffer is split among them)",
         .source = "1: one traffic class; OpenSM max_op_vls is 5",
         .min = Bound{1},
         .max = Bound{8}},
        [](auto& s) -> auto& { return s.ib.link.data_vls; }),
    bind(
        {.path = "fabric.ib.sl",
         .type = KnobType::kInt,
         .description = "Service level of the workload's traffic (a flow list entry "
                        "may name its own as a fifth element)",
         .source = "0: the default SL",
         .min = Bound{0},
         .max = Bound{15}},
        [](auto& s) -> auto& { return s.ib.sl; }),
    bind(
        {.path = "fabric.ib.sl2vl",
         .type = KnobType::kString,
         .description = "SL to VL map, 16 comma-separated VLs (OpenSM sl2vl syntax); "
                        "\"\" = OpenSM's 0,1,..,14,7 folded onto data_vls",
         .source = "OpenSM osm_base.h default (reference §2)"},
        [](auto& s) -> auto& { return s.ib.sl2vl; }),
    bind(
        {.path = "fabric.ib.vlarb_high",
         .type = KnobType::kString,
         .description = "High-priority VL arbitration table, VL:weight pairs in "
                        "64-byte units (OpenSM syntax); \"\" = 0:4",
         .source = "OpenSM default vlarb_high 0:4,1:0,...,14:0"},
        [](auto& s) -> auto& { return s.ib.vlarb_high; }),
    bind(
        {.path = "fabric.ib.vlarb_low",
         .type = KnobType::kString,
         .description = "Low-priority VL arbitration table; \"\" = VL:4 for every "
                        "data VL but 0",
         .source = "OpenSM default vlarb_low 0:0,1:4,...,14:4"},
        [](auto& s) -> auto& { return s.ib.vlarb_low; }),
    bind(
        {.path = "fabric.ib.high_limit",
         .type = KnobType::kInt,
         .description = "High-priority 4 KiB units sent before a waiting low-priority "
                        "packet goes; 255 = unbounded, 0 = one packet",
         .source = "OpenSM default high_limit 0 (reference §2)",
         .min = Bound{0},
         .max = Bound{255}},
        [](auto& s) -> auto& { return s.ib.link.high_limit; }),
    bind(
        {.path = "fabric.ib.hoq_lifetime",
         .type = KnobType::kTime,
         .description = "A switch VL whose head packet waits this long for credits "
                        "is stalled: reported, its queue discarded for 8 lifetimes",
         .source = "OpenSM head_of_queue_lifetime 0x12 = 4.096 us x 2^18 (UNVERIFIED); "
                   "at most 4.096 us x 2^19, the largest finite code (opensm.conf: "
                   "0x14 disables the mechanism), so 8 lifetimes stay far inside int64",
         .min = positive,
         // 4.096 us x 2^19 = 2.147483648 s, in ps.
         .max = Bound{4'096'000.0 * (1 << 19)}},
        [](auto& s) -> auto& { return s.ib.link.hoq_lifetime_ps; }),
    bind_enum(
        {.path = "fabric.transport.service",
         .description = "Transport service: reliable connection, unreliable "
                        "connection (no ACKs), unreliable datagram (1 packet)",
         .source = "RC: what NCCL and MPI use"},
        std::vector<std::pair<std::string, Service>>{
            {"rc", Service::kRc}, {"uc", Service::kUc}, {"ud", Service::kUd}},
        [](auto& s) -> auto& { return s.roce.service; }),
    bind_enum(
        {.path = "fabric.transport.operation",
         .description = "Verb of the workload's messages: RDMA WRITE (RETH on "
                        "the first packet), SEND (no RETH) or RDMA READ",
         .source = "WRITE: NCCL's RDMA transport"},
        std::vector<std::pair<std::string, Operation>>{
            {"write", Operation::kWrite}, {"send", Operation::kSend}, {"read", Operation::kRead}},
        [](auto& s) -> auto& { return s.roce.operation; }),
    bind_enum(
        {.path = "routing.sm.engine",
         .description = "Subnet Manager routing engine (InfiniBand LFTs)",
         .source = "OpenSM ftree: the engine for fat-trees (current-routing.txt)"},
        std::vector<std::pair<std::string, SmEngineChoice>>{{"minhop", SmEngineChoice::kMinHop},
                                                            {"updown", SmEngineChoice::kUpDown},
                                                            {"ftree", SmEngineChoice::kFatTree}},
        [](auto& s) -> auto& { return s.recovery.engine; }),
    bind_enum(
        {.path = "routing.sm.fallback",
         .description = "Engine that routes when ftree refuses the subnet (not a uniform "
                        "fat-tree, e.g. after a cable failed); the results report the fallback",
         .source = "OpenSM osm_ucast_mgr.c: the next engine of routing_engine, else min-hop. "
                   "updown = 'routing_engine ftree,updn' (deadlock-free); minhop = plain 'ftree'"},
        std::vector<std::pair<std::string, SmEngineChoice>>{{"updown", SmEngineChoice::kUpDown},
                                                            {"minhop", SmEngineChoice::kMinHop}},
        [](auto& s) -> auto& { return s.recovery.fallback; }),
    bind(
        {.path = "routing.sm.adaptive",
         .type = KnobType::kBool,
         .description = "Adaptive routing: switches pick per packet among the SM's "
                        "allowed ports by least queued bytes; receivers place out of "
                        "order",
         .source = "off: upstream OpenSM has no AR (NVIDIA MLNXSM enables it)"},
        [](auto& s) -> auto& { return s.recovery.adaptive; }),
    bind(
        {.path = "routing.sm.sweep_delay",
         .type = KnobType::kTime,
         .description = "From a link failure to the SM's recomputed tables (trap + "
                        "heavy sweep)",
         .source = "UNVERIFIED placeholder for a mid-size subnet (reference §3)",
         .min = non_negative},
        [](auto& s) -> auto& { return s.recovery.sm_sweep_delay_ps; }),
    bind(
        {.path = "routing.sm.reprogram_time",
         .type = KnobType::kTime,
         .description = "Time to program the new LFTs into the switches",
         .source = "UNVERIFIED placeholder",
         .min = non_negative},
        [](auto& s) -> auto& { return s.recovery.sm_reprogram_ps; }),
    bind(
        {.path = "routing.ecmp.convergence",
         .type = KnobType::kTime,
         .description = "RoCE: from a link failure to ECMP groups without the link "
                        "(routing protocol convergence)",
         .source = "BFD 3 x 50 ms + BGP withdrawal, UNVERIFIED",
         .min = non_negative},
        [](auto& s) -> auto& { return s.recovery.ecmp_convergence_ps; }),
    bind(
        {.path = "routing.ecmp.local_repair",
         .type = KnobType::kBool,
         .description = "Ethernet: the two switches at the ends of a failed cable remove its "
                        "port from their ECMP groups after routing.ecmp.local_repair_delay, "
                        "before routing converges (a group never loses its last member); false: "
                        "only routing.ecmp.convergence removes it",
         .source = "on: FBOSS 'ECMP shrink' (link-scan thread), SONiC 'ECMP acceleration for "
                   "physical i/f down events' (sonic-swss PR #351)"},
        [](auto& s) -> auto& { return s.recovery.local_repair; }),
    bind(
        {.path = "routing.ecmp.local_repair_delay",
         .type = KnobType::kTime,
         .description = "From a cable failing to its switches' ECMP groups without it: link-down "
                        "detection plus the group rewrite (no debounce)",
         .source = "SONiC on Broadcom: SAI link-down callback to orchagent's oper-down 0.88 ms "
                   "(sonic-swss PR #3180 log), rounded up to 1 ms; to the ASIC table UNVERIFIED",
         .min = non_negative},
        [](auto& s) -> auto& { return s.recovery.local_repair_delay_ps; }),
    bind(
        {.path = "faults.link_down.switch",
         .type = KnobType::kInt,
         .description = "Switch whose cable fails (index as built: leaves, then "
                        "spines / aggregation, then core); -1 = none",
         .source = "no failure",
         .min = Bound{-1}},
        [](auto& s) -> auto& { return s.link_fail.switch_index; }),
    bind(
        {.path = "faults.link_down.port",
         .type = KnobType::kInt,
         .description = "Port of that switch whose cable fails (0-based, leaves: "
                        "host ports first, then uplinks)",
         .source = "first port",
         .min = Bound{0}},
        [](auto& s) -> auto& { return s.link_fail.port; }),
    bind(
        {.path = "faults.link_down.at",
         .type = KnobType::kTime,
         .description = "When the link fails",
         .source = "at start",
         .min = non_negative},
        [](auto& s) -> auto& { return s.link_fail.at_ps; }),
    bind(
        {.path = "faults.link_down.until",
         .type = KnobType::kTime,
         .description = "When the cable comes back up (after faults.link_down.at); 0 = it stays "
                        "down. Its port rejoins the forwarding groups when routing reconverges "
                        "(routing.ecmp.convergence; InfiniBand: the SM's sweep)",
         .source = "stays down",
         .min = non_negative},
        [](auto& s) -> auto& { return s.link_fail.until_ps; }),
    bind(
        {.path = "faults.link_down.flaps",
         .type = KnobType::kInt,
         .description = "Down/up cycles: down at at + i x period, up at until + i x period, "
                        "i = 0 .. flaps - 1 (more than 1 needs until and period)",
         .source = "one failure",
         .min = Bound{1},
         .max = Bound{1000}},
        [](auto& s) -> auto& { return s.link_fail.flaps; }),
    bind(
        {.path = "faults.link_down.period",
         .type = KnobType::kTime,
         .description = "Time from one failure of a flapping cable to the next (longer than "
                        "until - at)",
         .source = "only with flaps > 1",
         .min = non_negative},
        [](auto& s) -> auto& { return s.link_fail.period_ps; }),
    bind(
        {.path = "fabric.ib.cc.enabled",
         .type = KnobType::kBool,
         .description = "InfiniBand congestion control (IBA Annex A10): switches mark FECN "
                        "above fabric.ib.cc.threshold, the destination returns a BECN (CNP), "
                        "the source steps its QP's CCTI up the CCT and back down on a timer",
         .source = "off, as OpenSM ships it (osm_subnet.c congestion_control FALSE)"},
        [](auto& s) -> auto& { return s.ib.cc.enabled; }),
    bind(
        {.path = "fabric.ib.cc.threshold",
         .type = KnobType::kBytes,
         .description = "Egress VL queue bytes above which a switch marks FECN on data",
         .source = "64 KiB, about one BDP at 400 Gb/s; UNVERIFIED: the IBA Threshold 0-15 "
                   "leaves the depth to the switch (transport/ib_cc.cpp)",
         .min = positive,
         .only_with = {ib_cc}},
        [](auto& s) -> auto& { return s.ib.cc.threshold_bytes; }),
    bind(
        {.path = "fabric.ib.cc.marking_rate",
         .type = KnobType::kInt,
         .description = "Switch Marking_Rate: packets left unmarked between two FECN marks "
                        "at a congested port (0: every packet above the threshold)",
         .source = "UNVERIFIED, transport/ib_cc.cpp",
         .min = Bound{0},
         .max = Bound{65535},
         .only_with = {ib_cc}},
        [](auto& s) -> auto& { return s.ib.cc.marking_rate; }),
    bind(
        {.path = "fabric.ib.cc.mark_victims",
         .type = KnobType::kBool,
         .description = "Mark FECN also at ports held back by credits (victims of congestion "
                        "further on): the Victim_Mask bit set on every switch port",
         .source = "false: OpenSM's cc_sw_cong_setting_victim_mask is all zero by default",
         .only_with = {ib_cc}},
        [](auto& s) -> auto& { return s.ib.cc.mark_victims; }),
    bind(
        {.path = "fabric.ib.cc.ccti_increase",
         .type = KnobType::kInt,
         .description = "CCT index steps per BECN (CACongestionSetting CCTI_Increase)",
         .source = "1, the smallest step; UNVERIFIED (OpenSM ships 0: CC unconfigured)",
         .min = Bound{1},
         .max = Bound{255},
         .only_with = {ib_cc}},
        [](auto& s) -> auto& { return s.ib.cc.ccti_increase; }),
    bind(
        {.path = "fabric.ib.cc.ccti_timer",
         .type = KnobType::kTime,
         .description = "Time between CCT index decrements while no BECN arrives "
                        "(CCTI_Timer; 1.024 us units on the wire)",
         .source = "5.12 us (5 units): settles up to 15 sources per 100 Gb/s port; UNVERIFIED "
                   "(transport/ib_cc.cpp, docs/cc.md)",
         .min = positive,
         .only_with = {ib_cc}},
        [](auto& s) -> auto& { return s.ib.cc.ccti_timer_ps; }),
    bind(
        {.path = "fabric.ib.cc.ccti_limit",
         .type = KnobType::kInt,
         .description = "Highest CCT index (the CCT has 128 entries: index i delays an MTU "
                        "packet by i/4 of its time, rate = line / (1 + i/4))",
         .source = "127, the table's last entry",
         .min = Bound{0},
         .max = Bound{127},
         .only_with = {ib_cc}},
        [](auto& s) -> auto& { return s.ib.cc.ccti_limit; }),
    bind(
        {.path = "fabric.ib.cc.ccti_min",
         .type = KnobType::kInt,
         .description = "Lowest CCT index: a floor on the delay (CCTI_Min)",
         .source = "0: line rate when uncongested",
         .min = Bound{0},
         .max = Bound{127},
         .only_with = {ib_cc}},
        [](auto& s) -> auto& { return s.ib.cc.ccti_min; }),
    bind(
        {.path = "fabric.ib.cc.service_levels",
         .type = KnobType::kIntList,
         .description = "The SLs whose QPs react to BECNs (CACongestionSetting Control_Map, one "
                        "bit per SL); QPs on the others keep the line rate",
         .source = "every SL (fabricsim's: enabled means on; OpenSM ships "
                   "cc_ca_cong_setting_control_map 0 with CC off)",
         .min = Bound{0},
         .max = Bound{15},
         .only_with = {ib_cc}},
        [](auto& s) -> auto& { return s.ib.cc.service_levels; }),
    bind(
        {.path = "faults.credit_loss.switch",
         .type = KnobType::kInt,
         .description = "InfiniBand: switch with a receiving port that never returns "
                        "credits (fault injection); -1 = none",
         .source = "no fault",
         .min = Bound{-1}},
        [](auto& s) -> auto& { return s.credit_loss.switch_index; }),
    bind(
        {.path = "faults.credit_loss.port",
         .type = KnobType::kInt,
         .description = "Its port (0-based)",
         .source = "first port",
         .min = Bound{0}},
        [](auto& s) -> auto& { return s.credit_loss.port; }),
};

}  // namespace

const std::vector<Knob>& infiniband_knobs() { return kInfinibandKnobs; }

}  // namespace fabricsim::scenario
