// One Subnet Manager per InfiniBand subnet (routing/plane_subnets.h).
#include "routing/plane_subnets.h"

#include <algorithm>
#include <string>
#include <utility>

#include "routing/lid_install.h"

namespace fabricsim::routing {

PlaneSubnets::PlaneSubnets(SmEngine engine, bool adaptive, SmEngine fallback,
                           std::vector<SweepScope> planes)
    : adaptive_(adaptive) {
  if (planes.empty()) planes.emplace_back();
  for (const SweepScope& scope : planes) sms_.emplace_back(engine, adaptive, fallback, scope);
  per_plane_.resize(sms_.size());
  sweeps_.assign(sms_.size(), 0);
}

void PlaneSubnets::sweep_and_install(net::Network& net, uint32_t plane_mask) {
  for (uint32_t p = 0; p < planes(); ++p) {
    if (p < 32 && !(plane_mask & (1u << p))) continue;
    LidRoutes& r = per_plane_[p];
    r = sms_[p].sweep(net);
    ++sweeps_[p];
    install_lid_routes(net, r, adaptive_, sms_[p].scope());
    // The switches now hold the tables; keep only what reports need (LIDs, route counts).
    std::vector<std::vector<uint32_t>>().swap(r.lft);
    std::vector<std::vector<uint32_t>>().swap(r.ar_offsets);
    std::vector<std::vector<uint32_t>>().swap(r.ar_ports);
  }
  merge(net);
}

void PlaneSubnets::merge(const net::Network& net) {
  if (planes() == 1) {  // a single fabric: its SM's routes as they are
    merged_ = per_plane_[0];
    return;
  }
  merged_ = LidRoutes{};
  merged_.nic_lid = per_plane_[0].nic_lid;
  merged_.engine_used = per_plane_[0].engine_used;
  merged_.switch_lid.assign(net.num_switches(), 0);
  merged_.port_routes.assign(net.num_ports(), 0);
  bool ranked = false;
  for (uint32_t p = 0; p < planes(); ++p) {
    const LidRoutes& r = per_plane_[p];
    merged_.num_lids = std::max(merged_.num_lids, r.num_lids);
    merged_.unreachable_pairs += r.unreachable_pairs;
    // Each plane's SM counts and numbers only its own switches and their ports.
    for (size_t i = 0; i < r.port_routes.size(); ++i) merged_.port_routes[i] += r.port_routes[i];
    const SwitchRange range = scope_range(sms_[p].scope(), net.num_switches());
    for (uint32_t s = range.first; s < range.end; ++s) merged_.switch_lid[s] = r.switch_lid[s];
    if (!r.rank.empty()) {
      if (!ranked) merged_.rank.assign(net.num_switches(), 0xFFFFFFFFu);
      ranked = true;
      for (uint32_t s = range.first; s < range.end; ++s) merged_.rank[s] = r.rank[s];
    }
    const std::string plane = "plane " + std::to_string(p) + ": ";
    if (!r.fallback_reason.empty() && merged_.fallback_reason.empty()) {
      merged_.fallback_reason = plane + r.fallback_reason;
      merged_.engine_used = r.engine_used;
    }
    if (!r.note.empty()) merged_.note += (merged_.note.empty() ? "" : "; ") + plane + r.note;
  }
}

void PlaneSubnets::stash_tables(net::Network& net, uint32_t plane_mask) {
  stashed_.clear();
  if (planes() == 1) return;
  for (uint32_t p = 0; p < planes(); ++p) {
    if (p < 32 && (plane_mask & (1u << p))) continue;
    const SwitchRange range = scope_range(sms_[p].scope(), net.num_switches());
    for (uint32_t s = range.first; s < range.end; ++s) {
      net::Switch& sw = net.switch_at(s);
      SwitchTables t;
      t.sw = s;
      t.route_by_lid = sw.route_by_lid;
      t.lb = sw.lb;
      t.group_of_key = std::move(sw.group_of_key);
      t.group_offsets = std::move(sw.group_offsets);
      t.group_ports = std::move(sw.group_ports);
      stashed_.push_back(std::move(t));
    }
  }
}

void PlaneSubnets::restore_tables(net::Network& net) {
  for (SwitchTables& t : stashed_) {
    net::Switch& sw = net.switch_at(t.sw);
    sw.route_by_lid = t.route_by_lid;
    sw.lb = t.lb;
    sw.group_of_key = std::move(t.group_of_key);
    sw.group_offsets = std::move(t.group_offsets);
    sw.group_ports = std::move(t.group_ports);
  }
  stashed_.clear();
}

uint32_t PlaneSubnets::plane_of_switch(uint32_t sw) const {
  for (uint32_t p = 0; p < planes(); ++p) {
    const SweepScope& s = sms_[p].scope();
    if (sw >= s.first_switch && sw - s.first_switch < s.num_switches) return p;
  }
  return planes();
}

std::vector<uint16_t> PlaneSubnets::nic_lids() const {
  std::vector<uint16_t> out;
  for (const LidRoutes& r : per_plane_) out.insert(out.end(), r.nic_lid.begin(), r.nic_lid.end());
  return out;
}

}  // namespace fabricsim::routing
