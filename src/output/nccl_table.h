// The nccl-tests view of GPU collectives: the table nccl-tests prints (docs/reference/nccl.md
// §1.3: size, count, type, redop, root, time, algbw, busbw) and the same rows as CSV
// (nccl-tests.csv), plus the training-step and scaling tables.
#pragma once

#include <string>
#include <vector>

#include "results/result.h"

namespace fabricsim::output {

inline constexpr const char* kNcclTestsCsvHeader =
    "size_bytes,count,type,redop,root,time_us,algbw_gbytes_per_s,busbw_gbytes_per_s,op,"
    "algorithm,protocol,channels,ranks";

// nccl-tests' columns (out-of-place only: a simulation has no in-place difference, and no
// #wrong column: no data is computed), then what ran (algorithm, protocol, channels), and the
// closing "# Avg bus bandwidth" line over finished rows. Unfinished rows show "-".
std::string nccl_table_text(const std::vector<scenario::CollectiveRow>& rows);
// nccl-tests' "# Avg bus bandwidth": the mean busbw over the finished rows; -1 when none finished.
double average_busbw(const std::vector<scenario::CollectiveRow>& rows);
// A size sweep (nccl-tests -b/-e/-f: one collective, several sizes) as one phrase for the
// summary's and compare's header, where the first size alone would misdescribe it:
// "all_reduce, 16 ranks, 19 sizes from 8 B to 64.00 MiB" ("all_reduce ring, ..." when every
// size ran the same algorithm). REQUIRES: !rows.empty().
std::string sweep_description(const std::vector<scenario::CollectiveRow>& rows);
// One line per row; an unfinished row leaves time and bandwidths empty.
std::string nccl_tests_csv_text(const std::vector<scenario::CollectiveRow>& rows);

inline constexpr const char* kScalingCsvHeader = "nodes,gpus,step_time_us,acceleration_ratio,busbw_gbytes_per_s,algorithm,protocol,channels,ideal_step_time_us,ideal_efficiency";
std::string scaling_table_text(const std::vector<scenario::ScalingPoint>& points);
std::string scaling_csv_text(const std::vector<scenario::ScalingPoint>& points);

}  // namespace fabricsim::output
