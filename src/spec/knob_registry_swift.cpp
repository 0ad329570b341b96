// Registry entries of Swift (fabric.roce.swift.*) and of DCTCP on RDMA (fabric.roce.dctcp.*):
// per-field overrides of swift_defaults() and dctcp_rdma_defaults() (transport/swift.cpp and
// dctcp_rdma.cpp cite where each default was read). Unset, the default for the fabric applies;
// resolve/swift_setup.cpp validates the result and names the key a bad value came from.
#include <optional>
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;
using knob_bind::bind_when;

namespace {

using knob_bind::non_negative;
using knob_bind::positive;
const Condition swift{"fabric.roce.cc", "swift"};
const Condition dctcp{"fabric.roce.cc", "dctcp"};

const std::vector<Knob> kSwiftKnobs = {
    bind_when(
        swift, "fabric.roce.swift.base_rtt", KnobType::kTime,
        "The fabric's base RTT: the base target, the largest window (one BDP) and the "
        "pacing RTT before the first sample derive from it",
        "the fabric's longest host-to-host path: 2 x its one-way delay plus one data "
        "frame's serialization per link (as HPCC's T, resolve/hpcc_setup.cpp)",
        positive, std::nullopt, [](auto& s) -> auto& { return s.roce.swift.base_rtt_ps; }),
    bind_when(
        swift, "fabric.roce.swift.base_target", KnobType::kTime,
        "Target delay of a path before its hop and flow-scaling terms",
        "1.25 x the base RTT of a path without switches (fabricsim's: a path's target is "
        "1.25 x its own base RTT; the paper gives Google's values only, htsim 20 us)",
        positive, std::nullopt, [](auto& s) -> auto& { return s.roce.swift.base_target_ps; }),
    bind_when(
        swift, "fabric.roce.swift.per_hop", KnobType::kTime,
        "Target delay added per switch hop of the QP's path",
        "1.25 x what a switch hop adds to the base RTT (fabricsim's; 0 where base_rtt is set; "
        "the paper gives no value, htsim 20 us / 6.55)",
        non_negative, std::nullopt, [](auto& s) -> auto& { return s.roce.swift.per_hop_ps; }),
    bind_when(
        swift, "fabric.roce.swift.ai", KnobType::kDouble,
        "Additive increase, packets per RTT, while the delay is below the target",
        "1: htsim's guess; the paper gives no value (UNVERIFIED)", positive, std::nullopt,
        [](auto& s) -> auto& { return s.roce.swift.ai_pkts; }),
    bind_when(
        swift, "fabric.roce.swift.beta", KnobType::kDouble,
        "Multiplicative decrease gain: x (1 - beta (delay - target) / delay)",
        "0.8: htsim's guess; the paper gives no value (UNVERIFIED)", positive, Bound{1},
        [](auto& s) -> auto& { return s.roce.swift.beta; }),
    bind_when(
        swift, "fabric.roce.swift.max_mdf", KnobType::kDouble,
        "Largest fraction one decrease (or a loss) takes",
        "0.5: htsim's guess; the paper gives no value (UNVERIFIED)", positive, std::nullopt,
        [](auto& s) -> auto& { return s.roce.swift.max_mdf; }),
    bind_when(
        swift, "fabric.roce.swift.fs_range", KnobType::kTime,
        "Flow scaling: the most the target grows at the smallest windows",
        "5 x base_target: htsim's; the paper gives no value (UNVERIFIED)", non_negative,
        std::nullopt, [](auto& s) -> auto& { return s.roce.swift.fs_range_ps; }),
    bind_when(
        swift, "fabric.roce.swift.fs_min_cwnd", KnobType::kDouble,
        "Window (packets) at which flow scaling reaches fs_range",
        "0.1: htsim's; the paper gives no value (UNVERIFIED)", positive, std::nullopt,
        [](auto& s) -> auto& { return s.roce.swift.fs_min_cwnd; }),
    bind_when(
        swift, "fabric.roce.swift.fs_max_cwnd", KnobType::kDouble,
        "Window (packets) at which flow scaling falls to 0",
        "100: htsim's; the paper gives no value (UNVERIFIED)", positive, std::nullopt,
        [](auto& s) -> auto& { return s.roce.swift.fs_max_cwnd; }),
    bind_when(
        swift, "fabric.roce.swift.min_cwnd", KnobType::kDouble,
        "Smallest window, packets (below 1: one packet per rtt / cwnd)",
        "0.001: the paper, section 3.4", positive, std::nullopt,
        [](auto& s) -> auto& { return s.roce.swift.min_cwnd; }),
    bind_when(
        swift, "fabric.roce.swift.max_cwnd", KnobType::kDouble,
        "Largest window, packets (also the start: a QP starts at line rate)",
        "one BDP: line rate x base_rtt / MTU", positive, Bound{1048574},
        [](auto& s) -> auto& { return s.roce.swift.max_cwnd; }),
    bind_when(
        swift, "fabric.roce.swift.retx_reset", KnobType::kInt,
        "Retransmission timeouts in a row after which the window restarts at min_cwnd",
        "5: htsim's RETX_RESET_THRESHOLD guess; the paper gives no value (UNVERIFIED)", Bound{1},
        Bound{1000000}, [](auto& s) -> auto& { return s.roce.swift.retx_reset; }),
    bind_when(
        dctcp, "fabric.roce.dctcp.g", KnobType::kDouble,
        "DCTCP's EWMA gain of alpha, the fraction of marked packets",
        "1/16: the HPCC simulator's run.py --cc dctcp (g=0.0625), the DCTCP paper's g", positive,
        Bound{1}, [](auto& s) -> auto& { return s.roce.dctcp.g; }),
    bind_when(
        dctcp, "fabric.roce.dctcp.rate_ai", KnobType::kRate,
        "Additive increase per round trip of feedback",
        "one MTU per base RTT: run.py's dctcp_ai 615 Mb/s, 'calculated from RTT=13us "
        "and MTU=1KB, because DCTCP add 1 MTU per RTT'",
        positive, std::nullopt, [](auto& s) -> auto& { return s.roce.dctcp.rate_ai_bps; }),
    bind_when(
        dctcp, "fabric.roce.dctcp.min_rate", KnobType::kRate, "Lowest rate a cut reaches",
        "1 Gb/s: run.py's config template MIN_RATE", positive, std::nullopt,
        [](auto& s) -> auto& { return s.roce.dctcp.min_rate_bps; }),
    bind_when(
        dctcp, "fabric.roce.dctcp.base_rtt", KnobType::kTime,
        "T: the window at line rate is B x T, and rate_ai's default is one MTU "
        "per T",
        "the fabric's largest base RTT between hosts (as HPCC's T; the simulator's "
        "VAR_WIN window)",
        positive, std::nullopt, [](auto& s) -> auto& { return s.roce.dctcp.base_rtt_ps; }),
};

}  // namespace

const std::vector<Knob>& swift_knobs() { return kSwiftKnobs; }

}  // namespace fabricsim::scenario
