#include "resolve/cost/cost_table.h"

#include <algorithm>
#include <array>

namespace fabricsim::scenario {
namespace {

// cost-power.md section 1. QM9700: 64 x 400G (or 128 x 200G NDR200) on 32 twin-port OSFP cages
// (NVIDIA QM97XX user manual, "Interfaces", H); 747 W typical with passive cables (NVIDIA
// datasheet quoted by Canopy Wave, M); ~36k FS.com-branded, ~50k NVIDIA-branded (Aug 2024 price
// sheet behind "H100 Freakonomics", L/M): the lower, as the sheet's suggested default.
constexpr SwitchModelInfo kQm9700{
    "qm9700",
    {"NVIDIA Quantum-2 QM9700 (NDR InfiniBand)", 36'000, "L/M", 747, "M",
     "cost-power.md s1: QM97XX manual (ports); NVIDIA datasheet via Canopy Wave (747 W); Aug-2024 "
     "price sheet (36k FS-branded, 50k NVIDIA)"},
    25'600'000'000'000,
    128};
// SN5600 (Spectrum-4): 64 x 800G / 128 x 400G / 256 x 200G (docs.nvidia.com sn5000, H); 940 W
// typical (datasheet via Canopy Wave, M); price 70k is the sheet's suggested default (G).
constexpr SwitchModelInfo kSn5600{
    "sn5600",
    {"NVIDIA Spectrum-4 SN5600 (Ethernet)", 70'000, "G", 940, "M",
     "cost-power.md s1: NVIDIA sn5000 manual (ports); datasheet via Canopy Wave (940 W); price: "
     "the sheet's suggested default (guess)"},
    51'200'000'000'000,
    256};
// Tomahawk 5 white box (Edgecore AIS800-64D, UfiSpace S9321-64E): 64 x 800G / 128 x 400G /
// 256 x 200G, 913 W typical without optics (ipinfusion.com, M); 45k suggested default (G).
constexpr SwitchModelInfo kTomahawk5{
    "tomahawk5",
    {"Broadcom Tomahawk 5 white box (Ethernet)", 45'000, "G", 913, "M",
     "cost-power.md s1: ipinfusion.com Tomahawk 5 boxes (ports, 913 W); price: the sheet's "
     "suggested default (guess)"},
    51'200'000'000'000,
    256};

// cost-power.md section 2. ConnectX-7 400G: 24.9 W typical with passive cables, excluding the
// module (CX7 user manual s9, H/M); price 1.5-2.5k scaled from ConnectX-6's EUR 1,450 (G).
constexpr PricedPart kConnectX7{"NVIDIA ConnectX-7 400G NIC", 2'000, "G", 24.9, "H/M",
                                "cost-power.md s2: CX7 user manual s9 (24.9 W); price scaled "
                                "from ConnectX-6 (guess)"};
// UET: Broadcom Thor Ultra 800G (UEC 1.0), ~50 W (Network World, Oct 2025, L); no priced UEC
// product: the sheet models it as the RoCE NIC plus a 0-20% premium; we take 10% (G).
constexpr PricedPart kUetNic{"UEC NIC (Broadcom Thor Ultra class)", 2'200, "G", 50, "L",
                             "cost-power.md s2 and its UEC note: ~50 W (Network World); price "
                             "= RoCE NIC + 10% (guess, sheet: 0-20%)"};
// Passive DAC: <= 0.1 W (NVIDIA MCP4Y10 / MCP7Y00 specs, H); 100-300 USD for 1-3 m (G).
constexpr PricedPart kDac{"passive DAC cable", 200, "G", 0.1, "H",
                          "cost-power.md s3: NVIDIA MCP4Y10/MCP7Y00 (<= 0.1 W); price 100-300 "
                          "(guess)"};

struct OpticRow {
  OpticClass cls;
  double reach_m;
  PricedPart at_400g;
  PricedPart at_800g;
};
// cost-power.md section 3. Reach: SR multimode 50 m (MMA4Z00-NS), DR single-mode 500 m
// (MMS4X00-NS), FR4 2 km (2xFR4), all H. 400G single-port: SR4 8 W typ (H), DR4 9 W (H), FR4 8.5 W
// (half the 17 W twin-port 2xFR4, H-derived); 400G price 600-800 (QSFP-DD, L): SR 700; DR and FR
// are not in the sheet for 400G: 800 and 850, half the 800G DR8/FR4 mid prices (L-derived). 800G:
// twin-port SR8 15 W, DR8 17 W, 2xFR4 17 W (H); DR8 1,100-1,400 and FR4 1,500-1,900 (luxoptx, L);
// SR8 is unpriced in the sheet: 1,000 (G).
constexpr std::array<OpticRow, 3> kOptics{{
    {OpticClass::kSr, 50,
     {"400G SR4 multimode transceiver", 700, "L", 8, "H",
      "cost-power.md s3: MMA4Z00-NS400 (8 W typ, 50 m); 400G QSFP-DD 600-800 (luxoptx)"},
     {"800G SR8 multimode transceiver", 1'000, "G", 15, "H",
      "cost-power.md s3: MMA4Z00-NS (15 W, 50 m); price a guess"}},
    {OpticClass::kDr, 500,
     {"400G DR4 single-mode transceiver", 800, "L", 9, "H",
      "cost-power.md s3: MMS4X00-NS400 (9 W, 500 m); price half the 800G DR8 mid price"},
     {"800G DR8 single-mode transceiver", 1'250, "L", 17, "H",
      "cost-power.md s3: MMS4X00-NS (17 W, 500 m); DR8 1,100-1,400 (luxoptx)"}},
    {OpticClass::kFr, 2'000,
     {"400G FR4 single-mode transceiver", 850, "L", 8.5, "H",
      "cost-power.md s3: half of the twin-port 2xFR4 (17 W, 2 km); half the 800G FR4 mid price"},
     {"800G 2xFR4 single-mode transceiver", 1'700, "L", 17, "H",
      "cost-power.md s3: MMS4X50-NM (17 W, 2 km); FR4 1,500-1,900 (luxoptx)"}},
}};

const OpticRow& optic_row(OpticClass c) { return kOptics[static_cast<size_t>(c)]; }

}  // namespace

int SwitchModelInfo::ports_at(int64_t rate_bps) const {
  if (rate_bps <= 0) return max_ports;
  return static_cast<int>(std::min<int64_t>(max_ports, capacity_bps / rate_bps));
}

const SwitchModelInfo& switch_model_info(SwitchModel model) {
  switch (model) {
    case SwitchModel::kQm9700:
      return kQm9700;
    case SwitchModel::kSn5600:
      return kSn5600;
    default:
      return kTomahawk5;
  }
}

// InfiniBand needs an InfiniBand switch; RoCE and UET are priced on merchant Ethernet silicon,
// as the sheet models UEC ("TH5/TH6-class switch"; "price = RoCE merchant + 0-20% NIC
// premium"), so that the RoCE-against-UET difference is the NIC's. cost.switch_model: sn5600
// prices NVIDIA's Spectrum-X instead.
SwitchModel default_switch_model(PricedFabric fabric) {
  return fabric == PricedFabric::kInfiniband ? SwitchModel::kQm9700 : SwitchModel::kTomahawk5;
}

const PricedPart& nic_part(PricedFabric fabric) {
  return fabric == PricedFabric::kUet ? kUetNic : kConnectX7;
}

const PricedPart& dac_part() { return kDac; }

double optic_reach_m(OpticClass c) { return optic_row(c).reach_m; }

std::string_view optic_class_name(OpticClass c) {
  switch (c) {
    case OpticClass::kSr:
      return "SR (multimode, <= 50 m)";
    case OpticClass::kDr:
      return "DR (single-mode, <= 500 m)";
    default:
      return "FR (single-mode, <= 2 km)";
  }
}

bool optic_class_for(double length_m, OpticClass& out) {
  for (const OpticRow& r : kOptics) {
    if (length_m <= r.reach_m) {
      out = r.cls;
      return true;
    }
  }
  return false;
}

PricedPart optic_part(OpticClass c, int64_t rate_bps) {
  const OpticRow& r = optic_row(c);
  if (rate_bps == 400'000'000'000) return r.at_400g;
  if (rate_bps == 800'000'000'000) return r.at_800g;
  PricedPart p = r.at_400g;
  const double scale = static_cast<double>(rate_bps) / 400e9;
  p.name = "transceiver (scaled from 400G)";
  p.price_usd *= scale;
  p.power_w *= scale;
  p.price_confidence = "G";
  p.power_confidence = "G";
  p.source = "the 400G row scaled linearly by rate (guess)";
  return p;
}

}  // namespace fabricsim::scenario
