// The interface every engine implements (docs/architecture.md): built from a resolved scenario
// (resolve/resolve.h), it posts the scenario's workload or a caller's messages, runs until a time
// or until nothing is left to do, and reports what happened as a RunResult (results/result.h).
// run_scenario (engine/run.h) drives any engine through it, so a flow-level or hybrid engine
// plugs in beside the packet engine (engine/packet/simulation.h) without a change above.
//
// Per run and per message, never per packet: the calls are virtual.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/run_control.h"
#include "resolve/resolve.h"
#include "results/result.h"

namespace fabricsim::scenario {

class Engine {
 public:
  virtual ~Engine() = default;
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // What becomes of the per-flow records (engine/run_control.h); before start_workload(). Without
  // it every record is kept and no flows.csv is written.
  virtual void set_flow_harvest(const FlowHarvest& flows) = 0;
  // Posts the scenario's workload (callers that post their own messages may skip it).
  virtual void start_workload() = 0;
  // Posts one message of `size_bytes` from NIC src to NIC dst now; returns its id (dense from
  // 0, the flows.csv row).
  virtual uint32_t post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag) = 0;
  // Runs until every message is delivered and acknowledged, or until `stop_time_ps` (0 = no
  // limit), or until `*stop` is nonzero. Returns false when stopped early.
  virtual bool run(int64_t stop_time_ps, const ProgressFn& progress, const StopFlag* stop) = 0;
  // The latest run() ended because its stop flag was set.
  virtual bool interrupted() const = 0;
  virtual int64_t now_ps() const = 0;
  virtual int64_t events() const = 0;
  // What the run produced, but the host's own statistics (wall time, peak RSS: the caller's).
  // `finished` is what run() returned. Call once, after run().
  virtual RunResult harvest(bool finished) = 0;
};

// The engine a resolved scenario asks for. Today every scenario runs on the packet engine.
std::unique_ptr<Engine> make_engine(const Resolved& resolved);
// The same, its partitioned run spread over `ranks` (an MPI run: core/rank_exchange.h).
std::unique_ptr<Engine> make_engine(const Resolved& resolved, RankExchange* ranks);

}  // namespace fabricsim::scenario
