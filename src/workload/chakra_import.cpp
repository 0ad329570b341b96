// Chakra traces onto the training DAG (see chakra_import.h; table in docs/workloads.md). Facts
// on how ASTRA-sim runs a trace are from astra-sim/astra-sim @518bd51,
// astra-sim/workload/Workload.cc (Workload::issue, issue_replay, issue_coll_comm,
// issue_send_comm, issue_recv_comm, extract_comm_group) and HardwareResource.cc.
//
// The ranks' graphs are joined by replaying them in dependency order, all ranks together: a node
// whose own rank's dependencies are resolved becomes a DAG op (compute), or waits for its peers
// (a collective until every member issued its match, a receive until its message exists). What
// is left waiting when nothing more can move is a deadlock in the trace and is refused naming the
// first such node. Each node resolves to the set of DAG ops its completion means ("done set"):
// a compute or collective node its own op, a receive its message plus its own dependencies, a
// metadata node its dependencies.
#include "workload/chakra_import.h"

#include <sys/stat.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/error.h"

namespace fabricsim::workload {

namespace {

constexpr const char* kKey = "training.file";
constexpr int64_t kPsPerMicro = 1'000'000;
// ASTRA-sim replays a zero duration as 1 ns (Workload::issue_replay: runtime = 1ul, in ns).
constexpr int64_t kZeroDurationPs = 1'000;

// (src, dst, tag, ordinal): the ordinal-th send src -> dst with that tag, in file order, is
// received by the ordinal-th matching receive (ASTRA-sim's front ends match by src, dst, tag).
using P2pKey = std::tuple<uint32_t, uint32_t, int64_t, int64_t>;

struct Arrival {
  uint32_t arrived = 0;
  std::vector<uint32_t> after;                       // union of the members' done sets
  std::vector<std::pair<uint32_t, uint32_t>> nodes;  // (rank, node) that arrived
};

class Joiner {
 public:
  Joiner(const std::vector<chakra::Trace>& traces, const ChakraOptions& opt, std::string name)
      : traces_(traces), opt_(opt) {
    dag_.name = std::move(name);
    dag_.ranks = opt.gpus;
  }

  Dag build() {
    if (traces_.size() != opt_.gpus) {
      throw ImportError(traces_.empty() ? std::string() : traces_[0].path, 0, kKey,
                        std::to_string(traces_.size()) + " rank traces for " +
                            std::to_string(opt_.gpus) + " GPUs");
    }
    ranks_.resize(opt_.gpus);
    for (uint32_t r = 0; r < opt_.gpus; ++r) index_rank(r);
    find_groups();
    for (uint32_t r = 0; r < opt_.gpus; ++r) check_nodes(r);
    replay();
    return std::move(dag_);
  }

 private:
  struct RankState {
    std::unordered_map<uint64_t, uint32_t> by_id;
    std::vector<std::vector<uint32_t>> users;  // node -> nodes that depend on it
    std::vector<uint32_t> waiting;             // unresolved dependencies of each node
    std::vector<std::vector<uint32_t>> done;   // done sets (DAG op indices)
    std::vector<uint8_t> resolved;
    std::vector<int64_t> ordinal;    // collectives: index in their group; send/recv: in their key
    std::vector<std::string> group;  // collectives: process group ("" = all ranks)
  };

  const chakra::Trace& trace(uint32_t r) const { return traces_[r]; }
  const chakra::Node& node(uint32_t r, uint32_t i) const { return traces_[r].nodes[i]; }

  [[noreturn]] void fail(uint32_t r, uint32_t i, const std::string& message) const {
    throw ImportError(trace(r).path, 0, kKey, chakra::node_label(node(r, i)) + ": " + message);
  }
  int64_t attr(uint32_t r, uint32_t i, const char* name, int64_t fallback) const {
    return node(r, i).int_attr(name, trace(r).path, kKey).value_or(fallback);
  }

  // Ids, dependencies (each must name a node of the same rank), and a cycle check.
  void index_rank(uint32_t r) {
    RankState& s = ranks_[r];
    const auto n = static_cast<uint32_t>(trace(r).nodes.size());
    for (uint32_t i = 0; i < n; ++i) {
      if (!s.by_id.emplace(node(r, i).id, i).second) {
        fail(r, i, "a second node with id " + std::to_string(node(r, i).id));
      }
    }
    s.users.resize(n);
    s.waiting.assign(n, 0);
    s.done.resize(n);
    s.resolved.assign(n, 0);
    s.ordinal.assign(n, -1);
    s.group.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      std::set<uint32_t> deps;
      for (const auto* list : {&node(r, i).data_deps, &node(r, i).ctrl_deps}) {
        for (uint64_t id : *list) {
          auto it = s.by_id.find(id);
          if (it == s.by_id.end()) {
            fail(r, i, "depends on node " + std::to_string(id) + ", which the trace does not have");
          }
          if (it->second == i) fail(r, i, "depends on itself");
          deps.insert(it->second);
        }
      }
      for (uint32_t d : deps) s.users[d].push_back(i);
      s.waiting[i] = static_cast<uint32_t>(deps.size());
    }
    // Kahn's algorithm on a copy of the counts: a node never freed lies on or after a cycle.
    std::vector<uint32_t> left = s.waiting;
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < n; ++i)
      if (left[i] == 0) ready.push_back(i);
    uint32_t freed = 0;
    while (!ready.empty()) {
      const uint32_t i = ready.back();
      ready.pop_back();
      ++freed;
      for (uint32_t u : s.users[i])
        if (--left[u] == 0) ready.push_back(u);
    }
    if (freed != n) {
      for (uint32_t i = 0; i < n; ++i) {
        if (left[i] != 0 && on_cycle(r, i, left)) fail(r, i, "lies on a dependency cycle");
      }
    }
  }
  // Whether following still-blocked dependents from i comes back to i.
  bool on_cycle(uint32_t r, uint32_t start, const std::vector<uint32_t>& left) const {
    std::vector<uint8_t> seen(left.size(), 0);
    std::vector<uint32_t> stack{start};
    while (!stack.empty()) {
      const uint32_t i = stack.back();
      stack.pop_back();
      for (uint32_t u : ranks_[r].users[i]) {
        if (u == start) return true;
        if (left[u] != 0 && !seen[u]) {
          seen[u] = 1;
          stack.push_back(u);
        }
      }
    }
    return false;
  }

  // Process groups: pg_name "" or "0" is every rank (ASTRA-sim extract_comm_group); any other
  // name is the ranks whose traces hold collectives of it, in rank order. ASTRA-sim takes the
  // members from a separate comm-group file or a metadata node's JSON; the traces' own nodes
  // say the same for a consistent trace and need no second input.
  void find_groups() {
    for (uint32_t r = 0; r < opt_.gpus; ++r) {
      std::map<std::string, int64_t> count;
      for (uint32_t i = 0; i < trace(r).nodes.size(); ++i) {
        if (node(r, i).type != chakra::kCommCollNode) continue;
        std::string pg;
        if (const chakra::Attr* a = node(r, i).attr("pg_name")) {
          if (a->kind == chakra::Attr::Kind::kString)
            pg = a->string_value;
          else if (a->kind == chakra::Attr::Kind::kInt)
            pg = std::to_string(a->int_value);
          else
            fail(r, i, "pg_name is neither a string nor an integer");
        }
        if (pg == "0") pg.clear();
        ranks_[r].group[i] = pg;
        ranks_[r].ordinal[i] = count[pg]++;
        auto& members = members_[pg];
        if (members.empty() || members.back() != r) members.push_back(r);
      }
    }
    std::vector<uint32_t> all(opt_.gpus);
    for (uint32_t r = 0; r < opt_.gpus; ++r) all[r] = r;
    members_[""] = all;
    for (const auto& [pg, members] : members_) group_index_[pg] = dag_.add_group(members);
  }

  // What each node type means (ASTRA-sim Workload::issue), checked before anything is built so
  // a refusal names the node whatever the replay order.
  void check_nodes(uint32_t r) {
    std::map<std::tuple<uint32_t, uint32_t, int64_t>, int64_t> p2p_count;
    for (uint32_t i = 0; i < trace(r).nodes.size(); ++i) {
      const chakra::Node& n = node(r, i);
      const bool cpu = attr(r, i, "is_cpu_op", 0) != 0;
      switch (n.type) {
        case chakra::kInvalidNode:
        case chakra::kMetadataNode:
          break;  // no work: ASTRA-sim skips them (skip_invalid) after reading process groups
        case chakra::kCompNode:
          if (cpu) {
            fail(r, i,
                 "a CPU operator (is_cpu_op): ASTRA-sim runs CPU operators on a second "
                 "per-NPU resource beside the GPU stream; fabricsim models the GPU's only");
          }
          if (n.duration_micros == 0 && attr(r, i, "num_ops", 0) > 0) {
            fail(r, i,
                 "num_ops without duration_micros: fabricsim has no roofline model to "
                 "turn operations into time (ASTRA-sim's roofline mode)");
          }
          if (n.duration_micros >
              static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / kPsPerMicro)) {
            fail(r, i, "duration_micros overflows picoseconds");
          }
          break;
        case chakra::kCommCollNode:
        case chakra::kCommSendNode:
        case chakra::kCommRecvNode:
          check_comm(r, i, cpu, p2p_count);
          break;
        case chakra::kMemLoadNode:
        case chakra::kMemStoreNode:
          fail(r, i,
               std::string(chakra::node_type_name(n.type)) +
                   ": ASTRA-sim hands tensor_size bytes to its remote-memory model; "
                   "fabricsim has no memory model to time it");
        default:
          fail(r, i,
               "node type " + std::to_string(n.type) + " (" + chakra::node_type_name(n.type) +
                   ") is not simulated (ASTRA-sim runs compute, communication, memory and "
                   "metadata nodes only)");
      }
    }
  }

  void check_comm(uint32_t r, uint32_t i, bool cpu,
                  std::map<std::tuple<uint32_t, uint32_t, int64_t>, int64_t>& p2p_count) {
    const chakra::Node& n = node(r, i);
    if (cpu) fail(r, i, "a communication node on the CPU (is_cpu_op; ASTRA-sim refuses it too)");
    const std::optional<int64_t> size = n.int_attr("comm_size", trace(r).path, kKey);
    if (!size) fail(r, i, "no comm_size attribute");
    if (*size <= 0) fail(r, i, "comm_size " + std::to_string(*size) + ": at least 1 byte");
    if (n.type == chakra::kCommCollNode) {
      const int64_t type = attr(r, i, "comm_type", -1);
      if (type != chakra::kAllReduce && type != chakra::kAllGather &&
          type != chakra::kReduceScatter && type != chakra::kAllToAll) {
        fail(r, i,
             type < 0 ? std::string("no comm_type attribute")
                      : std::string("collective ") + chakra::collective_type_name(type) + " (" +
                            std::to_string(type) +
                            "): ASTRA-sim simulates ALL_REDUCE, ALL_GATHER, "
                            "REDUCE_SCATTER and ALL_TO_ALL only (it replays BROADCAST's "
                            "duration instead)");
      }
      if (const chakra::Attr* dims = n.attr("involved_dim")) {
        for (int64_t d : dims->int_values) {
          if (d == 0) {
            fail(r, i,
                 "involved_dim leaves out a dimension: ASTRA-sim's network dimensions "
                 "have no counterpart in fabricsim's topologies");
          }
        }
      }
      const auto members = static_cast<int64_t>(members_.at(ranks_[r].group[i]).size());
      if (members < 2) fail(r, i, "a collective over one rank");
      if (*size < members) {
        fail(r, i,
             "comm_size " + std::to_string(*size) + " B over " + std::to_string(members) +
                 " ranks: at least 1 B per rank");
      }
      return;
    }
    const bool send = n.type == chakra::kCommSendNode;
    const int64_t src = attr(r, i, "comm_src", send ? r : -1);
    const int64_t dst = attr(r, i, "comm_dst", send ? -1 : r);
    const char* peer_key = send ? "comm_dst" : "comm_src";
    const int64_t peer = send ? dst : src;
    if ((send ? src : dst) != r) {
      fail(r, i,
           std::string(send ? "comm_src " : "comm_dst ") + std::to_string(send ? src : dst) +
               " is not this trace's rank " + std::to_string(r));
    }
    if (!n.attr(peer_key)) fail(r, i, std::string("no ") + peer_key + " attribute");
    if (peer < 0 || peer >= opt_.gpus) {
      fail(r, i,
           std::string(peer_key) + " " + std::to_string(peer) + " is not a rank (" +
               std::to_string(opt_.gpus) + " GPUs)");
    }
    if (peer == r) fail(r, i, std::string(peer_key) + " is the rank itself");
    const int64_t tag = attr(r, i, "comm_tag", 0);
    ranks_[r].ordinal[i] =
        p2p_count[{static_cast<uint32_t>(src), static_cast<uint32_t>(dst), tag}]++;
  }

  static void merge(std::vector<uint32_t>& into, const std::vector<uint32_t>& from) {
    into.insert(into.end(), from.begin(), from.end());
    std::sort(into.begin(), into.end());
    into.erase(std::unique(into.begin(), into.end()), into.end());
  }
  std::vector<uint32_t> deps_done(uint32_t r, uint32_t i) const {
    std::vector<uint32_t> after;
    for (const auto* list : {&node(r, i).data_deps, &node(r, i).ctrl_deps}) {
      for (uint64_t id : *list) merge(after, ranks_[r].done[ranks_[r].by_id.at(id)]);
    }
    return after;
  }

  void resolve(uint32_t r, uint32_t i, std::vector<uint32_t> done) {
    RankState& s = ranks_[r];
    s.done[i] = std::move(done);
    s.resolved[i] = 1;
    ++resolved_;
    for (uint32_t u : s.users[i])
      if (--s.waiting[u] == 0) ready_.emplace_back(r, u);
  }

  P2pKey p2p_key(uint32_t r, uint32_t i) const {
    // A send's comm_src and a receive's comm_dst default to the trace's own rank (check_comm).
    const auto src = static_cast<uint32_t>(attr(r, i, "comm_src", r));
    const auto dst = static_cast<uint32_t>(attr(r, i, "comm_dst", r));
    return {src, dst, attr(r, i, "comm_tag", 0), ranks_[r].ordinal[i]};
  }

  uint32_t pair_group(uint32_t src, uint32_t dst) {
    auto [it, fresh] = pairs_.try_emplace({src, dst}, 0);
    if (fresh) it->second = dag_.add_group({src, dst});
    return it->second;
  }

  void issue(uint32_t r, uint32_t i) {
    const chakra::Node& n = node(r, i);
    std::vector<uint32_t> after = deps_done(r, i);
    switch (n.type) {
      case chakra::kCompNode: {
        const int64_t ps = n.duration_micros == 0
                               ? kZeroDurationPs
                               : static_cast<int64_t>(n.duration_micros) * kPsPerMicro;
        resolve(r, i, {dag_.add_compute(r, ps, Phase::kOther, 0, after)});
        return;
      }
      case chakra::kCommSendNode: {
        const P2pKey key = p2p_key(r, i);
        DagCollective c;
        c.op = CollOp::kSend;
        c.size_bytes = attr(r, i, "comm_size", 0);
        c.group = pair_group(std::get<0>(key), std::get<1>(key));
        const uint32_t op = dag_.add_collective(c, Phase::kOther, 0, after);
        messages_[key] = {op, {r, i}};
        resolve(r, i, {op});
        if (auto it = receivers_.find(key); it != receivers_.end()) {
          const auto [rr, ri] = it->second;
          receivers_.erase(it);
          receive(rr, ri, key);
        }
        return;
      }
      case chakra::kCommRecvNode: {
        const P2pKey key = p2p_key(r, i);
        if (messages_.count(key) != 0)
          receive(r, i, key);
        else
          receivers_[key] = {r, i};
        return;
      }
      case chakra::kCommCollNode: {
        const std::string& pg = ranks_[r].group[i];
        Arrival& a = arrivals_[{pg, ranks_[r].ordinal[i]}];
        merge(a.after, after);
        a.nodes.emplace_back(r, i);
        if (++a.arrived == members_.at(pg).size()) collective(pg, a);
        return;
      }
      default:  // INVALID_NODE, METADATA_NODE: no work of their own
        resolve(r, i, std::move(after));
        return;
    }
  }

  void receive(uint32_t r, uint32_t i, const P2pKey& key) {
    const auto& [op, sender] = messages_.at(key);
    const int64_t sent = attr(sender.first, sender.second, "comm_size", 0);
    if (attr(r, i, "comm_size", 0) != sent) {
      fail(r, i,
           "receives comm_size " + std::to_string(attr(r, i, "comm_size", 0)) +
               " but its send, rank " + std::to_string(sender.first) + " " +
               chakra::node_label(node(sender.first, sender.second)) + ", sends " +
               std::to_string(sent));
    }
    std::vector<uint32_t> done = deps_done(r, i);
    merge(done, {op});
    matched_sends_.insert(key);
    resolve(r, i, std::move(done));
  }

  void collective(const std::string& pg, Arrival& a) {
    const auto [r0, i0] = a.nodes.front();
    const int64_t type = attr(r0, i0, "comm_type", -1);
    const int64_t size = attr(r0, i0, "comm_size", 0);
    for (const auto& [r, i] : a.nodes) {
      if (attr(r, i, "comm_type", -1) != type || attr(r, i, "comm_size", 0) != size) {
        fail(r, i,
             std::string("collective #") + std::to_string(ranks_[r].ordinal[i]) +
                 " of its group is " + chakra::collective_type_name(attr(r, i, "comm_type", -1)) +
                 " of " + std::to_string(attr(r, i, "comm_size", 0)) + " B, but rank " +
                 std::to_string(r0) + "'s " + chakra::node_label(node(r0, i0)) + " is " +
                 chakra::collective_type_name(type) + " of " + std::to_string(size) + " B");
      }
    }
    DagCollective c;
    c.algorithm = opt_.algorithm;
    c.protocol = opt_.protocol;
    c.group = group_index_.at(pg);
    c.size_bytes = size;
    switch (type) {
      case chakra::kAllReduce:
        c.op = CollOp::kAllReduce;
        break;
      case chakra::kReduceScatter:
        c.op = CollOp::kReduceScatter;
        break;
      case chakra::kAllToAll:
        c.op = CollOp::kAllToAll;
        break;
      default: {
        // ASTRA-sim's all-gather size is each NPU's input (Sys::generate_all_gather, as the
        // text importer takes it); the DAG's is the gathered total (workload/collective.h).
        c.op = CollOp::kAllGather;
        const auto members = static_cast<int64_t>(members_.at(pg).size());
        if (size > std::numeric_limits<int64_t>::max() / members) {
          fail(r0, i0, "all-gather size overflows");
        }
        c.size_bytes = size * members;
      }
    }
    const uint32_t op = dag_.add_collective(c, Phase::kOther, 0, a.after);
    for (const auto& [r, i] : a.nodes) resolve(r, i, {op});
  }

  void replay() {
    size_t total = 0;
    for (uint32_t r = 0; r < opt_.gpus; ++r) {
      total += trace(r).nodes.size();
      for (uint32_t i = 0; i < trace(r).nodes.size(); ++i)
        if (ranks_[r].waiting[i] == 0) ready_.emplace_back(r, i);
    }
    while (!ready_.empty()) {
      const auto [r, i] = ready_.front();
      ready_.pop_front();
      issue(r, i);
    }
    // A send nobody receives would move bytes the trace never uses: refused, not dropped.
    for (const auto& [key, m] : messages_) {
      if (matched_sends_.count(key) == 0) {
        fail(m.second.first, m.second.second,
             "a send to rank " + std::to_string(std::get<1>(key)) + " (tag " +
                 std::to_string(std::get<2>(key)) + ") that rank's trace never receives");
      }
    }
    if (resolved_ == total) return;
    // Stuck: name the first node (rank order, file order) that was issued but never completed.
    for (const auto& [key, at] : receivers_) {
      fail(at.first, at.second,
           "a receive from rank " + std::to_string(std::get<0>(key)) + " (tag " +
               std::to_string(std::get<2>(key)) + ") that no send of that rank's trace matches");
    }
    for (const auto& [key, a] : arrivals_) {
      const std::vector<uint32_t>& members = members_.at(key.first);
      std::set<uint32_t> in;
      for (const auto& ri : a.nodes) in.insert(ri.first);
      uint32_t missing = 0;
      for (uint32_t m : members)
        if (in.count(m) == 0) {
          missing = m;
          break;
        }
      const auto [r, i] = a.nodes.front();
      fail(r, i,
           "collective #" + std::to_string(key.second) + " of process group '" + key.first +
               "' waits for rank " + std::to_string(missing) +
               ", which never issues its match (its trace has fewer, or they wait on each "
               "other)");
    }
    for (uint32_t r = 0; r < opt_.gpus; ++r)
      for (uint32_t i = 0; i < trace(r).nodes.size(); ++i)
        if (!ranks_[r].resolved[i]) fail(r, i, "never becomes ready (a cross-rank deadlock)");
  }

  const std::vector<chakra::Trace>& traces_;
  ChakraOptions opt_;
  Dag dag_;
  std::vector<RankState> ranks_;
  std::map<std::string, std::vector<uint32_t>> members_;
  std::map<std::string, uint32_t> group_index_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> pairs_;
  std::deque<std::pair<uint32_t, uint32_t>> ready_;
  std::map<P2pKey, std::pair<uint32_t, std::pair<uint32_t, uint32_t>>> messages_;
  std::set<P2pKey> matched_sends_;
  std::map<P2pKey, std::pair<uint32_t, uint32_t>> receivers_;
  std::map<std::pair<std::string, int64_t>, Arrival> arrivals_;
  size_t resolved_ = 0;
};

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

std::string chakra_rank_file(const std::string& prefix, uint32_t rank) {
  return prefix + "." + std::to_string(rank) + ".et";
}

Dag import_chakra(const std::string& prefix, const ChakraOptions& opt) {
  if (opt.gpus == 0) throw ImportError(prefix, 0, kKey, "no GPUs to run the trace on");
  std::vector<chakra::Trace> traces;
  traces.reserve(opt.gpus);
  for (uint32_t r = 0; r < opt.gpus; ++r) {
    const std::string file = chakra_rank_file(prefix, r);
    if (!exists(file)) {
      throw ImportError(file, 0, kKey,
                        "missing: the scenario has " + std::to_string(opt.gpus) +
                            " GPUs, so the trace needs " + chakra_rank_file(prefix, 0) + " .. " +
                            chakra_rank_file(prefix, opt.gpus - 1));
    }
    traces.push_back(chakra::read_trace(file, kKey));
  }
  if (const std::string extra = chakra_rank_file(prefix, opt.gpus); exists(extra)) {
    throw ImportError(
        extra, 0, kKey,
        "the trace has more ranks than the scenario's " + std::to_string(opt.gpus) + " GPUs");
  }
  const size_t slash = prefix.rfind('/');
  return build_chakra_dag(traces, opt,
                          slash == std::string::npos ? prefix : prefix.substr(slash + 1));
}

Dag build_chakra_dag(const std::vector<chakra::Trace>& traces, const ChakraOptions& opt,
                     const std::string& name) {
  return Joiner(traces, opt, name).build();
}

}  // namespace fabricsim::workload
