// `fabricsim compare`: one scenario run on several fabrics, side by side. The table has a row
// per metric and a column per fabric, in the order the runs are given; compare.csv has a row per
// fabric with the same metrics at full precision. Every figure comes from RunResult or from
// flow_stats.h (the same nearest-rank percentiles as the summary and result.json), so the table,
// compare.csv and each fabric's result.json always agree.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "results/result.h"

namespace fabricsim::output {

// (fabric name as fabric.technology spells it, its run), e.g. {"ib", ...}, {"roce", ...}.
using FabricRuns = std::vector<std::pair<std::string, scenario::RunResult>>;

// The metrics of one run that the comparison shows (SPEC §6 definitions).
struct CompareMetrics {
  int64_t flows_total = 0;
  int64_t flows_completed = 0;
  bool collective = false;         // the workload is a collective
  bool collective_done = false;    // ... and it finished
  int64_t collective_time_ps = 0;  // 0 unless collective_done
  double busbw_gbytes_per_s = 0;   // nccl-tests busbw, GB/s = 1e9 B/s
  // A size sweep (workload.max_size): every size's nccl-tests row, smallest first; empty for one
  // size. collective_time_ps and busbw_gbytes_per_s above are then the first size's (compare.csv
  // keeps them; each run's nccl-tests.csv has every size).
  std::vector<scenario::CollectiveRow> sweep;
  bool training = false;           // the (first job's) workload is a training step
  bool training_done = false;      // ... and it finished
  int64_t step_time_ps = 0;        // 0 unless training_done
  // The critical rank's step breakdown (workload/step_breakdown.h): step = compute + bubble +
  // skew + exposed communication; exposed_comm_ps without a breakdown = step - compute.
  int64_t compute_ps = 0;
  int64_t bubble_ps = 0;
  int64_t skew_ps = 0;
  int64_t exposed_comm_ps = 0;
  // Exposed communication by parallelism (the collectives' phase name), every phase summed.
  std::vector<std::pair<std::string, int64_t>> exposed_by_parallelism;
  // training.ideal_network (every training compare runs it): -1 = not run or unfinished.
  int64_t ideal_step_ps = -1;
  int64_t network_ps = 0;       // step - ideal step
  double ideal_efficiency = 0;  // ideal step / step
  // Completion time: the simulated time at which the last flow finished; -1 when some flow
  // never finished (then there is no completion time to compare).
  int64_t completion_ps = -1;
  int64_t fct_p50_ps = 0;  // over finished flows, nearest rank (flow_stats.h)
  int64_t fct_p99_ps = 0;
  double aggregate_throughput_gbps = 0;
  int64_t dropped_packets = 0;
  int64_t pause_frames = 0;   // PFC PAUSE/RESUME frames (Ethernet); 0 on InfiniBand
  int64_t credit_waits = 0;   // times an IB VL's head packet waited for credits; 0 on Ethernet
  int64_t credit_stalls = 0;  // IB VLs stalled past the head-of-queue lifetime
  int64_t paused_ps = 0;  // port total: PFC-paused time, or on IB time spent waiting for credits
  int64_t retransmitted_packets = 0;
  int64_t timeouts = 0;
  // A link failure (faults.link_down): time without a working route, and until every packet it
  // destroyed was delivered again (-1 = not recovered by the end); failed = false when none.
  bool failed = false;
  int64_t no_route_ps = -1;
  int64_t local_repair_ps = -1;  // from the failure to its switches' groups without the cable
  int64_t recovery_ps = -1;
  int64_t link_down_drops = 0;
  // outputs.steady_window: per-flow goodput over the steady window, fractions of line rate.
  bool steady = false;
  double steady_mean_fraction = 0;
  double steady_min_fraction = 0;
  int64_t out_of_order_packets = 0;  // placed out of sequence order (reordering)
  // The fabric's bill of materials (resolve/cost/bom.h) per GPU (per NIC without GPUs); priced =
  // false when it could not be priced.
  bool priced = false;
  bool per_gpu = false;
  double cost_per_unit_usd = 0;
  double power_per_unit_w = 0;
  double fabric_musd = 0;  // the whole fabric, millions of USD
  int64_t max_switch_buffer_bytes = 0;  // the fullest any switch's shared buffer was
  int64_t trimmed_packets = 0;          // cut to their header by switches (UEC trimming)
  // NIC connection-context cache (fabric.nic.context_cache; net/nic_context_cache.h)
  bool context_cache = false;
  int64_t context_misses = 0;
  int64_t max_connections_per_nic = 0;
  int64_t max_nic_context_bytes = 0;
  // pattern: ping_pong: the first pair's typical (median) one-way latency, RTT / 2; -1 = none.
  double ping_pong_one_way_ps = -1;
  int64_t host_cpu_ps = 0;  // TCP: host CPU time in the kernel stack (transport/tcp.h)
  int64_t messages = 0;     // flows posted (the per-message CPU row divides by it)
};

CompareMetrics compare_metrics(const scenario::RunResult& result);

// The table as `fabricsim compare` prints it: the scenario, topology and workload (shared by
// every run), a blank line, then a header row naming the fabrics and one row per metric, values
// right-aligned under their fabric. With exactly two fabrics a last column holds first / second
// for the continuous metrics (times, bandwidths), blank for counts. Times and rates have four
// significant digits (core/units.h), busbw two decimals as in the summary, counts are exact.
// Ends with a newline. REQUIRES: `runs` non-empty.
std::string format_compare_table(const FabricRuns& runs);

inline constexpr const char* kCompareCsvHeader =
    "fabric,flows_total,flows_completed,collective_time_ps,busbw_gbytes_per_s,completion_time_ps,"
    "fct_p50_ps,fct_p99_ps,aggregate_throughput_gbps,dropped_packets,pause_frames,credit_waits,"
    "credit_stalls,paused_ps,retransmitted_packets,timeouts,step_time_ps,exposed_comm_ps,partial,"
    "steady_mean_goodput_fraction,steady_min_goodput_fraction,out_of_order_packets,"
    "fabric_cost_per_gpu_usd,network_power_per_gpu_w,host_cpu_ps,compute_ps,bubble_ps,skew_ps,"
    "exposed_tensor_parallel_ps,exposed_pipeline_parallel_ps,exposed_data_parallel_ps,"
    "exposed_expert_parallel_ps,exposed_other_ps,ideal_step_time_ps,network_ps,ideal_efficiency,"
    "steps_per_hour,steps_per_hour_per_musd";

// The parallelisms compare.csv has a column for (exposed_<name>_ps); every other kind of
// collective is summed into exposed_other_ps.
inline constexpr const char* kCompareCsvParallelisms[] = {
    "tensor_parallel", "pipeline_parallel", "data_parallel", "expert_parallel"};

// Header, then one row per fabric in the given order. Integers exactly; doubles in the shortest
// form that reads back to the same value (as result.json prints them). A metric that does not
// exist for the run (no collective, or an unfinished one; no completion time) is an empty field.
// `partial` is true for a run stopped by SIGINT/SIGTERM (its figures cover only what ran).
std::string compare_csv_text(const FabricRuns& runs);

// Writes each run's result files into DIR/<fabric>/ (output/write.h), DIR/compare.csv and the
// marker file (output/marker.h) into `dir`, which must exist (the CLI passes its staging
// directory, cli/staged_dir.h). Throws std::runtime_error naming what could not be written.
void write_compare_files(const std::filesystem::path& dir, const FabricRuns& runs);

}  // namespace fabricsim::output
