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

  // Work done, for a progress line (cli/progress.h): the nccl-tests sizes of the finished
  // collectives plus, for each running one, its size x the share of its messages arrived.
  // `net` counts only collectives whose ranks span more than one node (the ones whose bytes
  // cross the packet-level fabric, where the run's events go). Walks the running collectives.
  struct BytesDone {
    double all = 0;
    double net = 0;
  };
  BytesDone bytes_done() const;
  // trace.json (workload/trace_recorder.h): every message posted and arrived is reported to
  // `trace` (nullptr = none, the default: one untaken branch per message).
  void set_trace(TraceRecorder* trace) { trace_ = trace; }

 private:
  struct Running {
    std::unique_ptr<detail::Plan> plan;
    std::function<void(uint32_t)> done;
    bool net = false;  // its ranks span more than one node
  };
  void validate(const CollectiveSpec& spec) const;
  // NVLS or NVLS-tree may be chosen by `auto` for this communicator.
  bool nvls_available(const CollectiveSpec& spec) const;
  // The SHARP group (RankTransport::sharp_group) of the communicator for CollNet (one rank per
  // node: every rank) or NVLS across nodes (every node's NVLS heads); -1 = unavailable. Set up
  // once per GPU set, as NCCL sets up CollNet once per communicator.
  int sharp_group_of(const CollectiveSpec& spec, CollAlgorithm a) const;
  detail::BuildParams build_params(const CollectiveRecord& r) const;
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
  // bytes_done(): finished collectives' sizes, and the first id that may still be running.
  int64_t finished_bytes_ = 0;
  int64_t finished_net_bytes_ = 0;
  mutable size_t first_live_ = 0;
};

}  // namespace fabricsim::workload
