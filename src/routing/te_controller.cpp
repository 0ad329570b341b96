#include "routing/te_controller.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

#include "core/rng.h"
#include "net/load_balance.h"
#include "routing/te_clos.h"

namespace fabricsim::routing {

namespace {
// Moves of the repair search per placement (at most 2000 per flow): bounds the controller's time
// on a large batch. A k=8 permutation (128 flows) needs a few thousand.
constexpr size_t kMaxRepairSteps = 1'000'000;
// Re-optimization moves a flow only for a gain of more than this fraction of the line rate on
// the most-loaded link of its path (see on_tick).
constexpr double kMoveHysteresis = 0.1;
}  // namespace

TeController::TeController(net::Network& net, Scheduler& sched, const TeConfig& cfg,
                           std::function<int64_t(uint32_t)> delivered_bytes)
    : net_(net), sched_(sched), cfg_(cfg), delivered_bytes_(std::move(delivered_bytes)) {}

std::vector<std::vector<uint32_t>> TeController::paths(uint32_t src, uint32_t dst,
                                                       size_t limit) const {
  std::vector<std::vector<uint32_t>> out;
  const uint32_t dst_slot = net_.leaf_slot_of_nic(dst);
  std::vector<uint32_t> path;
  // Depth-first along the ECMP groups towards the destination's leaf (shortest paths only).
  auto walk = [&](auto& self, uint32_t sw_index) -> void {
    if (out.size() >= limit) return;
    const net::Switch& sw = net_.switch_at(sw_index);
    if (static_cast<int32_t>(dst_slot) == sw.leaf_slot) {
      out.push_back(path);  // the last hop to the NIC is fixed
      return;
    }
    const uint16_t g = sw.group_of_key[dst_slot];
    if (g == net::kNoRoute) return;
    for (uint32_t i = sw.group_offsets[g]; i < sw.group_offsets[g + 1]; ++i) {
      const uint32_t port = sw.group_ports[i];
      if (!net_.port(port).up) continue;
      path.push_back(port);
      self(self, static_cast<uint32_t>(net_.port(net_.port(port).peer).switch_index));
      path.pop_back();
    }
  };
  const uint32_t first = net_.port(net_.nic_port(src)).peer;
  walk(walk, static_cast<uint32_t>(net_.port(first).switch_index));
  return out;
}

void TeController::on_posted(uint32_t msg, uint32_t src, uint32_t dst, int64_t size_bytes) {
  if (size_bytes < cfg_.min_flow_size_bytes) return;  // a small flow stays on ECMP
  if (flow_of_msg_.size() <= msg) flow_of_msg_.resize(msg + 1, -1);
  Flow f;
  f.msg = msg;
  f.src = src;
  f.dst = dst;
  f.size_bytes = size_bytes;
  f.demand_bps = static_cast<double>(std::min(net_.port(net_.nic_port(src)).rate_bps,
                                              net_.port(net_.nic_port(dst)).rate_bps));
  f.learned_ps = sched_.now();
  flow_of_msg_[msg] = static_cast<int32_t>(flows_.size());
  flows_.push_back(std::move(f));
  // Flows learned at the same instant are placed together (largest first).
  const int64_t due = sched_.now() + cfg_.install_delay_ps;
  if (pending_head_ < pending_.size() && pending_.back().due_ps == due &&
      pending_.back().new_paths.empty()) {
    pending_.back().flows.push_back(static_cast<uint32_t>(flows_.size() - 1));
    return;
  }
  pending_.push_back(Batch{due, {static_cast<uint32_t>(flows_.size() - 1)}, {}});
  sched_.at(due, kTeInstall, 0);
}

void TeController::on_delivered(uint32_t msg) {
  if (msg < flow_of_msg_.size() && flow_of_msg_[msg] >= 0) flows_[flow_of_msg_[msg]].active = false;
}

void TeController::start() {
  if (cfg_.reoptimize_interval_ps <= 0) return;
  last_tx_bytes_.assign(net_.num_ports(), 0);
  last_tick_ps_ = sched_.now();
  sched_.at(sched_.now() + cfg_.reoptimize_interval_ps, kTeTick, 0);
}

std::vector<std::vector<uint32_t>> TeController::place(const std::vector<uint32_t>& batch,
                                                       std::vector<double> base) const {
  // Candidate paths per flow.
  std::vector<std::vector<std::vector<uint32_t>>> cands(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) cands[i] = paths(flows_[batch[i]].src, flows_[batch[i]].dst);
  // Nothing else loads these links: a conflict-free placement, if the Clos colouring finds one,
  // gives every link at most one flow, the least any placement can (routing/te_clos.h).
  bool idle = true;
  for (const auto& paths_of_flow : cands) {
    for (const std::vector<uint32_t>& path : paths_of_flow) {
      for (uint32_t p : path) idle = idle && base[p] <= 0;
    }
  }
  if (std::vector<size_t> colored; idle && clos_color(net_, cands, colored)) {
    std::vector<std::vector<uint32_t>> out(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      if (!cands[i].empty()) out[i] = cands[i][colored[i]];
    }
    return out;
  }
  auto util = [&](const std::vector<double>& load, uint32_t port) {
    return load[port] / static_cast<double>(net_.port(port).rate_bps);
  };
  // Path cost with `d` added: (max link utilization, sum of squared utilizations' increase).
  auto cost = [&](const std::vector<double>& load, const std::vector<uint32_t>& path, double d) {
    double worst = 0, sq = 0;
    for (uint32_t p : path) {
      const double r = static_cast<double>(net_.port(p).rate_bps);
      const double u = util(load, p), v = (load[p] + d) / r;
      worst = std::max(worst, v);
      sq += v * v - u * u;
    }
    return std::pair<double, double>{worst, sq};
  };
  auto best_path = [&](const std::vector<double>& load, size_t i) {
    size_t best = 0;
    std::pair<double, double> best_cost{1e300, 1e300};
    const double d = flows_[batch[i]].demand_bps;
    for (size_t c = 0; c < cands[i].size(); ++c) {
      const auto k = cost(load, cands[i][c], d);
      // Costs are compared with a relative tolerance so float noise cannot reorder equal paths.
      if (k.first < best_cost.first - 1e-9 ||
          (k.first <= best_cost.first + 1e-9 && k.second < best_cost.second - 1e-9)) {
        best = c;
        best_cost = k;
      }
    }
    return best;
  };
  std::vector<size_t> order(batch.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return flows_[batch[a]].size_bytes > flows_[batch[b]].size_bytes;
  });
  // Greedy, largest first.
  std::vector<double> load = std::move(base);
  std::vector<size_t> choice(batch.size(), 0);
  for (size_t i : order) {
    if (cands[i].empty()) continue;
    choice[i] = best_path(load, i);
    for (uint32_t p : cands[i][choice[i]]) load[p] += flows_[batch[i]].demand_bps;
  }
  // Repair by min-conflicts local search (Minton et al., AIJ 1992): while some link is over
  // its rate, take a random flow that crosses one, move it to the path that adds the least
  // weighted excess (ties at random, sideways moves allowed, and a random path 1 time in 16 to
  // leave plateaus), and keep the best assignment seen. Deterministic: a fixed-seed stream.
  auto excess_of = [&](uint32_t p, double l) {
    const double r = static_cast<double>(net_.port(p).rate_bps);
    return std::max(0.0, l - r * (1 + 1e-9)) / r;
  };
  auto conflicted = [&](size_t i) {
    for (uint32_t p : cands[i][choice[i]]) {
      if (excess_of(p, load[p]) > 0) return true;
    }
    return false;
  };
  // (links over their rate, total excess), kept up to date as demands move.
  std::pair<int, double> cur{0, 0.0};
  for (uint32_t p = 0; p < load.size(); ++p) {
    if (load[p] <= 0) continue;
    const double e = excess_of(p, load[p]);
    cur.first += e > 0;
    cur.second += e;
  }
  auto adjust = [&](uint32_t p, double delta) {
    const double before = excess_of(p, load[p]);
    load[p] += delta;
    const double after = excess_of(p, load[p]);
    cur.first += (after > 0) - (before > 0);
    cur.second += after - before;
  };
  std::vector<size_t> best_choice = choice;
  std::pair<int, double> best_score = cur;
  // Breakout weights (Morris, AAAI 1993): a link that stays over-full after a move weighs more,
  // which lifts the search out of local minima where every single move only trades conflicts.
  std::vector<double> weight(load.size(), 1.0);
  Rng rng(0x7E, batch.size());
  const size_t max_steps = std::min<size_t>(2000 * batch.size(), kMaxRepairSteps);
  for (size_t step = 0; step < max_steps && best_score.first > 0; ++step) {
    size_t i = batch.size();
    for (size_t tries = 0; tries < 4 * batch.size() + 16; ++tries) {
      const size_t c = rng.next_u64() % batch.size();
      if (cands[c].size() > 1 && conflicted(c)) {
        i = c;
        break;
      }
    }
    if (i == batch.size()) break;  // no movable flow crosses an over-full link
    const double d = flows_[batch[i]].demand_bps;
    for (uint32_t p : cands[i][choice[i]]) adjust(p, -d);
    size_t pick = 0;
    if (rng.next_u64() % 16 == 0) {
      pick = rng.next_u64() % cands[i].size();
    } else {
      double best_add = 1e300;
      uint64_t ties = 0;
      for (size_t c = 0; c < cands[i].size(); ++c) {
        double add = 0;
        for (uint32_t p : cands[i][c]) {
          add += weight[p] * (excess_of(p, load[p] + d) - excess_of(p, load[p]));
        }
        if (add < best_add - 1e-12) {
          best_add = add;
          pick = c;
          ties = 1;
        } else if (add <= best_add + 1e-12 && rng.next_u64() % ++ties == 0) {
          pick = c;  // reservoir choice among equals
        }
      }
    }
    choice[i] = pick;
    for (uint32_t p : cands[i][choice[i]]) {
      adjust(p, d);
      if (excess_of(p, load[p]) > 0) weight[p] += 1.0;
    }
    if (cur.first < best_score.first ||
        (cur.first == best_score.first && cur.second < best_score.second - 1e-9)) {
      best_score = cur;
      best_choice = choice;
    }
  }
  std::vector<std::vector<uint32_t>> out(batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!cands[i].empty()) out[i] = cands[i][best_choice[i]];
  }
  return out;
}

void TeController::install(uint32_t flow, const std::vector<uint32_t>& path) {
  Flow& f = flows_[flow];
  for (uint32_t port : path) {
    const uint32_t sw_index = static_cast<uint32_t>(net_.port(port).switch_index);
    net::Switch& sw = net_.switch_at(sw_index);
    const uint16_t g = sw.group_of_key[net_.leaf_slot_of_nic(f.dst)];
    if (sw.group_offsets[g + 1] - sw.group_offsets[g] < 2) continue;  // no choice: no rule
    net::te_rule_insert(sw, f.src, f.dst, port);
    ++rules_installed_;
  }
  f.path = path;
  f.installed_ps = sched_.now();
}

void TeController::on_install() {
  if (pending_head_ >= pending_.size()) return;
  Batch b = std::move(pending_[pending_head_++]);
  if (pending_head_ == pending_.size()) {
    pending_.clear();
    pending_head_ = 0;
  }
  if (!b.new_paths.empty()) {  // a reoptimization decided earlier: install as decided
    for (size_t i = 0; i < b.flows.size(); ++i) {
      flows_[b.flows[i]].move_pending = false;
      if (flows_[b.flows[i]].active) install(b.flows[i], b.new_paths[i]);
    }
    return;
  }
  // The demands of the active flows already placed are the load the batch is placed over.
  std::vector<double> base(net_.num_ports(), 0.0);
  for (const Flow& f : flows_) {
    if (!f.active || f.path.empty()) continue;
    for (uint32_t p : f.path) base[p] += f.demand_bps;
  }
  std::vector<uint32_t> batch;
  for (uint32_t i : b.flows) {
    if (flows_[i].active) batch.push_back(i);
  }
  const std::vector<std::vector<uint32_t>> chosen = place(batch, std::move(base));
  for (size_t i = 0; i < batch.size(); ++i) install(batch[i], chosen[i]);
}

void TeController::on_tick() {
  const int64_t now = sched_.now();
  const double seconds = static_cast<double>(now - last_tick_ps_) * 1e-12;
  sched_.at(now + cfg_.reoptimize_interval_ps, kTeTick, 0);
  if (seconds <= 0) return;
  ++reoptimizations_;
  // Measured link loads (bps) and the placed flows' measured rates over the interval.
  std::vector<double> base(net_.num_ports(), 0.0);
  for (uint32_t p = 0; p < net_.num_ports(); ++p) {
    const int64_t tx = net_.port_tx_bytes(p);
    base[p] = static_cast<double>(tx - last_tx_bytes_[p]) * 8.0 / seconds;
    last_tx_bytes_[p] = tx;
  }
  const int64_t interval_start = last_tick_ps_;
  last_tick_ps_ = now;
  // A flow is re-placed only if it ran on one path for the whole interval and has no move
  // pending: otherwise its measured rate belongs to two paths and the background under it is
  // unknown (it then counts as background where it was measured).
  std::vector<uint32_t> batch;
  for (uint32_t i = 0; i < flows_.size(); ++i) {
    Flow& f = flows_[i];
    const int64_t delivered = delivered_bytes_(f.msg);
    const double rate = static_cast<double>(delivered - f.last_delivered) * 8.0 / seconds;
    f.last_delivered = delivered;
    if (!f.active || f.path.empty() || f.move_pending || f.installed_ps > interval_start) continue;
    for (uint32_t p : f.path) base[p] = std::max(0.0, base[p] - rate);
    batch.push_back(i);
  }
  if (batch.empty()) return;
  std::vector<std::vector<uint32_t>> chosen = place(batch, base);
  // With every batch flow on its chosen path: move a flow only if that lowers the most-loaded
  // link on its path by more than kMoveHysteresis of the line rate. Each move costs the flow a
  // burst of reordering (go-back-N on RoCE), so small gains are not worth it, and a controller
  // that chases measurement noise oscillates.
  std::vector<double> load = base;
  for (size_t i = 0; i < batch.size(); ++i) {
    for (uint32_t p : chosen[i]) load[p] += flows_[batch[i]].demand_bps;
  }
  Batch b{now + cfg_.install_delay_ps, {}, {}};
  for (size_t i = 0; i < batch.size(); ++i) {
    Flow& f = flows_[batch[i]];
    if (chosen[i] == f.path) continue;
    auto worst = [&](const std::vector<uint32_t>& path, bool on_it) {
      double u = 0;
      for (uint32_t p : path) {
        const bool counted = std::find(chosen[i].begin(), chosen[i].end(), p) != chosen[i].end();
        const double l = load[p] - (counted ? f.demand_bps : 0) + (on_it ? f.demand_bps : 0);
        u = std::max(u, l / static_cast<double>(net_.port(p).rate_bps));
      }
      return u;
    };
    if (worst(chosen[i], true) >= worst(f.path, true) - kMoveHysteresis) continue;
    f.move_pending = true;
    b.flows.push_back(batch[i]);
    b.new_paths.push_back(std::move(chosen[i]));
    ++flows_moved_;
  }
  if (b.flows.empty()) return;
  pending_.push_back(std::move(b));
  sched_.at(now + cfg_.install_delay_ps, kTeInstall, 0);
}

}  // namespace fabricsim::routing
