// The ping-pong pattern's outputs (workload/ping_pong.h): result.json's "ping_pong" array, the
// summary's rows and ping_pong.csv (one row per measured round trip).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "workload/ping_pong.h"

namespace fabricsim::output {

// One object per pair: NICs, size, iterations, one-way latency statistics in ps, transactions/s.
nlohmann::ordered_json ping_pong_json(const std::vector<workload::PingPongStats>& pairs);
// "ping-pong" summary rows, one per pair.
void ping_pong_summary_rows(const std::vector<workload::PingPongStats>& pairs,
                            std::vector<std::pair<std::string, std::string>>& rows);
// pair,a,b,size_bytes,iteration,rtt_ps,one_way_ps
std::string ping_pong_csv_text(const std::vector<workload::PingPongStats>& pairs);

}  // namespace fabricsim::output
