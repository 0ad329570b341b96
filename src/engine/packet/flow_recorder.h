// The packet engine's flow table, built one message at a time in id order (issue 24 item 1):
// each transport message becomes a FlowRecord (with its ideal FCT on its own path) that goes
// into the flow summary, into flows.csv's file and the kept records as the FlowHarvest asks,
// every k-th into trace.json's sample, every size into pcap's lookup. The transport hands it
// the messages it retires during the run (transport.h retire_messages), the harvest the rest.
// Per message, never per packet.
#pragma once

#include <cstdint>
#include <memory>

#include "engine/run_control.h"
#include "results/flow_summary.h"
#include "results/flows_csv.h"
#include "results/result.h"
#include "transport/transport.h"

namespace fabricsim::scenario {

class Simulation;

class FlowRecorder {
 public:
  // Reads the scenario, routes and transport of `sim`, which outlives it.
  FlowRecorder(const Simulation& sim, const FlowHarvest& how);

  // Message `id`'s record; ids must come in order, each once, from 0.
  void add(uint32_t id, const transport::MessageRecord& m);
  uint32_t next_id() const { return next_id_; }

  // Moves everything gathered into `r` (flows, flow_summary, flows_csv, trace_flows,
  // message_bytes, completed, aggregate_throughput_gbps). `finished`: the run ended by itself.
  void finish(bool finished, RunResult& r);

 private:
  const Simulation& sim_;
  FlowHarvest how_;
  bool packet_split_ = false;
  int64_t trace_stride_ = 0;  // 0: no trace sample
  bool sizes_ = false;        // a capture: every message's size
  uint32_t next_id_ = 0;
  FlowSummaryBuilder summary_;
  std::unique_ptr<FlowsCsvWriter> csv_;
  std::vector<FlowRecord> kept_;
  std::vector<FlowRecord> traced_;
  std::vector<int64_t> sizes_by_id_;
};

}  // namespace fabricsim::scenario
