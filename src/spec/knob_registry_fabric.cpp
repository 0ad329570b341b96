// Registry entries of the scenario's identity (name, seed), the fabric's technology, links and
// switches (fabric.technology, fabric.link.*, fabric.switch.*) and the RoCE transport's basics
// (fabric.roce.mtu ... cnp_priority). Descriptions and sources restate the comments on the
// struct members they fill (src/net/config.h, src/transport/config.h, src/spec/scenario.h);
// defaults are read from those members, never written here.
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

using net::Forwarding;
using knob_bind::positive;
using knob_bind::non_negative;

const std::vector<Knob> kScenarioKnobs = {
    bind(
        {.path = "name",
         .type = KnobType::kString,
         .description = "Scenario name, shown in the summary and result.json",
         .source = "placeholder"},
        [](auto& s) -> auto& { return s.name; }),
    bind(
        {.path = "seed",
         .type = KnobType::kUint,
         .description = "Seed from which every random stream of the run is derived",
         .source = "any fixed value keeps runs reproducible"},
        [](auto& s) -> auto& { return s.seed; }),
    bind_enum(
        {.path = "mode",
         .description = "Engine: packet (every byte as packets through queues, PFC, credits and "
                        "congestion control), flow (every message one fluid flow on the path "
                        "packet mode would give it, max-min fair shares of the links; "
                        "docs/modes.md says what it cannot show) or hybrid (packets, with a "
                        "group of QPs in steady state advanced analytically; RoCE and InfiniBand "
                        "RC)",
         .source = "packet: the reference; flow: max-min fluid sharing (Bertsekas & Gallager, "
                   "Data Networks §6.5.2), as flow-level simulators use (m3's flowSim, "
                   "Parsimon)"},
        std::vector<std::pair<std::string, EngineMode>>{{"packet", EngineMode::kPacket},
                                                        {"flow", EngineMode::kFlow},
                                                        {"hybrid", EngineMode::kHybrid}},
        [](auto& s) -> auto& { return s.mode; }),
    bind(
        {.path = "hybrid.epsilon",
         .type = KnobType::kDouble,
         .description = "mode: hybrid: a QP is steady when the packets it had acknowledged in each "
                        "of its last hybrid.window_rtts base RTTs differ from their mean by at "
                        "most this fraction (or one packet)",
         .source = "0.05: chosen here (no published value): the rate a skipped stretch assumes is "
                   "the mean of windows that agree this well; the error table in docs/modes.md "
                   "measures what it costs",
         .min = positive,
         .max = Bound{1}},
        [](auto& s) -> auto& { return s.hybrid.epsilon; }),
    bind(
        {.path = "hybrid.window_rtts",
         .type = KnobType::kInt,
         .description = "mode: hybrid: how many consecutive base-RTT windows a QP's rate must hold "
                        "before its group may be skipped (W)",
         .source = "4: chosen here: a scheme driven by per-RTT feedback has had three rounds "
                   "of it without changing the rate; docs/modes.md \"Hybrid\"",
         .min = Bound{2},
         .max = Bound{16}},
        [](auto& s) -> auto& { return s.hybrid.window_rtts; }),
    bind(
        {.path = "flow.dcqcn",
         .type = KnobType::kBool,
         .description = "mode: flow with fabric.roce.cc dcqcn: each connection's rate follows its "
                        "DCQCN reaction point (the packet transport's, same profile), cut by CNPs "
                        "at the expected rate of RED marks from a fluid queue at each switch port "
                        "(engine/flow/fluid_dcqcn.h); false: every flow takes its max-min share "
                        "at once, as converged congestion control would",
         .source = "true: DCQCN's cuts and slow recovery are most of what the converged fluid "
                   "missed on RoCE in docs/modes.md's error table (the 1,024-GPU step -13.6 % "
                   "-> -2.6 %); fluid queue and DCQCN as in Zhu et al., \"ECN or Delay\", "
                   "CoNEXT 2016"},
        [](auto& s) -> auto& { return s.flow.dcqcn; }),
};

const std::vector<Knob> kFabricKnobs = {
    bind_enum(
        {.path = "fabric.technology",
         .description = "Fabric and transport: RoCEv2 on Ethernet, native InfiniBand, Ultra "
                        "Ethernet (UET, transport/uet.h), kernel TCP sockets (tcp) or iWARP, TCP "
                        "offloaded in the NIC (iwarp; both transport/tcp.h)",
         .source = "RoCEv2: the articles' mainstream fabric"},
        std::vector<std::pair<std::string, Technology>>{{"roce", Technology::kRoce},
                                                        {"ib", Technology::kInfiniband},
                                                        {"uet", Technology::kUet},
                                                        {"tcp", Technology::kTcp},
                                                        {"iwarp", Technology::kIwarp}},
        [](auto& s) -> auto& { return s.technology; }),
    bind(
        {.path = "fabric.link.rate",
         .type = KnobType::kRate,
         .description = "Line rate of every link",
         .source = "SPEC §5 example: 400 Gb/s (NDR-class Ethernet port); range: core/checked.h "
                   "(>= 1 Mb/s keeps the longest PAUSE and frame times inside int64 ps)",
         .min = Bound{static_cast<double>(kMinLinkRateBps)},
         .max = Bound{static_cast<double>(kMaxRateBps)}},
        [](auto& s) -> auto& { return s.link.rate_bps; }),
    bind(
        {.path = "fabric.link.cable",
         .type = KnobType::kLength,
         .description = "Cable length of every link; propagation is 5 ns per metre",
         .source = "SPEC §5 example: 3 m in-rack / adjacent-rack cable; at most 20000 km, half "
                   "the Earth's circumference: no cable is longer, and its 0.1 s of propagation "
                   "keeps BDPs and PFC headroom far inside int64",
         .min = non_negative,
         .max = Bound{20'000'000}},
        [](auto& s) -> auto& { return s.link.cable_m; }),
    bind(
        {.path = "fabric.link.loss_rate",
         .type = KnobType::kDouble,
         .description = "Probability that a data frame is lost on each link crossing (bit errors)",
         .source = "0: healthy links",
         .min = non_negative,
         .max = Bound{1, true}},
        [](auto& s) -> auto& { return s.link.loss_rate; }),
    bind(
        {.path = "fabric.switch.latency",
         .type = KnobType::kTime,
         .description = "Switch port-to-port latency",
         .source = "SPEC §8: Ethernet cut-through adds ~400-600 ns; SPEC §5 example; at most 1 s "
                   "(core/checked.h kMaxDeviceLatencyPs)",
         .min = non_negative,
         .max = Bound{static_cast<double>(kMaxDeviceLatencyPs)}},
        [](auto& s) -> auto& { return s.switch_config.latency_ps; }),
    bind(
        {.path = "fabric.switch.buffer",
         .type = KnobType::kBytes,
         .description = "Shared packet buffer per switch",
         .source = "NVIDIA Spectrum-3/4 class (SPEC §5 example)",
         .min = positive},
        [](auto& s) -> auto& { return s.switch_config.buffer_bytes; }),
    bind(
        {.path = "fabric.switch.dt_alpha",
         .type = KnobType::kDouble,
         .description = "Dynamic threshold: a queue may grow while below alpha x free "
                        "shared buffer",
         .source = "Choudhury & Hahne, IEEE/ACM ToN 1998; common Broadcom default",
         .min = positive},
        [](auto& s) -> auto& { return s.switch_config.dt_alpha; }),
    bind_enum(
        {.path = "fabric.switch.forwarding",
         .description = "cut_through forwards once the header arrives (only when all of a switch's "
                        "ports run at one rate)",
         .source = "SPEC §8: Ethernet switches are cut-through"},
        std::vector<std::pair<std::string, Forwarding>>{
            {"cut_through", Forwarding::kCutThrough},
            {"store_and_forward", Forwarding::kStoreAndForward}},
        [](auto& s) -> auto& { return s.switch_config.forwarding; }),
};

const std::vector<Knob> kRoceKnobs = {
    bind(
        {.path = "fabric.roce.mtu",
         .type = KnobType::kBytes,
         .description = "RDMA payload bytes per packet (path MTU). Real RoCE/IB path MTUs are "
                        "256, 512, 1024, 2048 or 4096; other sizes in that range model a payload "
                        "size, e.g. the 4000-byte MTU of htsim's benchmarks",
         .source = "largest RoCE/IB MTU (SPEC §8)",
         .min = Bound{256},
         .max = Bound{4096}},
        [](auto& s) -> auto& { return s.roce.mtu_bytes; }),
    bind(
        {.path = "fabric.roce.ack_timeout_exponent",
         .type = KnobType::kInt,
         .description = "Local ACK Timeout = 4.096 us x 2^exponent (InfiniBand RC too); "
                        "perftest uses 14 (~67 ms)",
         .source = "NCCL's NCCL_IB_TIMEOUT default 20 (4.29 s): NVIDIA/nccl "
                   "src/transport/net_ib/connect.cc (NCCL 2.30); perftest DEF_QP_TIME 14",
         .min = Bound{0},
         .max = Bound{31}},
        [](auto& s) -> auto& { return s.roce.ack_timeout_exponent; }),
    bind(
        {.path = "fabric.roce.retry_count",
         .type = KnobType::kInt,
         .description = "Consecutive retransmit timeouts before the QP enters the error state "
                        "and its unfinished messages fail",
         .source = "IBTA 3-bit retry_cnt; 7: NCCL_IB_RETRY_CNT default (NVIDIA/nccl "
                   "net_ib/connect.cc), perftest",
         .min = Bound{0},
         .max = Bound{7}},
        [](auto& s) -> auto& { return s.roce.retry_count; }),
    bind(
        {.path = "fabric.roce.vlan",
         .type = KnobType::kBool,
         .description = "Frames carry an 802.1Q tag (+4 bytes)",
         .source = "DSCP-based priority (NVIDIA RoCE configuration guides)"},
        [](auto& s) -> auto& { return s.roce.vlan_tag; }),
    bind(
        {.path = "fabric.roce.data_priority",
         .type = KnobType::kInt,
         .description = "Priority (traffic class) of RoCE data and ACKs",
         .source = "NVIDIA default",
         .min = Bound{0},
         .max = Bound{7}},
        [](auto& s) -> auto& { return s.roce.data_priority; }),
    bind(
        {.path = "fabric.roce.cnp_priority",
         .type = KnobType::kInt,
         .description = "Priority (traffic class) of CNPs",
         .source = "NVIDIA default",
         .min = Bound{0},
         .max = Bound{7}},
        [](auto& s) -> auto& { return s.roce.cnp_priority; }),
};

}  // namespace

const std::vector<Knob>& scenario_knobs() { return kScenarioKnobs; }
const std::vector<Knob>& fabric_knobs() { return kFabricKnobs; }
const std::vector<Knob>& roce_knobs() { return kRoceKnobs; }

}  // namespace fabricsim::scenario
