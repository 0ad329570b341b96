// Runs NCCL-style collectives over a node::RankTransport, one message per slice / chunk / step
// (never per packet). docs/collectives.md describes the algorithms, the pipeline and the
// latency charging; docs/reference/nccl.md holds the NCCL facts they rest on.
//
// The owner installs rt.on_arrived / rt.on_timer and forwards every cookie below
// kForeignCookie to on_arrived() / on_timer() here. Many collectives may run at once; each has
// its own state, freed when it completes (its record stays).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "node/rank_transport.h"
#include "workload/collective.h"
#include "workload/collective_config.h"
#include "workload/collective_plan.h"
#include "workload/trace_recorder.h"

namespace fabricsim::workload {

class CollectiveEngine final : public CollectiveRunner {
 public:
  CollectiveEngine(node::RankTransport& rt, const CollectiveConfig& cfg);

  // Throws InputError (key path "workload.<field>") for a spec that cannot run.
  uint32_t start(const CollectiveSpec& spec, std::function<void(uint32_t id)> done) override;
  const CollectiveRecord& record(uint32_t id) const override { return records_.at(id); }

  // What `spec` resolves to (algorithm, protocol, channels; auto replaced), without running it.
  CollectiveRecord resolve(const CollectiveSpec& spec) const;

  void on_arrived(uint64_t cookie);
  void on_timer(uint64_t cookie);

  const CollectiveConfig& config() const { return cfg_; }

  // What `spec` posts across the fabric, from its plan (built, not run): for the memory
  // pre-flight (preflight/resources_gpu.cpp).
  struct CrossNodeTraffic {
    // Transport messages: those of its GPU-to-GPU connections between different nodes (a
    // SHARP connection's go to the switches' aggregation instead, net/sharp.cpp).
    int64_t messages = 0;
    // Transfers inside a node (NVLink, NVLS): the node layer's, never the transport's.
    int64_t node_messages = 0;
    // The heap its plan holds while it runs (detail::Plan::held_bytes).
    int64_t plan_bytes = 0;
    // Messages posted and not yet credited back at any moment, at most: the sum of those
    // connections' windows, SHARP's included (NCCL_STEPS credits each; nccl_steps / slice
    // steps on a ring, whose credit frees a slice's FIFO slots: try_send's
    // `c.outstanding < c.window`), each at most its stream's messages. A message is credited
    // only after it arrived, so this bounds the messages not yet delivered. When the plan's
    // chains of dependent messages bound them lower (a ring: one message in flight per chain,
    // a chain per first-step slice), that bound instead (collective_engine.cpp).
    int64_t window = 0;
  };
  CrossNodeTraffic cross_node_traffic(const CollectiveSpec& spec) const;

  // Work, for a progress line (cli/progress.h), in units of one 4 KiB packet crossing the
  // fabric (a few events each: docs/performance.md, 3.37 events per data packet-hop). A
  // collective whose ranks span nodes weighs the bytes its ranks send, size x 2(n-1) for an
  // all-reduce (n-1 for the one-pass ops, 1 for a send), in such packets; one inside a node
  // weighs kIntraNodeCollectiveUnits whatever its size: NVLink's events go with its chunks,
  // not its bytes (measured: an 8 MiB TP all-reduce of examples/gpt-step.yaml costs ~3,300
  // events, a 2 MiB one of tests/engine/training_progress_test.cpp ~8,700).
  static constexpr double kProgressPacketBytes = 4096;
  static constexpr double kIntraNodeCollectiveUnits = 640;
  static double progress_units(CollOp op, size_t ranks, int64_t size_bytes, bool spans_nodes);
  // The units of the finished collectives plus, for each running one, its units x the share of
  // its messages arrived. Walks the running collectives.
  double work_done() const;
  // trace.json (workload/trace_recorder.h): every message posted and arrived is reported to
  // `trace` (nullptr = none, the default: one untaken branch per message).
  void set_trace(TraceRecorder* trace) { trace_ = trace; }

 private:
  struct Running {
    std::unique_ptr<detail::Plan> plan;
    std::function<void(uint32_t)> done;
    double units = 0;  // progress_units
  };

 public:
  // What the engine keeps for every collective it ever started, in two vectors grown by
  // push_back (records_, running_; a finished one's plan is freed): for the memory pre-flight.
  static constexpr int64_t kKeptBytesPerCollective =
      static_cast<int64_t>(sizeof(CollectiveRecord) + sizeof(Running));

 private:
  void validate(const CollectiveSpec& spec) const;
  // NVLS or NVLS-tree may be chosen by `auto` for this communicator.
  bool nvls_available(const CollectiveSpec& spec) const;
  // The SHARP group (RankTransport::sharp_group) of the communicator for CollNet (one rank per
  // node: every rank) or NVLS across nodes (every node's NVLS heads); -1 = unavailable. Set up
  // once per GPU set, as NCCL sets up CollNet once per communicator.
  int sharp_group_of(const CollectiveSpec& spec, CollAlgorithm a) const;
  detail::BuildParams build_params(const CollectiveRecord& r) const;
  // The connections and streams of `spec` resolved to `r`; bind_sharp: also set up its SHARP
  // group on the rank transport (a run), not only name one (a count).
  std::unique_ptr<detail::Plan> build_plan(const CollectiveSpec& spec, const CollectiveRecord& r,
                                           bool bind_sharp) const;
  void finalize(detail::Plan& plan) const;
  void kick(uint32_t id);
  void try_send(uint32_t id, detail::Plan& plan, uint32_t e);
  void finish(uint32_t id);

  node::RankTransport& rt_;
  CollectiveConfig cfg_;
  std::vector<CollectiveRecord> records_;
  std::vector<Running> running_;
  TraceRecorder* trace_ = nullptr;
  mutable std::map<std::vector<uint32_t>, int> sharp_groups_;
  // work_done(): finished collectives' units, and the first id that may still be running.
  double finished_units_ = 0;
  mutable size_t first_live_ = 0;
};

}  // namespace fabricsim::workload
