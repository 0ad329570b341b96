// Registry entries of the ping-pong pattern (workload.pattern: ping_pong, workload/ping_pong.h):
// workload.ping_pong.{pairs, size, iterations, warmup}. They restate workload/workload_spec.h
// PingPongSpec.
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;

namespace {

using knob_bind::pattern;
const Condition ping_pong{"workload.pattern", "ping_pong"};

const std::vector<Knob> kPingPongKnobs = {
    bind(
        {.path = "workload.ping_pong.pairs",
         .type = KnobType::kIntList,
         .description = "NIC indices in pairs [a0, b0, a1, b1, ...]: each a pings its b, which "
                        "answers; the pairs run side by side",
         .source = "[0, 1]: perftest and netperf measure one client-server pair",
         .min = Bound{0},
         .only_with = {pattern, ping_pong}},
        [](auto& s) -> auto& { return s.workload.ping_pong.pairs; }),
    bind(
        {.path = "workload.ping_pong.size",
         .type = KnobType::kBytes,
         .description = "Bytes of each ping and each pong (one message each)",
         .source = "2 B: perftest's latency tests (perftest_parameters.h DEF_SIZE_LAT 2)",
         .min = Bound{0, true},
         .only_with = {pattern, ping_pong}},
        [](auto& s) -> auto& { return s.workload.ping_pong.size_bytes; }),
    bind(
        {.path = "workload.ping_pong.iterations",
         .type = KnobType::kInt,
         .description = "Round trips measured per pair (one-way latency = RTT / 2 each)",
         .source = "1000: perftest's default iterations (perftest_parameters.h DEF_ITERS 1000)",
         .min = Bound{1},
         .only_with = {pattern, ping_pong}},
        [](auto& s) -> auto& { return s.workload.ping_pong.iterations; }),
    bind(
        {.path = "workload.ping_pong.warmup",
         .type = KnobType::kInt,
         .description = "Round trips run first and left out of the statistics",
         .source = "0: the simulated fabric has no caches to warm (a real run's first iterations "
                   "pay cold caches and TLB misses, not modelled)",
         .min = Bound{0},
         .only_with = {pattern, ping_pong}},
        [](auto& s) -> auto& { return s.workload.ping_pong.warmup; }),
};

}  // namespace

const std::vector<Knob>& ping_pong_knobs() { return kPingPongKnobs; }

}  // namespace fabricsim::scenario
