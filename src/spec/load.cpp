#include "spec/load.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "core/checked.h"
#include "core/units.h"
#include "spec/did_you_mean.h"
#include "spec/knobs.h"
#include "spec/load_checks.h"
#include "spec/load_text.h"
#include "spec/variants.h"
#include "spec/scenario_file.h"
#include "spec/yaml_util.h"
#include "topo/file_topology.h"
#include "topo/topology.h"

namespace fabricsim::scenario {
namespace {

using workload::SizeCdfPoint;

// The registry allows at most 2^24 hosts x 64 NICs (knob_registry_topology.cpp), so a larger
// index is no NIC; refusing it here also keeps it from being narrowed into the int the workload
// holds.
constexpr int64_t kMaxNicIndex = int64_t{1} << 30;

class Loader {
 public:
  explicit Loader(std::string file) { out_.file = std::move(file); }

  LoadedScenario load(std::string_view text, const std::vector<std::string>& overrides,
                      const std::vector<std::string>& unsets) {
    YAML::Node root = parse_document(text);
    // Every --unset first, then every --set: `--unset fabric.roce --set fabric.roce.cc=none`
    // means "the defaults, except cc", whatever order the options came in.
    for (size_t i = 0; i < unsets.size(); ++i) {
      apply_unset(root, unsets[i], static_cast<int>(i) + 1);
    }
    for (size_t i = 0; i < overrides.size(); ++i) {
      apply_override(root, overrides[i], static_cast<int>(i) + 1);
    }
    walk(root, "");
    for (const Knob& k : knobs()) {  // registry order, so the outcome ignores file order
      const auto it = parsed_.find(k.path);
      if (it != parsed_.end()) k.set(out_.scenario, it->second);
    }
    // A GPU node's default is one NIC per GPU (DGX H100: 8 ConnectX-7 for 8 GPUs); the
    // single-NIC host default would silently share one NIC among all of them.
    if (out_.scenario.node.gpus_per_node > 0 && !written("hosts.nics_per_host")) {
      out_.scenario.topology.nics_per_host = out_.scenario.node.gpus_per_node;
    }
    check_conditions(out_, file_order_);
    read_topology_file();
    size_dragonfly();
    check_cross_fields(out_, parsed_);
    if (!out_.scenario.jobs.empty()) {
      // With jobs: every job carries its own workload and training; top-level ones would be
      // silently unused.
      for (const std::string& path : file_order_) {
        if (path.rfind("workload.", 0) == 0 || path.rfind("training.", 0) == 0) {
          fail(out_.locations.at(path), path,
               "with jobs:, write workload: and training: inside each job (this one would be "
               "unused)");
        }
      }
    }
    single_node();
    resolve_beside(out_.scenario.training.file);
    for (JobSpec& job : out_.scenario.jobs) resolve_beside(job.training.file);
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const SourceLocation& where, const std::string& key_path,
                         std::string message) const {
    throw LoadError(where, key_path, std::move(message));
  }

  SourceLocation at(const YAML::Node& node, const std::string& path) const {
    const auto it = override_index_.find(path);
    if (it != override_index_.end()) return {"--set", it->second};
    const YAML::Mark mark = node.Mark();
    return {out_.file, mark.is_null() ? 0 : mark.line + 1};
  }

  YAML::Node parse_document(std::string_view text) { return parse_scenario_yaml(text, out_.file); }

  // The components of `path` ("fabric.link.rate" -> fabric, link, rate) after checking that
  // it names a known key or group; otherwise the usual unknown-key error at `where`.
  std::vector<std::string> known_path(const SourceLocation& where, const std::string& path) {
    std::vector<std::string> parts;
    std::string group;
    for (size_t start = 0;;) {
      const size_t dot = path.find('.', start);
      parts.push_back(path.substr(start, dot - start));
      const std::string sub = join_path(group, parts.back());
      if (find_knob(group) != nullptr) {
        fail(where, sub, "unknown key '" + parts.back() + "'; " + group + " has no sub-keys");
      }
      if (find_knob(sub) == nullptr && !is_group(sub)) {
        if (const std::string hint = retired_key_hint(sub); !hint.empty()) fail(where, sub, hint);
        fail(where, sub, unknown_key_message(parts.back(), child_keys(group)));
      }
      group = sub;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return parts;
  }

  // Removes `key.path` (a leaf, or a group with everything under it) from the tree, so the file
  // reads as if it had never set it. A known key the file does not set is left alone.
  void apply_unset(YAML::Node& root, const std::string& path, int index) {
    const SourceLocation where{"--unset", index};
    if (const std::string bad = utf8_problem(path); !bad.empty()) fail(where, "(unset)", bad);
    if (path.empty() || path.find('=') != std::string::npos) {
      fail(where, "(unset)", "expected a key path like fabric.roce.dcqcn_profile, got '" + path +
                                 "'");
    }
    const std::vector<std::string> parts = known_path(where, path);
    YAML::Node cur(root);
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      // Looked up through a const handle: the non-const operator[] would add the key.
      YAML::Node next = static_cast<const YAML::Node&>(cur)[parts[i]];
      if (!next.IsDefined() || !next.IsMap()) return;  // absent (or not a group: the file's own error, reported later)
      cur.reset(next);  // rebinds; operator= would overwrite the node (yaml-cpp semantics)
    }
    cur.remove(parts.back());
  }

  // Grafts `key.path=value` onto the tree, so the override goes through the same checks as the
  // file. Only leaf keys can be overridden: replacing a whole group would hide what changed.
  void apply_override(YAML::Node& root, const std::string& text, int index) {
    const SourceLocation where{"--set", index};
    if (const std::string bad = utf8_problem(text); !bad.empty()) fail(where, "(set)", bad);
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
      fail(where, "(set)", "expected key.path=value, got '" + text + "'");
    }
    const std::string path = text.substr(0, eq);
    const std::vector<std::string> parts = known_path(where, path);
    if (find_knob(path) == nullptr) {
      fail(where, path, "is a group of keys; set one of: " + join(child_keys(path)));
    }
    YAML::Node value;
    try {
      value = YAML::Load(text.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      fail(where, path, "(yaml): " + e.msg);
    }
    // Walk down, creating missing groups. reset() rebinds a handle; operator= would overwrite
    // the node it refers to (yaml-cpp's reference semantics).
    YAML::Node cur(root);
    std::string sub;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      sub = join_path(sub, parts[i]);
      YAML::Node next = cur[parts[i]];
      if (!next.IsDefined() || next.IsNull()) {
        next = YAML::Node(YAML::NodeType::Map);
        override_index_.emplace(sub, index);
      } else if (!next.IsMap()) {
        fail(where, path, "cannot set: " + sub + " in " + out_.file + " is not a mapping");
      }
      cur.reset(next);
    }
    cur[parts.back()] = value;
    override_index_[path] = index;
  }

  void walk(const YAML::Node& map, const std::string& group) {
    std::vector<std::string> seen;
    for (const auto& pair : map) {  // `pair` is a value; it->first would dangle
      const YAML::Node& key = pair.first;
      const YAML::Node& value = pair.second;
      if (!key.IsScalar()) {
        fail(at(key, group), group.empty() ? "(root)" : group,
             "keys must be plain words, got " + node_kind(key));
      }
      if (const std::string bad = utf8_problem(key.Scalar()); !bad.empty()) {
        fail(at(key, group), group.empty() ? "(root)" : group, "a key has " + bad);
      }
      const std::string path = join_path(group, key.Scalar());
      const SourceLocation where = at(key, path);
      for (const std::string& s : seen) {
        if (s == key.Scalar()) fail(where, path, "duplicate key '" + s + "'");
      }
      seen.push_back(key.Scalar());
      out_.locations[path] = where;
      if (path == "jobs") {
        read_jobs(value, where);
        continue;
      }
      if (path == "variants") {
        if (where.file == "--set") fail(where, path, "variants are written in the file");
        out_.scenario.variants = read_variants(value, out_.file, where.line);
        continue;
      }
      if (const Knob* knob = find_knob(path)) {
        read_leaf(*knob, value, where);
        file_order_.push_back(path);
      } else if (is_group(path)) {
        if (value.IsNull()) continue;  // "nic:" with nothing under it keeps the defaults
        if (!value.IsMap()) {
          fail(where, path,
               "expected a mapping with keys: " + join(child_keys(path)) + ", got " +
                   node_kind(value));
        }
        walk(value, path);
      } else {
        if (const std::string hint = retired_key_hint(path); !hint.empty()) fail(where, path, hint);
        fail(where, path, unknown_key_message(key.Scalar(), child_keys(group)));
      }
    }
  }

  // topology.kind: file: the file, resolved beside the scenario, sets hosts.count (its NICs /
  // hosts.nics_per_host); the keys that shape the built-in families would be unused.
  void read_topology_file() {
    topo::TopologySpec& t = out_.scenario.topology;
    if (t.kind != topo::TopologyKind::kFile) return;
    if (t.file.empty()) {
      fail(out_.locate("topology.kind"), "topology.file",
           "required with kind: file, e.g. file: fabric.topo");
    }
    resolve_beside(t.file);
    for (const char* key : {"hosts.count", "topology.tiers", "topology.radix",
                            "topology.oversubscription"}) {
      if (written(key)) {
        fail(out_.locate(key), key, "unused with topology.kind: file (the file gives the shape)");
      }
    }
    topo::TopologyFile file;
    try {
      file = topo::read_topology_file(t.file, "topology.file");
    } catch (const ImportError& e) {
      // Reported like any load error, at the topology file's own line (0: the file as a whole).
      throw LoadError(SourceLocation{e.file(), e.line()}, e.key_path(), e.what());
    }
    const int nics = file.nics();
    // Poisson's load is a share of fabric.link.rate (workload.cpp plan_pattern; the pre-flight's
    // counts): NICs cabled at another rate would be offered another load than the one written.
    const workload::WorkloadSpec& w = out_.scenario.workload;
    const int64_t rate_bps = out_.scenario.link.rate_bps;
    const topo::FileLink* l = file.first_nic_link_not_at(rate_bps);
    if (l && w.kind == workload::WorkloadKind::kPattern &&
        w.pattern == workload::PatternKind::kPoisson) {
      fail(out_.locate("workload.load"), "workload.load",
           "is a share of fabric.link.rate (" + format_rate_exact(rate_bps) + "), but " + t.file +
               ":" + std::to_string(l->line) + " cables a NIC at " +
               format_rate_exact(l->rate_bps) + ": set fabric.link.rate to the hosts' link rate");
    }
    if (nics % t.nics_per_host != 0) {
      fail_cross(out_, parsed_, "hosts.nics_per_host",
                 "must divide the " + std::to_string(nics) + " NICs of " + t.file,
                 std::to_string(t.nics_per_host));
    }
    t.hosts = nics / t.nics_per_host;
  }

  // hosts.count: 1 with GPUs: one node, its GPUs on NVLink (an 8-GPU nccl-tests run). Every
  // topology builder joins at least two hosts, so it runs as scaling.nodes runs one node
  // (resolve/resolve.cpp scaling_point): a two-host fabric with a one-node job on it, which the
  // summary's job row shows. Without GPUs one host has nothing to talk to.
  void single_node() {
    Scenario& s = out_.scenario;
    if (!written("hosts.count") || s.topology.hosts != 1) return;
    if (s.node.gpus_per_node == 0) {
      fail(out_.locate("hosts.count"), "hosts.count",
           "must be >= 2 without GPUs (a fabric joins at least 2 hosts); one host alone needs "
           "node.gpus_per_node");
    }
    if (!s.jobs.empty()) {
      fail(out_.locate("hosts.count"), "hosts.count",
           "must be >= 2 with jobs: (each job takes whole nodes of the fabric)");
    }
    if (!s.scaling_nodes.empty()) return;  // scaling builds each node count's fabric itself
    JobSpec job;
    job.name = "job0";
    job.nodes = 1;
    job.workload = s.workload;
    job.training = s.training;
    s.jobs = {job};
    s.topology.hosts = 2;
  }

  // topology.kind: dragonfly: p·a·g NICs set hosts.count; the fat-tree shape keys are unused.
  void size_dragonfly() {
    topo::TopologySpec& t = out_.scenario.topology;
    if (t.kind != topo::TopologyKind::kDragonfly) return;
    for (const char* key : {"topology.tiers", "topology.radix", "topology.oversubscription"}) {
      if (written(key)) {
        fail(out_.locate(key), key,
             "unused with topology.kind: dragonfly (topology.dragonfly.* give the shape)");
      }
    }
    topo::DragonflyShape shape;
    try {
      shape = topo::dragonfly_shape(t);
    } catch (const InputError& e) {
      fail(out_.locate(e.key_path()), e.key_path(), e.what());
    }
    const int hosts = shape.nics() / t.nics_per_host;
    if (written("hosts.count") && t.hosts != hosts) {
      fail(out_.locate("hosts.count"), "hosts.count",
           "a Dragonfly of p·a·g = " + std::to_string(shape.nics()) + " NICs has " +
               std::to_string(hosts) + " hosts; leave hosts.count out");
    }
    t.hosts = hosts;
  }

  // A relative file name in a scenario (training.file, topology.file) names a file beside the
  // scenario (as a user reads it), not one in the working directory.
  void resolve_beside(std::string& file) const {
    if (file.empty() || file.front() == '/' || out_.file.empty()) return;
    const size_t slash = out_.file.rfind('/');
    if (slash != std::string::npos) file = out_.file.substr(0, slash + 1) + file;
  }

  // jobs: a list of {name, nodes, placement, workload: {...}}. Each job's workload keys are the
  // scenario's workload.* keys, read by a loader of their own so every check applies.
  void read_jobs(const YAML::Node& value, const SourceLocation& where) {
    if (!value.IsSequence() || value.size() == 0) {
      fail(where, "jobs", "expected a list of jobs like [{name: a, nodes: 2, workload: {...}}]");
    }
    for (size_t i = 0; i < value.size(); ++i) {
      const YAML::Node& item = value[i];
      const std::string base = "jobs[" + std::to_string(i) + "]";
      const SourceLocation here = at(item, base);
      if (!item.IsMap()) fail(here, base, "expected a mapping with keys name, nodes, placement, workload");
      JobSpec job;
      job.name = "job" + std::to_string(i);
      YAML::Node sub_root(YAML::NodeType::Map);
      for (const auto& pair : item) {
        const std::string key = pair.first.IsScalar() ? pair.first.Scalar() : "";
        const YAML::Node& v = pair.second;
        const std::string path = base + "." + key;
        const SourceLocation kw = at(pair.first, path);
        if (key == "name") {
          if (!v.IsScalar() || v.Scalar().empty()) fail(kw, path, "expected a name");
          check_utf8(v, kw, path);
          job.name = v.Scalar();
        } else if (key == "nodes") {
          const ParseResult<int64_t> n = v.IsScalar() ? parse_integer(v.Scalar()) : ParseResult<int64_t>{};
          if (!v.IsScalar() || !n.ok || n.value < 1 || n.value > (1 << 24)) {
            fail(kw, path, "expected a whole number of nodes >= 1");
          }
          job.nodes = static_cast<int>(n.value);
        } else if (key == "placement") {
          if (v.IsScalar() && v.Scalar() == "contiguous") {
            job.placement = Placement::kContiguous;
          } else if (v.IsScalar() && v.Scalar() == "scattered") {
            job.placement = Placement::kScattered;
          } else {
            fail(kw, path,
                 "expected one of: contiguous, scattered" +
                     did_you_mean_suffix(v.IsScalar() ? v.Scalar() : "",
                                         {"contiguous", "scattered"}));
          }
        } else if (key == "workload" || key == "training") {
          sub_root[key] = v;
        } else {
          fail(kw, path,
               unknown_key_message(key, {"name", "nodes", "placement", "workload", "training"}));
        }
      }
      if (job.nodes == 0) fail(here, base + ".nodes", "missing: how many nodes the job runs on");
      if (!sub_root["workload"].IsDefined()) fail(here, base + ".workload", "missing: what the job runs");
      Loader sub(out_.file);
      try {
        sub.walk(sub_root, "");
        for (const Knob& k : knobs()) {
          const auto it = sub.parsed_.find(k.path);
          if (it != sub.parsed_.end()) k.set(sub.out_.scenario, it->second);
        }
        check_conditions(sub.out_, sub.file_order_);
      } catch (const LoadError& e) {
        throw LoadError(e.where(), base + "." + e.key_path(), e.message());
      }
      job.workload = sub.out_.scenario.workload;
      job.training = sub.out_.scenario.training;
      out_.scenario.jobs.push_back(std::move(job));
    }
  }

  void read_leaf(const Knob& k, const YAML::Node& value, const SourceLocation& where) {
    if (k.type == KnobType::kSizeCdf) {
      parsed_[k.path] = read_size_cdf(k, value, where);
      return;
    }
    if (k.type == KnobType::kFlowList) {
      parsed_[k.path] = read_flow_list(k, value, where);
      return;
    }
    if ((k.type == KnobType::kIntList || k.type == KnobType::kStringList) &&
        value.IsSequence()) {
      std::string joined;
      for (const YAML::Node& item : value) {
        if (!item.IsScalar()) fail(where, k.path, expected_value(k) + ", got " + node_kind(item));
        check_utf8(item, where, k.path);
        joined += (joined.empty() ? "" : ",") + item.Scalar();
      }
      ParseResult<KnobValue> r = parse_knob_value(k, joined);
      if (!r.ok) fail(where, k.path, r.error);
      parsed_[k.path] = std::move(r.value);
      return;
    }
    if (value.IsNull() && k.type == KnobType::kString) {  // `--set outputs.dir=` clears it
      parsed_[k.path] = std::string();
      return;
    }
    if (value.IsNull()) fail(where, k.path, "missing value; " + expected_value(k));
    if (!value.IsScalar()) {
      fail(where, k.path, expected_value(k) + ", got " + node_kind(value));
    }
    check_utf8(value, where, k.path);
    ParseResult<KnobValue> r = parse_knob_value(k, value.Scalar());
    if (!r.ok) fail(where, k.path, r.error);
    parsed_[k.path] = std::move(r.value);
  }

  void check_utf8(const YAML::Node& scalar, const SourceLocation& where,
                  const std::string& path) const {
    if (!scalar.IsScalar()) return;
    if (const std::string bad = utf8_problem(scalar.Scalar()); !bad.empty()) {
      fail(where, path, bad);
    }
  }

  std::vector<SizeCdfPoint> read_size_cdf(const Knob& k, const YAML::Node& value,
                                          const SourceLocation& where) {
    if (!value.IsSequence()) fail(where, k.path, expected_value(k) + ", got " + node_kind(value));
    if (value.size() == 0) fail(where, k.path, "must have at least one point like [1MB, 1.0]");
    std::vector<SizeCdfPoint> points;
    for (size_t i = 0; i < value.size(); ++i) {
      const YAML::Node& point = value[i];
      const std::string path = k.path + "[" + std::to_string(i) + "]";
      const SourceLocation here = where.file == "--set" ? where : at(point, path);
      if (!point.IsSequence() || point.size() != 2 || !point[0].IsScalar() ||
          !point[1].IsScalar()) {
        fail(here, path,
             "expected [size, cumulative probability] like [1MB, 0.5], got " + node_kind(point));
      }
      for (const YAML::Node& item : point) check_utf8(item, here, path);
      const ParseResult<int64_t> size = parse_bytes(point[0].Scalar());
      if (!size.ok) fail(here, path, size.error);
      if (size.value <= 0) fail(here, path, "size must be > 0");
      if (size.value > kMaxSizeBytes) {
        fail(here, path, "size must be <= " + format_bytes_exact(kMaxSizeBytes));
      }
      const ParseResult<double> p = parse_real(point[1].Scalar());
      if (!p.ok) fail(here, path, p.error + "; expected a cumulative probability");
      if (p.value <= 0 || p.value > 1) fail(here, path, "probability must be in (0, 1]");
      if (!points.empty() && size.value <= points.back().size_bytes) {
        fail(here, path,
             "sizes must increase: " + point[0].Scalar() + " after " +
                 format_bytes_exact(points.back().size_bytes));
      }
      if (!points.empty() && p.value < points.back().cumulative) {
        fail(here, path, "cumulative probabilities must not decrease");
      }
      points.push_back({size.value, p.value});
    }
    if (points.back().cumulative != 1.0) {
      const std::string last = k.path + "[" + std::to_string(points.size() - 1) + "]";
      fail(where.file == "--set" ? where : at(value[points.size() - 1], last), last,
           "the last cumulative probability must be 1");
    }
    return points;
  }

  // NIC indices are checked against the topology later (workload::check), where the NIC count
  // is known; here only the shape and units.
  std::vector<workload::ExplicitFlow> read_flow_list(const Knob& k, const YAML::Node& value,
                                                     const SourceLocation& where) {
    if (!value.IsSequence()) fail(where, k.path, expected_value(k) + ", got " + node_kind(value));
    if (value.size() == 0) fail(where, k.path, "must list at least one flow like [1, 0, 1MB, 0us]");
    std::vector<workload::ExplicitFlow> flows;
    for (size_t i = 0; i < value.size(); ++i) {
      const YAML::Node& f = value[i];
      const std::string path = k.path + "[" + std::to_string(i) + "]";
      const SourceLocation here = where.file == "--set" ? where : at(f, path);
      if (!f.IsSequence() || (f.size() != 4 && f.size() != 5) || !f[0].IsScalar() ||
          !f[1].IsScalar() || !f[2].IsScalar() || !f[3].IsScalar() ||
          (f.size() == 5 && !f[4].IsScalar())) {
        fail(here, path,
             "expected [src NIC, dst NIC, size, start] or [src, dst, size, start, SL] like "
             "[1, 0, 1MB, 0us], got " + node_kind(f));
      }
      for (const YAML::Node& item : f) check_utf8(item, here, path);
      const ParseResult<int64_t> src = parse_integer(f[0].Scalar());
      const ParseResult<int64_t> dst = parse_integer(f[1].Scalar());
      if (!src.ok || !dst.ok || src.value < 0 || dst.value < 0) {
        fail(here, path, "src and dst must be NIC indices >= 0");
      }
      // Indices are ints downstream; anything larger is no NIC (workload::check says which are).
      if (src.value > kMaxNicIndex || dst.value > kMaxNicIndex) {
        fail(here, path, "src and dst must be NIC indices below 2^30 (hosts.count x "
                         "hosts.nics_per_host is at most that)");
      }
      if (src.value == dst.value) fail(here, path, "a flow needs two different NICs");
      const ParseResult<int64_t> size = parse_bytes(f[2].Scalar());
      if (!size.ok) fail(here, path, size.error);
      if (size.value <= 0) fail(here, path, "size must be > 0");
      if (size.value > kMaxSizeBytes) {
        fail(here, path, "size must be <= " + format_bytes_exact(kMaxSizeBytes));
      }
      const ParseResult<int64_t> start = parse_time_ps(f[3].Scalar());
      if (!start.ok) fail(here, path, start.error);
      if (start.value > kSimHorizonPs) {
        fail(here, path, "start must be <= " + format_time_exact(kSimHorizonPs) +
                             ", the simulated-time horizon");
      }
      int sl = -1;
      if (f.size() == 5) {
        const ParseResult<int64_t> level = parse_integer(f[4].Scalar());
        if (!level.ok || level.value < 0 || level.value > 15) {
          fail(here, path, "the fifth element is an InfiniBand SL, 0 to 15");
        }
        sl = static_cast<int>(level.value);
      }
      flows.push_back({static_cast<int>(src.value), static_cast<int>(dst.value), size.value,
                       start.value, sl});
    }
    return flows;
  }

  bool written(const std::string& path) const { return parsed_.count(path) != 0; }

  std::map<std::string, int> override_index_;  // key path -> 1-based --set index
  std::map<std::string, KnobValue> parsed_;    // leaves written in the file or by --set
  std::vector<std::string> file_order_;        // leaves in the order they were written
  LoadedScenario out_;
};

}  // namespace

std::string SourceLocation::str() const {
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

std::string format_error_line(const SourceLocation& where, std::string_view key_path,
                              std::string_view message) {
  std::string line = where.str() + ": " + std::string(key_path) + ": " + std::string(message);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

LoadError::LoadError(SourceLocation where, std::string key_path, std::string message)
    : std::runtime_error(format_error_line(where, key_path, message)),
      where_(std::move(where)),
      key_path_(std::move(key_path)),
      message_(std::move(message)) {}

SourceLocation LoadedScenario::locate(std::string_view key_path) const {
  std::string path(key_path);
  while (!path.empty()) {
    const auto it = locations.find(path);
    if (it != locations.end()) return it->second;
    const size_t cut = path.find_last_of(".[");
    path.resize(cut == std::string::npos ? 0 : cut);
  }
  return {file, 0};
}

LoadedScenario load_scenario_string(std::string_view yaml, const std::string& file_name,
                                    const std::vector<std::string>& set_overrides,
                                    const std::vector<std::string>& unset_overrides) {
  return Loader(file_name).load(yaml, set_overrides, unset_overrides);
}

LoadedScenario load_scenario(const std::string& path,
                             const std::vector<std::string>& set_overrides,
                             const std::vector<std::string>& unset_overrides) {
  return load_scenario_string(read_scenario_file(path), path, set_overrides, unset_overrides);
}

Scenario load_scenario_file(const std::string& path,
                            const std::vector<std::string>& set_overrides,
                            const std::vector<std::string>& unset_overrides) {
  return load_scenario(path, set_overrides, unset_overrides).scenario;
}

std::string format_input_error(const LoadedScenario& loaded, const InputError& error) {
  const std::string& key = error.key_path();
  if (const auto* imp = dynamic_cast<const ImportError*>(&error)) {
    // Line 0: a whole-file fault, or a binary file (a Chakra trace names its node instead).
    const std::string at = imp->line() > 0 ? ":" + std::to_string(imp->line()) : "";
    return imp->file() + at + ": " + key + ": " + error.what();
  }
  return format_error_line(loaded.locate(key), key.empty() ? "(scenario)" : key, error.what());
}

}  // namespace fabricsim::scenario
