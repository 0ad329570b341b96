#include "resolve/infiniband.h"

#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/nic_profile.h"

namespace fabricsim::scenario {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

int parse_small(const std::string& text, int max, const char* key, const std::string& what) {
  size_t used = 0;
  int v = -1;
  try {
    v = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || used == 0 || v < 0 || v > max) {
    throw InputError(key, "'" + text + "' is not " + what + " (0-" + std::to_string(max) + ")");
  }
  return v;
}

// "VL:weight,VL:weight" (OpenSM qos_vlarb_high / qos_vlarb_low syntax).
int parse_vlarb(const std::string& text, int data_vls, const char* key, net::VlArbEntry* out) {
  const std::vector<std::string> entries = split(text, ',');
  if (entries.size() > 16) throw InputError(key, "at most 16 VL:weight entries are modelled");
  int n = 0;
  for (const std::string& e : entries) {
    const std::vector<std::string> pair = split(e, ':');
    if (pair.size() != 2) throw InputError(key, "expected VL:weight pairs like 0:4,1:8, got '" + e + "'");
    const int vl = parse_small(pair[0], 14, key, "a data VL");
    if (vl >= data_vls) {
      throw InputError(key, "VL " + std::to_string(vl) + " is not operational (fabric.ib.data_vls = " +
                                std::to_string(data_vls) + ")");
    }
    out[n++] = {static_cast<uint8_t>(vl), static_cast<uint8_t>(parse_small(pair[1], 255, key, "a weight"))};
  }
  return n;
}

}  // namespace

IbGenerationInfo ib_generation_info(IbGeneration g) {
  switch (g) {
    case IbGeneration::kEdr:
      return {"EDR", "25.78125 Gb/s NRZ, 64b/66b", 100'000'000'000};
    case IbGeneration::kHdr:
      return {"HDR", "53.125 Gb/s PAM4, 256b/257b + RS(544,514)", 200'000'000'000};
    case IbGeneration::kNdr:
      return {"NDR", "106.25 Gb/s PAM4, 256b/257b + RS(544,514)", 400'000'000'000};
    case IbGeneration::kXdr:
      return {"XDR", "212.5 Gb/s PAM4, 256b/257b + RS(544,514)", 800'000'000'000};
    case IbGeneration::kNone:
      break;
  }
  return {"", "", 0};
}

net::IbLinkConfig resolve_ib_link(const IbSpec& ib) {
  net::IbLinkConfig link = ib.link;
  link.enabled = true;
  const int vls = link.data_vls;
  if (ib.sl2vl.empty()) {
    // OpenSM default 0,1,...,14,7 with VLs beyond the operational ones folded modulo data_vls.
    for (int sl = 0; sl < 16; ++sl) link.sl_to_vl[sl] = static_cast<uint8_t>((sl == 15 ? 7 : sl) % vls);
  } else {
    const std::vector<std::string> parts = split(ib.sl2vl, ',');
    if (parts.size() != 16) {
      throw InputError("fabric.ib.sl2vl", "expected 16 comma-separated VLs (one per SL), got " +
                                              std::to_string(parts.size()));
    }
    for (int sl = 0; sl < 16; ++sl) {
      const int vl = parse_small(parts[sl], 14, "fabric.ib.sl2vl", "a data VL");
      if (vl >= vls) {
        throw InputError("fabric.ib.sl2vl", "SL " + std::to_string(sl) + " maps to VL " +
                                                std::to_string(vl) + ", not operational (fabric.ib.data_vls = " +
                                                std::to_string(vls) + ")");
      }
      link.sl_to_vl[sl] = static_cast<uint8_t>(vl);
    }
  }
  if (ib.vlarb_high.empty()) {
    link.vlarb_high[0] = {0, 4};  // OpenSM default vlarb_high 0:4
    link.vlarb_high_count = 1;
  } else {
    link.vlarb_high_count = parse_vlarb(ib.vlarb_high, vls, "fabric.ib.vlarb_high", link.vlarb_high);
  }
  if (ib.vlarb_low.empty()) {
    link.vlarb_low_count = 0;  // OpenSM default vlarb_low 0:0,1:4,...: weight 4 for VLs 1..
    for (int vl = 1; vl < vls; ++vl) link.vlarb_low[link.vlarb_low_count++] = {static_cast<uint8_t>(vl), 4};
  } else {
    link.vlarb_low_count = parse_vlarb(ib.vlarb_low, vls, "fabric.ib.vlarb_low", link.vlarb_low);
  }
  // Every VL some SL uses must be able to send: weight in one of the tables.
  for (int sl = 0; sl < 16; ++sl) {
    const int vl = link.sl_to_vl[sl];
    bool weighted = false;
    for (int i = 0; i < link.vlarb_high_count; ++i) weighted |= link.vlarb_high[i].vl == vl && link.vlarb_high[i].weight > 0;
    for (int i = 0; i < link.vlarb_low_count; ++i) weighted |= link.vlarb_low[i].vl == vl && link.vlarb_low[i].weight > 0;
    if (!weighted) {
      throw InputError("fabric.ib.vlarb_low", "VL " + std::to_string(vl) + " (SL " + std::to_string(sl) +
                                                  ") has no weight in vlarb_high or vlarb_low: it could never send");
    }
  }
  return link;
}

void apply_infiniband(Scenario& sc) {
  if (sc.technology != Technology::kInfiniband) return;
  const char* why = nullptr;
  const char* key = nullptr;
  if (sc.switch_config.pfc.enabled) {
    key = "fabric.pfc.enabled";
    why = "PFC is an Ethernet mechanism: an InfiniBand fabric is lossless by credits";
  } else if (sc.roce.cc != transport::CongestionControl::kNone) {
    key = "fabric.roce.cc";
    why = "its schemes (DCQCN, TIMELY, HPCC, Swift, DCTCP) are RoCE's; InfiniBand's own "
          "congestion control is fabric.ib.cc.enabled";
  } else if (sc.ecn.marking == EcnMode::kOn) {
    key = "fabric.ecn.marking";
    why = "ECN is an IP mechanism; InfiniBand marks FECN with fabric.ib.cc.enabled";
  } else if (sc.roce.plb.enabled) {
    key = "fabric.roce.plb.enabled";
    why = "PLB re-picks a UDP source port; InfiniBand has none (use routing.sm.adaptive)";
  } else if (sc.roce.spray) {
    key = "fabric.roce.spray";
    why = "spraying re-picks a UDP source port per packet; InfiniBand has none (use "
          "routing.sm.adaptive)";
  } else if (sc.link.loss_rate > 0) {
    key = "fabric.link.loss_rate";
    why = "random link loss is modelled for lossy RoCE only";
  }
  if (why) throw InputError(key, why);
  const net::IbLinkConfig link = resolve_ib_link(sc.ib);
  transport::RoceConfig& t = sc.roce;
  t.link_layer = transport::LinkLayer::kInfiniband;
  t.mtu_bytes = sc.ib.mtu_bytes;
  t.sl = sc.ib.sl;
  t.data_priority = link.sl_to_vl[sc.ib.sl];
  t.out_of_order = t.out_of_order || sc.recovery.adaptive;
  if (sc.ib.cc.enabled) {
    if (!t.cc_scheme.empty()) {
      throw InputError("fabric.roce.cc_scheme",
                       "fabric.ib.cc.enabled already chooses InfiniBand CC: set one of the two");
    }
    t.cc = transport::CongestionControl::kIbCc;
  }
  sc.switch_config.latency_ps = sc.ib.switch_latency_ps;
  if (sc.ib.generation != IbGeneration::kNone) {
    sc.link.rate_bps = ib_generation_info(sc.ib.generation).data_rate_bps;
  }
  sc.ib.link = link;
}

}  // namespace fabricsim::scenario
