// Registry entries of TIMELY (fabric.roce.timely.*): per-field overrides of timely_defaults()
// (transport/timely.cpp cites where each default was read). Unset, the default for the link rate
// applies; resolve/resolve.cpp validates the result and names the key a bad value came from.
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
const Condition timely{"fabric.roce.cc", "timely"};

const std::vector<Knob> kTimelyKnobs = {
    bind_when(
        timely, "fabric.roce.timely.delta", KnobType::kRate,
        "Additive increase step delta of the rate",
        "10Mbps x link rate / 10Gbps (the authors' code snippet and the HPCC simulator's "
        "run.py RATE_AI: 10 Mb/s at 10 Gb/s)",
        positive, std::nullopt, [](auto& s) -> auto& { return s.roce.timely.delta_bps; }),
    bind_when(
        timely, "fabric.roce.timely.beta", KnobType::kDouble, "Multiplicative decrease factor beta",
        "0.8 (authors' code snippet decreaseFactor; HPCC simulator TimelyBeta)", positive, Bound{1},
        [](auto& s) -> auto& { return s.roce.timely.beta; }),
    bind_when(
        timely, "fabric.roce.timely.alpha", KnobType::kDouble,
        "EWMA weight of the newest RTT difference",
        "0.875 (HPCC simulator TimelyAlpha, one update per RTT); the authors' snippet "
        "recommends 0.02 for an update per completion",
        positive, Bound{1}, [](auto& s) -> auto& { return s.roce.timely.alpha; }),
    bind_when(
        timely, "fabric.roce.timely.t_low", KnobType::kTime,
        "RTT below which the rate always increases by delta; 0 = none",
        "50us x 10Gbps / link rate: the same 62.5 KB of queue as 50 us at 10 Gb/s (HPCC "
        "simulator TimelyTLow; the snippet's 50 us for 64 KB segments, 0 for per-packet "
        "pacing)",
        non_negative, std::nullopt, [](auto& s) -> auto& { return s.roce.timely.t_low_ps; }),
    bind_when(
        timely, "fabric.roce.timely.t_high", KnobType::kTime,
        "RTT above which the rate is cut by beta x (1 - t_high / rtt)",
        "500us x 10Gbps / link rate: 625 KB of queue, as 500 us at 10 Gb/s (HPCC "
        "simulator TimelyTHigh; the snippet recommends 1 ms)",
        positive, std::nullopt, [](auto& s) -> auto& { return s.roce.timely.t_high_ps; }),
    bind_when(
        timely, "fabric.roce.timely.min_rtt", KnobType::kTime,
        "The fabric's minimum RTT: the RTT gradient is rtt_diff / min_rtt",
        "20us (HPCC simulator TimelyMinRtt), not scaled: it is a propagation time", positive,
        std::nullopt, [](auto& s) -> auto& { return s.roce.timely.min_rtt_ps; }),
    bind_when(
        timely, "fabric.roce.timely.hai_n", KnobType::kInt,
        "Hyper-active increase: N x delta per increase from the hai_after-th consecutive "
        "non-positive gradient on",
        "5 (HPCC simulator RATE_HAI = 5 x RATE_AI)", Bound{1}, Bound{1000},
        [](auto& s) -> auto& { return s.roce.timely.hai_n; }),
    bind_when(
        timely, "fabric.roce.timely.hai_after", KnobType::kInt,
        "Consecutive non-positive gradients before hyper-active increase",
        "5 (authors' snippet HAI_Thresh)", Bound{1}, Bound{1000000},
        [](auto& s) -> auto& { return s.roce.timely.hai_after; }),
    bind_when(
        timely, "fabric.roce.timely.min_rate", KnobType::kRate, "Floor of every decrease",
        "link rate / 1000 (fabricsim's; the snippet leaves it optional)", positive, std::nullopt,
        [](auto& s) -> auto& { return s.roce.timely.min_rate_bps; }),
};

}  // namespace

const std::vector<Knob>& timely_knobs() { return kTimelyKnobs; }

}  // namespace fabricsim::scenario
