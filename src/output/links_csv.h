// links.csv: one row per port (one direction of a cable) with its totals over the run
// (scenario::LinkRow, engine/packet/link_table.h). The columns are the format agreed with the
// report and the time-series outputs (docs/outputs.md); new columns go at the end only.
#pragma once

#include <string>
#include <vector>

#include "results/result.h"

namespace fabricsim::output {

inline constexpr const char* kLinksCsvHeader =
    "port,link,from,to,from_tier,to_tier,direction,rate_bps,tx_bytes,utilization,"
    "peak_queue_bytes,drops,pause_frames_sent,pause_frames_received,paused_ps,ecn_marks,"
    "credit_waits,trimmed,down";

// Header line, then one line per row in the given order. Utilization has nine decimals (a
// 1-byte frame on a 1 Tb/s port over a second still shows); every other number is an integer;
// down is 0 or 1.
std::string links_csv_text(const std::vector<scenario::LinkRow>& rows);

// The summary's hottest-links table: the busiest ports (scenario::hottest_links), one line each
// with utilization, peak queue, drops, PFC frames received, ECN marks, credit waits and a
// "DOWN" flag for a failed cable; empty when no port sent anything.
std::string hottest_links_text(const std::vector<scenario::LinkRow>& rows, size_t n);

}  // namespace fabricsim::output
