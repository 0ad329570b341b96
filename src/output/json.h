// result.json and run.json.
//
// result.json holds only simulated quantities, so the same scenario and seed give a
// byte-identical file (keys in a fixed order, numbers printed by nlohmann::json's shortest
// round-trip form); run.json holds what the host measured (wall time, memory), which varies run
// to run. Per-flow records are not repeated in result.json: they are in flows.csv.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "results/result.h"

namespace fabricsim::output {

// Everything in RunResult except `run` and the per-flow list, plus the flow statistics of
// flow_stats.h under "flows".
nlohmann::ordered_json result_to_json(const scenario::RunResult& result);
// Exactly the keys events, wall_seconds, events_per_second, data_packet_hops, peak_rss_bytes,
// sim_time_ps.
nlohmann::ordered_json run_stats_to_json(const scenario::RunStats& stats);

// Two-space indented text ending in a newline.
std::string result_json_text(const scenario::RunResult& result);
std::string run_json_text(const scenario::RunStats& stats);

}  // namespace fabricsim::output
