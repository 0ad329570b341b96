// A centralized traffic-engineering controller (routing.load_balancing: te).
//
// The SDN remedy for ECMP hash collisions (Hedera, NSDI 2010): a controller with a global view
// places each known large flow on the least-loaded of its equal-cost paths and installs per-flow
// rules in the switches. Here:
//   * It learns of flows per message, when the workload posts them (Simulation feeds it; no
//     per-packet work). Flows of at least routing.te.min_flow_size are placed; smaller ones stay
//     on ECMP.
//   * Placement is greedy, largest flow first (ties by message id): each flow takes the path
//     whose most-loaded link would be least loaded with it added (link load = the demands of
//     the active placed flows on it, as a fraction of its rate), ties to the smaller sum of
//     squared loads, then the first path found. Greedy alone can strand a flow on a shared link
//     even where a conflict-free placement exists, so the batch is then improved by moving one
//     flow at a time to a strictly better path, and the whole batch is retried in a few
//     deterministic shuffled orders; the best result (fewest over-subscribed links, then least
//     squared load) is kept. A flow's demand is the smaller of its two NICs' line rates (a long
//     flow is host-limited until it shares a link).
//   * Rules (src NIC, dst NIC) -> egress port go into every switch on the path that has a choice;
//     they take effect routing.te.install_delay after the controller learned of the flows.
//   * With routing.te.reoptimize_interval > 0 it re-places the active flows every interval from
//     measured link loads (Network::port_tx_bytes deltas): a link's background is its measured
//     load less the measured rates of the placed flows on it (per-flow delivered-byte deltas,
//     as Hedera reads flow counters from the edge switches). A flow moves only when that lowers
//     the most-loaded link of its path by more than 10% of the line rate (each move reorders
//     it; without hysteresis the controller chases its own measurements), and not while a move
//     is pending or when it changed path within the measured interval. Changed paths are
//     installed after the install delay.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/scheduler.h"
#include "net/network.h"
#include "routing/config.h"

namespace fabricsim::routing {

class TeController {
 public:
  struct Flow {
    uint32_t msg = 0;
    uint32_t src = 0;
    uint32_t dst = 0;
    int64_t size_bytes = 0;
    double demand_bps = 0;
    std::vector<uint32_t> path;  // egress switch ports, in order (empty until placed)
    int64_t learned_ps = -1;
    int64_t installed_ps = -1;   // when its current rules took effect (-1: not yet)
    int64_t last_delivered = 0;  // reoptimization: delivered bytes at the previous tick
    bool active = true;
    bool move_pending = false;   // a re-optimization decided a new path, not yet installed
  };

  // `delivered_bytes(msg)`: payload of the message delivered so far (for measured flow rates).
  TeController(net::Network& net, Scheduler& sched, const TeConfig& cfg,
               std::function<int64_t(uint32_t)> delivered_bytes);

  // A message was posted (per message, never per packet).
  void on_posted(uint32_t msg, uint32_t src, uint32_t dst, int64_t size_bytes);
  void on_delivered(uint32_t msg);
  // Schedules the first reoptimization tick (when the interval is set).
  void start();
  // Event handlers: kTeInstall (a pending batch of rules takes effect), kTeTick.
  void on_install();
  void on_tick();

  const std::vector<Flow>& flows() const { return flows_; }
  int64_t rules_installed() const { return rules_installed_; }
  int64_t reoptimizations() const { return reoptimizations_; }
  int64_t flows_moved() const { return flows_moved_; }

  // Every shortest path from `src` to `dst` as the ECMP tables define them (egress switch
  // ports; empty for a pair on one switch). At most `limit` paths.
  std::vector<std::vector<uint32_t>> paths(uint32_t src, uint32_t dst, size_t limit = 4096) const;

 private:
  struct Batch {
    int64_t due_ps;
    std::vector<uint32_t> flows;                      // indexes into flows_
    std::vector<std::vector<uint32_t>> new_paths;     // reoptimization: the paths to install
  };
  // Greedy placement of `batch` (flow indexes) over `base` load (bps per port).
  std::vector<std::vector<uint32_t>> place(const std::vector<uint32_t>& batch,
                                           std::vector<double> base) const;
  void install(uint32_t flow, const std::vector<uint32_t>& path);

  net::Network& net_;
  Scheduler& sched_;
  TeConfig cfg_;
  std::function<int64_t(uint32_t)> delivered_bytes_;
  std::vector<Flow> flows_;
  std::vector<int32_t> flow_of_msg_;  // message id -> index in flows_, -1 if not placed
  std::vector<Batch> pending_;        // in due order (FIFO: one delay for every batch)
  size_t pending_head_ = 0;
  std::vector<int64_t> last_tx_bytes_;  // per port at the previous tick
  int64_t last_tick_ps_ = 0;
  int64_t rules_installed_ = 0;
  int64_t reoptimizations_ = 0;
  int64_t flows_moved_ = 0;
};

}  // namespace fabricsim::routing
