// A bill of materials for the fabric a scenario builds (issue 13 item 6): switches per tier,
// NICs, and cables by medium and reach class, each priced and powered from the sourced table
// (resolve/cost/cost_table.h) or the scenario's cost.* overrides, with its confidence beside it.
//
// Counting rules (cost-power.md section 3): one NIC per NIC of the topology; every optical
// cable needs a transceiver at each end at the link's rate; a DAC is one cable and no
// transceivers. Host links are a DAC when their cable is within cost.dac_reach, else optical;
// switch-to-switch links are optical (cost.switch_links: by_length prices them like host
// links). Switch power is typical without optics; transceivers are counted on their own rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/network.h"
#include "spec/scenario.h"
#include "topo/topology.h"

namespace fabricsim::scenario {

struct BomRow {
  std::string item;  // what it is in this fabric: "tier-1 switches", "tier 1-2 links: DAC"
  std::string part;  // the priced part
  int64_t count = 0;
  double unit_price_usd = 0;
  double unit_power_w = 0;
  std::string price_confidence;  // H / M / L / G (cost-power.md), or "set" when cost.* gave it
  std::string power_confidence;
  std::string source;
  double price_usd() const { return static_cast<double>(count) * unit_price_usd; }
  double power_w() const { return static_cast<double>(count) * unit_power_w; }
};

struct Bom {
  std::string topology;         // the built topology's description
  std::string switch_model;     // cost.switch_model in effect
  int switch_ports_needed = 0;  // the most ports any switch of the topology uses
  int switch_ports_available = 0;  // the model's ports at the fabric's link rate
  std::vector<int64_t> switches_per_tier;  // [tier - 1]
  int64_t nics = 0;
  int64_t cables = 0;
  int64_t gpus = 0;  // node.gpus_per_node x hosts, or the NICs when the hosts have no GPUs
  bool per_gpu = false;  // gpus counts GPUs (true) or NICs (false)
  std::vector<BomRow> rows;
  std::vector<std::string> notes;  // what the buyer must know (e.g. the model lacks ports)
  double total_price_usd() const;
  double total_power_w() const;
};

// The BOM of a built network. `resolved` is the scenario after resolve_fabric (its technology
// and link). Throws InputError("fabric.link.cable", ...) for a cable no optic reaches (> 2 km).
Bom bill_of_materials(const Scenario& resolved, const net::Network& net,
                      const topo::BuiltTopology& topo);
// Builds the scenario's topology (nothing else) and prices it.
Bom bill_of_materials(const Scenario& sc);

}  // namespace fabricsim::scenario
