// timeseries_ports.csv and timeseries_qps.csv: the telemetry samplers' series
// (engine/packet/telemetry.h, docs/telemetry.md), in the column layout report.html reads.
#pragma once

#include <string>

#include "spec/telemetry_types.h"

namespace fabricsim::output {

inline constexpr const char* kTimeseriesPortsHeader =
    "time_ps,port,link,utilization,queue_bytes,q0_bytes,q1_bytes,q2_bytes,q3_bytes,q4_bytes,"
    "q5_bytes,q6_bytes,q7_bytes,paused_fraction,credits_blocks";
inline constexpr const char* kTimeseriesQpsHeader =
    "time_ps,qp,src_nic,dst_nic,cc,rate_bps,window_bytes";

// One row per (sample, port), samples in time order and ports in port order within one:
// time_ps = the interval's end; port = net::Network port id; link = its label;
// utilization = wire bytes whose serialization started in the interval x 8 / (rate x interval
// length) with nine decimals (a frame counts in the interval it starts in, so one interval may
// exceed 1 by up to a frame); queue bytes at time_ps; paused_fraction = paused class-time in
// the interval / its length (nine decimals); credits_blocks empty on Ethernet.
std::string timeseries_ports_csv_text(const scenario::TelemetryResult& t);

// One row per (sample, QP) once the QP is open; rate_bps or window_bytes empty when the scheme
// has no such quantity (DCQCN: a rate; NSCC, TCP: a window; none: both empty).
std::string timeseries_qps_csv_text(const scenario::TelemetryResult& t);

}  // namespace fabricsim::output
