#include "cli/fabric_scope.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <utility>

#include "spec/knobs.h"
#include "spec/scenario_file.h"

namespace fabricsim::cli {
namespace {

// Keys of the Ethernet/RoCE fabric that an InfiniBand run does not read (apply_infiniband in
// resolve/infiniband.cpp either refuses them or replaces them with an IB key), found by reading
// engine/packet/simulation.cpp, net/network.cpp and the registry. A path ending in '.' is a prefix.
// fabric.roce.ack_timeout_exponent and fabric.roce.retry_count are not here: IB RC uses them.
// A new fabric.roce.* key that InfiniBand also reads must not be listed either.
constexpr std::array<std::string_view, 16> kRoceOnly = {
    "fabric.roce.mtu",
    "fabric.roce.vlan",
    "fabric.roce.data_priority",
    "fabric.roce.cnp_priority",
    "fabric.roce.cc",
    "fabric.roce.dcqcn_profile",
    "fabric.roce.dcqcn.",
    "fabric.roce.plb.",
    "fabric.pfc.",
    "fabric.ecn.",
    "fabric.switch.latency",   // IB: fabric.ib.switch_latency
    "fabric.switch.dt_alpha",  // IB switches admit by credits, not by a dynamic threshold
    "routing.ecmp.",           // IB forwards by the Subnet Manager's LFTs (routing.sm.*)
    "routing.load_balancing",  // Ethernet switch load balancing; IB: routing.sm.adaptive
    "routing.flowlet_gap",
    "routing.te.",
};

// Keys only an InfiniBand run reads (the registry accepts them in a file of either technology,
// so one file can describe both fabrics), plus any key the registry conditions on technology ib.
constexpr std::array<std::string_view, 3> kInfinibandOnly = {
    "fabric.ib.",
    "routing.sm.",
    "faults.credit_loss.",
};

// Keys only a UET run reads.
constexpr std::array<std::string_view, 1> kUetOnly = {"fabric.uet."};
// Keys only TCP and iWARP runs read (transport/tcp.h).
constexpr std::array<std::string_view, 1> kTcpOnly = {"fabric.tcp."};

// Keys of the RDMA verbs engine that RoCE and InfiniBand share and UET does not read.
constexpr std::array<std::string_view, 3> kRdma = {"fabric.roce.", "fabric.nic.ack_every",
                                                   "fabric.pfc.enabled"};  // UET: fabric.uet.pfc

// (RoCE key, InfiniBand key) that set the same thing on their fabrics.
constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kCounterparts = {{
    {"fabric.roce.mtu", "fabric.ib.mtu"},
    {"fabric.roce.data_priority", "fabric.ib.sl"},
    {"fabric.switch.latency", "fabric.ib.switch_latency"},
    {"routing.ecmp.hash", "routing.sm.engine"},
    {"routing.ecmp.seed", "routing.sm.engine"},
    {"routing.ecmp.base_seed", "routing.sm.engine"},
    {"routing.ecmp.convergence", "routing.sm.sweep_delay"},
    {"routing.load_balancing", "routing.sm.adaptive"},
}};

bool matches(std::string_view path, std::string_view entry) {
  return entry.back() == '.' ? path.substr(0, entry.size()) == entry : path == entry;
}

bool infiniband_only(const scenario::Knob& k) {
  return std::any_of(k.only_with.begin(), k.only_with.end(), [](const scenario::Condition& c) {
    return c.key_path == "fabric.technology" && c.value == "ib";
  });
}

std::string join_path(const std::string& group, const std::string& key) {
  return group.empty() ? key : group + "." + key;
}

int line_of(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? 0 : mark.line + 1;
}

// Removes `key_path` from the tree if every group on the way is a mapping.
void remove_key(YAML::Node& root, const std::string& key_path) {
  YAML::Node cur(root);
  size_t start = 0;
  for (size_t dot = key_path.find('.'); dot != std::string::npos; dot = key_path.find('.', start)) {
    YAML::Node next = cur[key_path.substr(start, dot - start)];
    if (!next.IsMap()) return;
    cur.reset(next);  // rebinds; operator= would overwrite the node (yaml-cpp semantics)
    start = dot + 1;
  }
  cur.remove(key_path.substr(start));
}

}  // namespace

const std::vector<std::string>& compare_fabrics() {
  static const std::vector<std::string> kFabrics = {"ib", "roce", "uet", "tcp", "iwarp"};
  return kFabrics;
}

std::string key_fabric(std::string_view key_path) {
  if (const scenario::Knob* k = scenario::find_knob(key_path);
      k != nullptr && infiniband_only(*k)) {
    return "ib";
  }
  for (std::string_view entry : kInfinibandOnly) {
    if (matches(key_path, entry)) return "ib";
  }
  for (std::string_view entry : kUetOnly) {
    if (matches(key_path, entry)) return "uet";
  }
  for (std::string_view entry : kTcpOnly) {
    if (matches(key_path, entry)) return "tcp";
  }
  for (std::string_view entry : kRoceOnly) {
    if (matches(key_path, entry)) return "roce";
  }
  return "";
}

bool key_applies(std::string_view key_path, std::string_view fabric) {
  const std::string owner = key_fabric(key_path);
  if (fabric == "uet") {
    // UET runs on the same Ethernet switches as RoCE (PFC, ECN, latency, buffer, ECMP) but
    // reads none of the RDMA verbs' keys, which RoCE shares with InfiniBand.
    if (owner == "ib") return false;
    return std::none_of(kRdma.begin(), kRdma.end(),
                        [&](std::string_view e) { return matches(key_path, e); });
  }
  if (fabric == "tcp" || fabric == "iwarp") {
    // TCP and iWARP run on the same lossy Ethernet switches (ECN, latency, buffer, ECMP) and
    // read fabric.tcp.*, none of the RDMA verbs' or UET's keys, and no PFC.
    if (owner == "tcp") return true;
    if (owner == "ib" || owner == "uet" || matches(key_path, "fabric.pfc.")) return false;
    return std::none_of(kRdma.begin(), kRdma.end(),
                        [&](std::string_view e) { return matches(key_path, e); });
  }
  if (owner == "tcp") return false;
  return owner.empty() || owner == fabric;
}

std::string_view key_counterpart(std::string_view key_path) {
  for (const auto& [roce, ib] : kCounterparts) {
    if (key_path == roce) return ib;
    if (key_path == ib) return roce;
  }
  return "";
}

ScenarioSource::ScenarioSource(const std::string& file) : file_(file) {
  // Bounded like the loader's own read: a regular file of limited size (spec/load.h).
  const std::string text = scenario::read_scenario_file(file);
  const YAML::Node root = scenario::parse_scenario_yaml(text, file);
  text_ = text;
  located_.file = file;

  // Where every key was written, as the loader records it (the key's own line), so errors
  // about the per-fabric text can point at the original file.
  auto walk = [&](auto&& self, const YAML::Node& map, const std::string& group) -> void {
    for (const auto& pair : map) {
      if (!pair.first.IsScalar()) continue;  // the loader reports it
      const std::string path = join_path(group, pair.first.Scalar());
      const scenario::SourceLocation where{file, line_of(pair.first)};
      located_.locations[path] = where;
      if (scenario::find_knob(path) != nullptr) {
        leaves_.push_back({path, where});
        if (pair.second.IsSequence()) {
          for (size_t i = 0; i < pair.second.size(); ++i) {
            located_.locations[path + "[" + std::to_string(i) + "]"] = {file,
                                                                        line_of(pair.second[i])};
          }
        }
      } else if (scenario::is_group(path) && pair.second.IsMap()) {
        self(self, pair.second, path);
      }
    }
  };
  walk(walk, root, "");
  if (root.IsMap() && root["variants"].IsDefined()) {
    variants_ = scenario::read_variants(root["variants"], file, line_of(root["variants"]));
  }
}

scenario::LoadedScenario ScenarioSource::load_for(const std::string& fabric,
                                                  const std::vector<std::string>& sets,
                                                  std::vector<SkippedKey>& skipped,
                                                  const std::vector<std::string>& unsets,
                                                  const std::vector<scenario::SourceLocation>& set_where) const {
  skipped.clear();
  // Where override i was written: the file (a variant's) or the command line (--set:N counts
  // only the command line's).
  auto set_at = [&](size_t i) -> scenario::SourceLocation {
    if (i < set_where.size()) return set_where[i];
    return {"--set", static_cast<int>(i - set_where.size()) + 1};
  };
  auto relocate = [&](const scenario::SourceLocation& where) -> scenario::SourceLocation {
    if (where.file != "--set" || where.line < 1) return where;
    return set_at(static_cast<size_t>(where.line) - 1);
  };
  for (size_t i = 0; i < unsets.size(); ++i) {
    if (unsets[i] == "fabric.technology") {
      throw scenario::LoadError({"--unset", static_cast<int>(i) + 1}, unsets[i],
                                "compare sets the technology of each run from --fabrics; drop "
                                "this --unset");
    }
  }
  // The key that plays a skipped key's part in this run, if this run reads it.
  auto counterpart_for = [&](const std::string& key_path) {
    const std::string c(key_counterpart(key_path));
    return !c.empty() && key_applies(c, fabric) ? c : std::string();
  };
  auto other_fabric = [&](const std::string& key_path) {
    return !key_applies(key_path, fabric);
  };

  YAML::Node root = YAML::Load(text_);  // parsed once already: cannot throw
  for (const Written& w : leaves_) {
    if (!other_fabric(w.key_path)) continue;
    remove_key(root, w.key_path);
    skipped.push_back({w.key_path, w.where, counterpart_for(w.key_path)});
  }
  YAML::Node group = root["fabric"];
  if (!group.IsDefined() || group.IsNull()) {
    root["fabric"] = YAML::Node(YAML::NodeType::Map);
    group.reset(root["fabric"]);
  }
  if (group.IsMap()) group["technology"] = fabric;  // else the loader reports `fabric`

  // An override of another fabric's key becomes a harmless one, so --set:N keeps its number.
  std::vector<std::string> kept = sets;
  for (size_t i = 0; i < kept.size(); ++i) {
    const std::string key_path = kept[i].substr(0, kept[i].find('='));
    const scenario::SourceLocation where = set_at(i);
    if (key_path == "fabric.technology") {
      throw scenario::LoadError(where, key_path,
                                "compare sets the technology of each run from --fabrics; drop "
                                "this override");
    }
    if (other_fabric(key_path)) {
      skipped.push_back({key_path, where, counterpart_for(key_path)});
      kept[i] = "fabric.technology=" + fabric;
    }
  }

  // Set again after the overrides, so an --unset of the whole fabric group (applied first)
  // cannot take the run's technology with it.
  if (!unsets.empty() && group.IsMap()) kept.push_back("fabric.technology=" + fabric);

  YAML::Emitter emitted;
  emitted << root;
  scenario::LoadedScenario loaded;
  try {
    loaded = scenario::load_scenario_string(emitted.c_str(), file_, kept, unsets);
  } catch (const scenario::LoadError& e) {
    if (e.where().file == "--set") throw scenario::LoadError(relocate(e.where()), e.key_path(), e.message());
    if (e.where().file == "--unset") throw;
    throw scenario::LoadError(located_.locate(e.key_path()), e.key_path(), e.message());
  }
  // Locations in the original file, plus whatever the overrides wrote.
  std::map<std::string, scenario::SourceLocation> locations = located_.locations;
  for (const auto& [path, where] : loaded.locations) {
    if (where.file == "--set") locations[path] = relocate(where);
  }
  loaded.locations = std::move(locations);
  return loaded;
}

}  // namespace fabricsim::cli
