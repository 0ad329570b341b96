// Registry entries of how a run ends and what it writes: jobs_alone, stop_time, outputs.dir,
// outputs.steady_window, outputs.pcap.* (src/spec/scenario.h) and outputs.flows.path (flows.csv's
// path column, engine/packet/flow_paths.h). Defaults are read from the members they fill.
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

using knob_bind::non_negative;

const std::vector<Knob> kRunKnobs = {
    bind(
        {.path = "jobs_alone",
         .type = KnobType::kBool,
         .description = "With jobs: also run each job alone on the same nodes and report its "
                        "time alone and its slowdown beside the others (one more run per job)",
         .source = "off: the baseline costs a run per job"},
        [](auto& s) -> auto& { return s.jobs_alone; }),
    bind(
        {.path = "stop_time",
         .type = KnobType::kTime,
         .description = "Simulated-time limit; 0 = until every flow completes",
         .source = "run to completion",
         .min = non_negative},
        [](auto& s) -> auto& { return s.stop_time_ps; }),
    bind(
        {.path = "threads",
         .type = KnobType::kInt,
         .description = "Cores the run may use, with the same results at any count: a "
                        "packet-mode pattern run on RoCE/IB RC, UET, TCP or iWARP is split into "
                        "this many partitions run side by side (run.json says how, or why it was "
                        "not); "
                        "the independent simulations a run is made of (training.ideal_network's "
                        "twin, scaling's node counts) run up to this many at once, the memory "
                        "estimate summed over them (docs/parallel.md)",
         .source = "1: one core, as before; `nproc` tells the machine's",
         .min = Bound{1},
         .max = Bound{256}},
        [](auto& s) -> auto& { return s.threads; }),
};

const std::vector<Knob> kOutputKnobs = {
    bind(
        {.path = "outputs.dir",
         .type = KnobType::kString,
         .description = "Directory for result files, relative to the working directory; "
                        "--out overrides it; empty = none",
         .source = "no files unless asked"},
        [](auto& s) -> auto& { return s.output_dir; }),
    bind(
        {.path = "outputs.steady_window",
         .type = KnobType::kBool,
         .description = "Report each flow's goodput over a steady window in which every flow is "
                        "active (from the last start plus half the time to the first completion, "
                        "to the first completion): mean and minimum in % of line rate",
         .source = "how multipath transport papers report permutation throughput (MPTCP NSDI "
                   "2011, NDP SIGCOMM 2017); off: it samples every flow"},
        [](auto& s) -> auto& { return s.steady_window; }),
    bind(
        {.path = "outputs.pcap.frames",
         .type = KnobType::kInt,
         .description = "Write the first N frames in transmit order to trace.pcap (byte-exact "
                        "RoCEv2 and PFC frames, or InfiniBand packets as ERF records with the "
                        "credit packets of that span in credits.csv; nanosecond timestamps); "
                        "0 = no capture",
         .source = "off: capture costs memory per frame",
         .min = non_negative},
        [](auto& s) -> auto& { return s.capture.max_frames; }),
    bind_enum(
        {.path = "outputs.pcap.point",
         .description = "nics = frames sent or received by NICs (tcpdump on every host); all = "
                        "every link, so a packet appears once per hop",
         .source = "what a host-side capture shows"},
        std::vector<std::pair<std::string, CapturePoint>>{{"nics", CapturePoint::kNics},
                                                          {"all", CapturePoint::kAll}},
        [](auto& s) -> auto& { return s.capture.point; }),
};

const std::vector<Knob> kFlowOutputKnobs = {
    bind(
        {.path = "outputs.flows.path",
         .type = KnobType::kBool,
         .description = "Add a path column to flows.csv: the ports (links.csv names) the flow's "
                        "data packets crossed, in hop order, separated by ';'; a flow whose "
                        "packets took several distinct paths (spraying, adaptive routing, "
                        "repaths) lists up to 8 in the order first seen, then counts the rest "
                        "(format: docs/outputs.md)",
         .source = "off: it observes every data-packet hop (a net::Tap) and keeps per-flow path "
                   "lists; issue 13 item 1 asks for it on request"},
        [](auto& s) -> auto& { return s.flow_paths; }),
};

}  // namespace

const std::vector<Knob>& run_knobs() { return kRunKnobs; }
const std::vector<Knob>& output_knobs() { return kOutputKnobs; }
const std::vector<Knob>& flow_output_knobs() { return kFlowOutputKnobs; }

}  // namespace fabricsim::scenario
