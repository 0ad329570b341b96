// Registry entries of the time-series samplers (engine/packet/telemetry.h, docs/telemetry.md):
// outputs.timeseries.{interval, ports, top, qps, top_qps}. They restate spec/telemetry_types.h
// TimeseriesSpec.
#include <vector>

#include "spec/knob_bind.h"
#include "spec/knob_tables.h"
#include "spec/knobs.h"

namespace fabricsim::scenario {

using knob_bind::bind;

namespace {

using knob_bind::non_negative;

const std::vector<Knob> kTelemetryKnobs = {
    bind(
        {.path = "outputs.timeseries.interval",
         .type = KnobType::kTime,
         .description = "Sample interval of the time series (timeseries_ports.csv, "
                        "timeseries_qps.csv): per port utilization, queue per class, paused "
                        "fraction and IB credits; per QP the congestion-control rate or window. "
                        "0 = off (no event, no memory)",
         .source = "off: samples cost 56 bytes per (sample, port) of memory "
                   "(docs/telemetry.md); htsim's and ns-3's queue/rate loggers are opt-in too",
         .min = non_negative},
        [](auto& s) -> auto& { return s.timeseries.interval_ps; }),
    bind(
        {.path = "outputs.timeseries.ports",
         .type = KnobType::kStringList,
         .description = "Ports to sample, by the label links.csv prints (<from>:<local "
                        "port>-><to>, e.g. sw3:5->sw17); empty = the `top` ports",
         .source = "none listed: the busiest ports are picked by `top`"},
        [](auto& s) -> auto& { return s.timeseries.ports; }),
    bind(
        {.path = "outputs.timeseries.top",
         .type = KnobType::kInt,
         .description = "With no ports listed: every port is sampled and the N with the highest "
                        "peak queue (links.csv peak_queue_bytes: the fullest class queue, exact) "
                        "are written (ties: more bytes sent, then lower port id); 0 = no port "
                        "series",
         .source = "8: issue 13's default, as many series as one chart of report.html tells "
                   "apart (a presentation choice, no measured figure)",
         .min = non_negative},
        [](auto& s) -> auto& { return s.timeseries.top; }),
    bind(
        {.path = "outputs.timeseries.qps",
         .type = KnobType::kIntList,
         .description = "QP / connection ids to sample (RoCE/IB QP, UET PDC, TCP connection: "
                        "the transport's ids in the order connections open, flows.csv's qp); "
                        "empty = the `top_qps` connections",
         .source = "none listed: the busiest connections are picked by `top_qps`",
         .min = non_negative},
        [](auto& s) -> auto& { return s.timeseries.qps; }),
    bind(
        {.path = "outputs.timeseries.top_qps",
         .type = KnobType::kInt,
         .description = "With no qps listed: every connection is sampled and the N that sent "
                        "the most payload (retransmissions included) are written; 0 = none",
         .source = "8: as outputs.timeseries.top (issue 13; a presentation choice)",
         .min = non_negative},
        [](auto& s) -> auto& { return s.timeseries.top_qps; }),
    bind(
        {.path = "outputs.timeseries.max_samples",
         .type = KnobType::kInt,
         .description = "At most this many samples per series (the last is the run's end): "
                        "sampling stops there and the rest of the run is one final interval "
                        "(the summary says so). Bounds the sampler's memory, which the pre-flight "
                        "estimate counts: samples x sampled ports x 56 B",
         .source = "10000: a 10 us interval covers 100 ms, in 430 MB for the 768 ports of a "
                   "k=8 three-tier fat-tree (a memory budget, no measured figure)",
         .min = Bound{2}},
        [](auto& s) -> auto& { return s.timeseries.max_samples; }),
};

}  // namespace

const std::vector<Knob>& telemetry_knobs() { return kTelemetryKnobs; }

}  // namespace fabricsim::scenario
