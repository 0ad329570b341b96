// What the scenario says about prices and power (cost.*): the switch model to price, and any
// price or wattage the user overrides. Unset = the model's or the part's sourced value
// (resolve/cost/cost_table.cpp, ../shared/reference/cost-power.md).
#pragma once

#include <optional>

namespace fabricsim::scenario {

// kAuto: QM9700 for InfiniBand, a Tomahawk 5 white box for RoCE and UET (cost_table.cpp says why).
enum class SwitchModel { kAuto, kQm9700, kSn5600, kTomahawk5 };
// How switch-to-switch cables are priced: kOptical (every one a pair of transceivers, as large
// AI fabrics are cabled: cost-power.md "Switch<->switch tiers: optical") or kByLength (a DAC when
// the cable is within cost.dac_reach, like host links).
enum class SwitchLinks { kOptical, kByLength };

struct CostSpec {
  SwitchModel switch_model = SwitchModel::kAuto;
  SwitchLinks switch_links = SwitchLinks::kOptical;
  double dac_reach_m = 3.0;  // passive DAC reach at 400G (NVIDIA MCP4Y10 / MCP7Y00: <= 3 m)
  std::optional<double> switch_price_usd;
  std::optional<double> switch_power_w;
  std::optional<double> nic_price_usd;
  std::optional<double> nic_power_w;
  std::optional<double> dac_price_usd;
  std::optional<double> dac_power_w;
  std::optional<double> optic_price_usd;  // per transceiver (one per optical cable end)
  std::optional<double> optic_power_w;
};

}  // namespace fabricsim::scenario
