#include "resolve/cost/bom.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/error.h"
#include "core/scheduler.h"
#include "core/units.h"
#include "resolve/cost/cost_table.h"
#include "resolve/fabric.h"

namespace fabricsim::scenario {
namespace {

PricedFabric priced_fabric(Technology t) {
  if (t == Technology::kInfiniband) return PricedFabric::kInfiniband;
  if (t == Technology::kUet) return PricedFabric::kUet;
  return PricedFabric::kEthernet;  // RoCE, and any Ethernet transport on the same switches
}

// A row from a priced part, with the scenario's overrides (their confidence reads "set").
BomRow priced(std::string item, const PricedPart& part, int64_t count,
              const std::optional<double>& price, const std::optional<double>& power) {
  BomRow r;
  r.item = std::move(item);
  r.part = part.name;
  r.count = count;
  r.unit_price_usd = price.value_or(part.price_usd);
  r.unit_power_w = power.value_or(part.power_w);
  r.price_confidence = price ? "set" : part.price_confidence;
  r.power_confidence = power ? "set" : part.power_confidence;
  r.source = part.source;
  return r;
}

std::string tier_pair(int a, int b) {
  return "tier " + std::to_string(std::min(a, b)) + "-" + std::to_string(std::max(a, b)) + " links";
}

}  // namespace

double Bom::total_price_usd() const {
  double sum = 0;
  for (const BomRow& r : rows) sum += r.price_usd();
  return sum;
}

double Bom::total_power_w() const {
  double sum = 0;
  for (const BomRow& r : rows) sum += r.power_w();
  return sum;
}

Bom bill_of_materials(const Scenario& resolved, const net::Network& net,
                      const topo::BuiltTopology& topo) {
  const CostSpec& cost = resolved.cost;
  const PricedFabric fabric = priced_fabric(resolved.technology);
  const SwitchModel model =
      cost.switch_model == SwitchModel::kAuto ? default_switch_model(fabric) : cost.switch_model;
  const SwitchModelInfo& sw = switch_model_info(model);
  Bom bom;
  bom.topology = topo.description;
  bom.switch_model = sw.key;
  bom.nics = net.num_nics();
  if (resolved.node.gpus_per_node > 0) {
    bom.gpus = static_cast<int64_t>(topo.hosts) * resolved.node.gpus_per_node;
    bom.per_gpu = true;
  } else {
    bom.gpus = bom.nics;
  }

  // A multi-plane NIC's plane selector is modelled as a switch but is part of the NIC
  // (topo/multi_plane.h): not priced, its cable to the NIC (0 m, inside) not a cable, and its
  // plane ports' cables are the NIC's host links.
  auto selector = [&](uint32_t node) {
    const net::Node& n = net.node(node);
    if (n.kind != net::NodeKind::kSwitch) return false;
    const uint8_t lb = net.switch_at(n.index).lb;
    return lb == net::kLbPlane || lb == net::kLbHcaPorts;
  };
  auto inside_nic = [&](uint32_t cable) {
    const bool a = selector(net.cable_node_a(cable)), b = selector(net.cable_node_b(cable));
    const auto nic = [&](uint32_t node) { return net.node(node).kind != net::NodeKind::kSwitch; };
    return (a && nic(net.cable_node_b(cable))) || (b && nic(net.cable_node_a(cable)));
  };
  int64_t selector_cables = 0;
  for (uint32_t i = 0; i < net.num_cables(); ++i) selector_cables += inside_nic(i) ? 1 : 0;
  bom.cables = net.num_cables() - selector_cables;

  // Switches, per tier.
  int64_t max_rate = 0;
  for (uint32_t i = 0; i < net.num_cables(); ++i) {
    if (!inside_nic(i)) max_rate = std::max(max_rate, net.cable_link(i).rate_bps);
  }
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    const net::Switch& x = net.switch_at(s);
    if (x.lb == net::kLbPlane || x.lb == net::kLbHcaPorts) continue;
    const auto tier = static_cast<size_t>(std::max(1, x.tier));
    if (bom.switches_per_tier.size() < tier) bom.switches_per_tier.resize(tier, 0);
    ++bom.switches_per_tier[tier - 1];
    bom.switch_ports_needed = std::max(bom.switch_ports_needed, static_cast<int>(x.num_ports));
  }
  bom.switch_ports_available = sw.ports_at(max_rate);
  // A tier whose switches use fewer ports than the model has is priced whole: say so. The
  // fat-tree and rail builders already build the fewest top-tier switches the cabling allows
  // (topo/fat_tree.cpp), so this remains for a topology.radix below the model's port count, a
  // leaf count whose uplinks do not divide evenly, and the cores of a one-pod 3-tier tree.
  std::vector<int> tier_ports(bom.switches_per_tier.size(), 0);
  for (uint32_t s = 0; s < net.num_switches(); ++s) {
    const net::Switch& x = net.switch_at(s);
    if (x.lb == net::kLbPlane || x.lb == net::kLbHcaPorts) continue;
    int& most = tier_ports[static_cast<size_t>(std::max(1, x.tier)) - 1];
    most = std::max(most, static_cast<int>(x.num_ports));
  }
  for (size_t t = 0; t < tier_ports.size(); ++t) {
    if (tier_ports[t] > 0 && tier_ports[t] < bom.switch_ports_available) {
      bom.notes.push_back("tier-" + std::to_string(t + 1) + " switches use at most " +
                          std::to_string(tier_ports[t]) + " of a " + sw.key + "'s " +
                          std::to_string(bom.switch_ports_available) + " ports at " +
                          format_rate_exact(max_rate) + "; each is priced whole");
    }
  }
  for (size_t t = 0; t < bom.switches_per_tier.size(); ++t) {
    if (bom.switches_per_tier[t] == 0) continue;
    bom.rows.push_back(priced("tier-" + std::to_string(t + 1) + " switches", sw.part,
                              bom.switches_per_tier[t], cost.switch_price_usd, cost.switch_power_w));
  }
  if (bom.switch_ports_needed > bom.switch_ports_available) {
    bom.notes.push_back("the topology's switches use up to " +
                        std::to_string(bom.switch_ports_needed) + " ports at " +
                        format_rate_exact(max_rate) + "; a " + sw.key + " has " +
                        std::to_string(bom.switch_ports_available) +
                        " (choose cost.switch_model or a smaller topology.radix)");
  }
  bom.rows.push_back(
      priced("NICs", nic_part(fabric), bom.nics, cost.nic_price_usd, cost.nic_power_w));

  // Cables: by the tiers they join (0 = a NIC), the medium and the rate. std::map keeps the
  // rows in tier order, deterministic.
  struct CableKind {
    int tier_a, tier_b;
    int medium;  // -1 = DAC, else OpticClass
    int64_t rate_bps;
    bool operator<(const CableKind& o) const {
      return std::tie(tier_a, tier_b, medium, rate_bps) <
             std::tie(o.tier_a, o.tier_b, o.medium, o.rate_bps);
    }
  };
  std::map<CableKind, int64_t> cables;
  for (uint32_t i = 0; i < net.num_cables(); ++i) {
    if (inside_nic(i)) continue;
    auto tier_of = [&](uint32_t node) {
      const net::Node& n = net.node(node);
      if (n.kind != net::NodeKind::kSwitch || selector(node)) return 0;  // the NIC's end
      return std::max(1, net.switch_at(n.index).tier);
    };
    int a = tier_of(net.cable_node_a(i));
    int b = tier_of(net.cable_node_b(i));
    if (a > b) std::swap(a, b);
    const net::LinkConfig& link = net.cable_link(i);
    const bool host = a == 0;
    int medium = -1;
    if ((!host && cost.switch_links == SwitchLinks::kOptical) || link.cable_m > cost.dac_reach_m) {
      OpticClass c{};
      if (!optic_class_for(link.cable_m, c)) {
        throw InputError("fabric.link.cable",
                         "a " + format_length_exact(link.cable_m) +
                             " cable is beyond every priced optic's reach (2 km, FR4)");
      }
      medium = static_cast<int>(c);
    }
    ++cables[{a, b, medium, link.rate_bps}];
  }
  for (const auto& [kind, count] : cables) {
    const std::string what = kind.tier_a == 0 ? std::string("host links") : tier_pair(kind.tier_a, kind.tier_b);
    if (kind.medium < 0) {
      bom.rows.push_back(priced(what + ": DAC", dac_part(), count, cost.dac_price_usd, cost.dac_power_w));
    } else {
      const auto c = static_cast<OpticClass>(kind.medium);
      bom.rows.push_back(priced(what + ": " + std::string(optic_class_name(c)) + ", 2 per cable",
                                optic_part(c, kind.rate_bps), 2 * count, cost.optic_price_usd,
                                cost.optic_power_w));
    }
  }
  return bom;
}

Bom bill_of_materials(const Scenario& sc) {
  Scenario resolved = sc;
  resolve_fabric(resolved);
  Scheduler sched;
  net::Network net(sched, resolved.seed);
  if (resolved.technology == Technology::kInfiniband) net.set_ib(resolved.ib.link);
  const topo::BuiltTopology topo = topo::build(
      resolved.topology,
      topo::FabricParams{resolved.link, resolved.switch_config, resolved.nic}, net);
  return bill_of_materials(resolved, net, topo);
}

}  // namespace fabricsim::scenario
