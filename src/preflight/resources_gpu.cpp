#include "preflight/resources_gpu.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <optional>
#include <stdexcept>
#include <vector>

#include "node/rank_transport.h"
#include "preflight/resources_counts.h"
#include "node/spec.h"
#include "workload/astra_import.h"
#include "workload/chakra_import.h"
#include "workload/collective_engine.h"
#include "workload/transformer.h"

namespace fabricsim::scenario {
namespace {

// Training DAGs up to this many ops are built to be counted exactly (the GPT-3 175B step on
// 1,024 GPUs is 2.1 M ops, 0.24 s and ~325 MB); larger ones are bounded in closed form.
constexpr int64_t kBuildToCountOps = int64_t{1} << 24;
// An imported workload is built to be counted only below this bound of its ops (astra_ops_bound
// overestimates, and an importer's groups and dependency lists cost more per op than the
// generator's): 2^22 ops is ~650 MB at the generator's ~155 B per op.
constexpr int64_t kBuildImportToCountOps = int64_t{1} << 22;

// The machine as CollectiveEngine::resolve sees it (it asks only for GPUs per node and path
// rates), in closed form: NVLink x efficiency inside a node, the slower of the NIC and PCIe
// across nodes. Lets the estimate resolve `auto` to the algorithm, protocol and channels the run
// will use without building the fabric.
class ClosedFormRanks final : public node::RankTransport {
 public:
  ClosedFormRanks(const Scenario& sc, uint32_t gpus)
      : gpus_(gpus),
        gpn_(static_cast<uint32_t>(sc.node.gpus_per_node)),
        view_(node::nccl_view(sc.node, sc.link.rate_bps, sc.topology.nics_per_host)),
        weighted_net_(sc.mode == EngineMode::kFlow) {
    nvlink_ = static_cast<double>(sc.node.nvlink_rate_bps) / 8.0 * sc.node.nvlink_efficiency;
    net_ = std::min(static_cast<double>(sc.link.rate_bps),
                    node::pcie_rate_bps(sc.node, sc.node.pcie_lanes)) /
           8.0;
    // node::GpuNet's test in closed form, never true where GpuNet's is false (so the estimate
    // never counts fewer messages than the run posts): GPUDirect, and PCIe (switch links and
    // uplinks) and NVLink (PXN relays) at least at the line rate, above the payload rate.
    const double line = static_cast<double>(sc.link.rate_bps);
    keeps_up_ = weighted_net_ && sc.node.gpudirect &&
                node::pcie_rate_bps(sc.node, sc.node.pcie_lanes) >= line &&
                node::pcie_rate_bps(sc.node, sc.node.pcie_uplink_lanes) >= line &&
                nvlink_ * 8.0 >= line;
  }
  void send(uint32_t, uint32_t, int64_t, uint64_t, int64_t, uint64_t, int32_t, uint32_t,
            node::FoldedStream) override {}
  // As node::GpuNet: rings on one node fold their channels (collective.fold_channels), so the
  // estimate counts the messages the run will post.
  bool weighted_sends() const override { return true; }
  // As node::GpuNet in flow mode: the folded ring crosses nodes as one message.
  bool weighted_net_sends() const override { return weighted_net_; }
  // As node::GpuNet: a P2P stream crosses nodes as one message (collective.fold_p2p).
  bool stages_keep_up_with_nic() const override { return keeps_up_; }
  void timer(int64_t, uint64_t) override {}
  int64_t now_ps() const override { return 0; }
  uint32_t gpus() const override { return gpus_; }
  uint32_t gpus_per_node() const override { return gpn_; }
  int64_t idle_transfer_ps(uint32_t a, uint32_t b, int64_t bytes) const override {
    return static_cast<int64_t>(static_cast<double>(bytes) / path_rate_bytes_per_s(a, b) * 1e12);
  }
  double path_rate_bytes_per_s(uint32_t a, uint32_t b) const override {
    return a / gpn_ == b / gpn_ ? nvlink_ : net_;
  }
  node::NcclView nccl_view() const override { return view_; }

 private:
  uint32_t gpus_, gpn_;
  node::NcclView view_;
  bool weighted_net_;
  bool keeps_up_ = false;
  double nvlink_ = 0, net_ = 0;
};

// The bytes those messages carry across the fabric, by the same cut: a ring moves
// 2(g-1)/g x S (all-reduce; counted high for the one-pass ops) over each of `nodes` node
// boundaries, a tree 2 x S over each of its nodes - 1 edges (half up and half down in each of
// two trees), the others S up and down through each node, P2P its remote pairs' shares.
int64_t collective_net_bytes(const workload::CollectiveRecord& r, int64_t g, int64_t nodes,
                             int64_t gpn) {
  if (nodes < 2 || g < 2) return 0;
  const int64_t size = std::max<int64_t>(r.size_bytes, 1);
  using workload::CollOp;
  if (r.op == CollOp::kAllToAll) return g * (g - gpn) * std::max<int64_t>(1, size / g);
  if (r.op == CollOp::kSend || r.op == CollOp::kSendRecv) return g * size;
  if (r.algorithm == workload::CollAlgorithm::kRing) return nodes * 2 * (g - 1) * (size / g);
  if (r.algorithm == workload::CollAlgorithm::kTree) return 2 * (nodes - 1) * size;
  return nodes * 4 * size;
}

// The transport connections whose transfers cross the fabric. Packet and hybrid modes open
// one per NCCL channel and peer (Transport::post_channel): a ring's node boundaries per channel,
// a tree's edges up and down in two trees per channel (channels c and c + nChannels), the other
// algorithms' up and down per node and channel, P2P every remote pair on each of its channels.
// Flow mode keeps one per NIC pair (engine/flow/flow_transport.h): each of those node-to-node
// edges joins one of the group's at most `per_node` GPUs on either side, so it has at most
// per_node^2 distinct pairs however many channels cross it.
int64_t collective_pairs(const workload::CollectiveRecord& r, int64_t g, int64_t nodes,
                         int64_t gpn, int64_t per_node, bool per_channel) {
  if (nodes < 2 || g < 2) return 0;
  const int64_t channels = std::max(1, r.channels);
  const int64_t c = per_channel ? channels : std::min<int64_t>(channels, per_node * per_node);
  const int64_t p2p = per_channel ? channels : 1;
  using workload::CollOp;
  if (r.op == CollOp::kAllToAll) return g * (g - gpn) * p2p;
  if (r.op == CollOp::kSend || r.op == CollOp::kSendRecv) return g * p2p;
  if (r.algorithm == workload::CollAlgorithm::kRing) return nodes * c;
  if (r.algorithm == workload::CollAlgorithm::kTree) return 4 * (nodes - 1) * c;
  return nodes * 4 * c;
}

// One job's machine and collective engine: resolves a collective's `auto` choices (algorithm,
// protocol, channels) as the run will.
class JobResolver {
 public:
  JobResolver(const Scenario& sc, int64_t gpus)
      : machine_(sc, static_cast<uint32_t>(gpus)),
        engine_(machine_, sc.collective),
        per_channel_(sc.mode != EngineMode::kFlow) {}
  JobResolver(const JobResolver&) = delete;  // engine_ holds a reference to machine_
  JobResolver& operator=(const JobResolver&) = delete;

  workload::CollectiveRecord resolve(workload::CollOp op, workload::CollAlgorithm a,
                                     workload::Protocol p, int channels, int64_t size_bytes,
                                     const std::vector<uint32_t>& ranks) const {
    return engine_.resolve(spec(op, a, p, channels, size_bytes, ranks, 0));
  }
  // The collective's messages across the fabric and their credit windows, from its plan.
  workload::CollectiveEngine::CrossNodeTraffic traffic(workload::CollOp op,
                                                      workload::CollAlgorithm a,
                                                      workload::Protocol p, int channels,
                                                      int64_t size_bytes,
                                                      const std::vector<uint32_t>& ranks,
                                                      int root) const {
    return engine_.cross_node_traffic(spec(op, a, p, channels, size_bytes, ranks, root));
  }
  const workload::CollectiveConfig& config() const { return engine_.config(); }
  // Whether the run opens a transport connection per NCCL channel (not in flow mode).
  bool per_channel() const { return per_channel_; }

 private:
  static workload::CollectiveSpec spec(workload::CollOp op, workload::CollAlgorithm a,
                                       workload::Protocol p, int channels, int64_t size_bytes,
                                       const std::vector<uint32_t>& ranks, int root) {
    workload::CollectiveSpec cs;
    cs.op = op;
    cs.algorithm = a;
    cs.protocol = p;
    cs.channels = channels;
    cs.size_bytes = size_bytes;
    cs.ranks = ranks;
    cs.root = root;
    return cs;
  }
  ClosedFormRanks machine_;
  workload::CollectiveEngine engine_;
  bool per_channel_ = true;
};

// A collective workload (or an nccl-tests sweep, one size at a time) over all `g` GPUs of the
// job. Returns the plan bytes of its largest size: only one size runs at a time.
int64_t add_collective_sweep(const workload::WorkloadSpec& w, const JobResolver& engine, int64_t g,
                             int64_t nodes, int64_t gpn, GpuTraffic& t) {
  std::vector<uint32_t> all(static_cast<size_t>(g));
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  int64_t sweep_plan_bytes = 0;
  int64_t sweep_pairs = 0;  // the same GPUs at every size: the largest size's pairs
  int64_t sweep_window = 0;  // one size at a time: the largest size's live messages
  for (int64_t s = w.size_bytes;; s *= w.step_factor) {
    const workload::CollectiveRecord r =
        engine.resolve(w.op, w.algorithm, w.protocol, w.channels, s, all);
    const auto cross = engine.traffic(w.op, w.algorithm, w.protocol, w.channels, s, all, w.root);
    t.messages += cross.messages;
    t.node_messages += cross.node_messages;
    t.net_bytes += collective_net_bytes(r, g, nodes, gpn);
    sweep_pairs = std::max(sweep_pairs, collective_pairs(r, g, nodes, gpn, gpn, engine.per_channel()));
    sweep_window = std::max(sweep_window, cross.window);
    t.total_bytes += s;
    t.max_message_bytes = std::max(t.max_message_bytes, std::min<int64_t>(s, 1 << 20));
    ++t.collectives;
    sweep_plan_bytes = std::max(sweep_plan_bytes, cross.plan_bytes);
    if (w.max_size_bytes <= 0 || s > w.max_size_bytes / w.step_factor) break;
  }
  if (t.pairs >= 0) t.pairs += sweep_pairs;
  if (t.live_messages >= 0) t.live_messages += sweep_window;
  return sweep_plan_bytes;
}

// A DAG too large to build, counted from its bound of `ops` per step.
void count_bound(int64_t ops, int64_t steps, GpuTraffic& t) {
  t.dag_ops += steps * ops;
  t.dag_deps += steps * 2 * ops;
  t.messages += steps * ops;  // at most a message per op and channel-slice: a bound
  t.collectives += steps * ops;
  t.total_bytes = std::max<int64_t>(t.total_bytes, 1);
  t.bounded = true;
  t.pairs = -1;  // not counted: every NIC pair
  t.live_messages = -1;  // not counted: every message
}

// The job's training DAG, imported or generated. A generated step too large to build
// (kBuildToCountOps) comes as two smaller ones instead (`shape`, `shape_micro_batches`): the same
// step with the fewest micro-batches the schedule allows (1, or pp when interleaved) and with
// twice that. They have the same communicators, collectives and sizes (a micro-batch's
// activations, the buckets' gradients) and every count of the step is linear in its
// micro-batches (each adds the same compute ops, TP collectives and pipeline sends; the
// gradient reduction and the optimizer are once per step), so the full step's counts are the
// line through the two (add_scaled_traffic). Without such a pair (an imported workload, or a
// step whose single micro-batch is itself too large) it is counted from its upper bound.
struct TrainingDag {
  std::optional<workload::Dag> dag;
  std::optional<workload::Dag> shape[2];
  int64_t shape_micro_batches[2] = {0, 0};
  int64_t micro_batches = 0;  // the full step's
};
TrainingDag training_dag(const JobSpec& job, int64_t g, int64_t gpn, int64_t build_limit,
                         GpuTraffic& t) {
  const int64_t steps = std::max(1, job.training.steps);
  TrainingDag out;
  if (job.training.source == workload::TrainingSource::kAstra) {
    workload::AstraOptions opt;
    opt.gpus = static_cast<uint32_t>(g);
    opt.gpus_per_node = static_cast<uint32_t>(gpn);
    opt.clock_hz = static_cast<int64_t>(job.training.clock_ghz * 1e9 + 0.5);
    // Sized before it is expanded: a large imported workload is bounded from its records.
    const int64_t bound = workload::astra_ops_bound(job.training.file, opt);
    if (bound <= kBuildImportToCountOps) {
      out.dag = workload::import_astra(job.training.file, opt);
    } else {
      count_bound(bound, steps, t);
    }
    return out;
  }
  if (job.training.source == workload::TrainingSource::kChakra) {
    // Built whole: a trace's nodes are already in memory once its files are read (each node is
    // at most one op), so there is nothing smaller to count from.
    workload::ChakraOptions opt;
    opt.gpus = static_cast<uint32_t>(g);
    out.dag = workload::import_chakra(job.training.file, opt);
    return out;
  }
  const workload::TransformerSpec& spec = job.training.transformer;
  const auto gpus = static_cast<uint32_t>(g);
  workload::check_transformer(spec, gpus);
  // Counting by building the DAG costs what the run's DAG costs: above ~16 M ops (GBs)
  // the estimate builds the two small steps instead, or takes the generator's upper bound, so
  // a step too large for the machine is refused before anything that large is allocated.
  const int64_t bound = workload::transformer_ops_estimate(spec, gpus);
  if (bound <= build_limit) {
    out.dag = workload::make_transformer_step(spec, gpus).dag;
    return out;
  }
  const int64_t dp = spec.dp > 0 ? spec.dp : g / (int64_t{spec.tp} * spec.pp);
  out.micro_batches = spec.global_batch > 0 ? spec.global_batch / (int64_t{spec.micro_batch} * dp)
                                            : spec.micro_batches;
  const int64_t least = spec.virtual_stages > 1 ? std::max(spec.pp, 1) : 1;
  workload::TransformerSpec shape = spec;
  shape.global_batch = 0;
  shape.micro_batches = static_cast<int>(2 * least);
  if (out.micro_batches < 2 * least ||
      workload::transformer_ops_estimate(shape, gpus) > build_limit) {
    count_bound(bound, steps, t);
    return out;
  }
  for (int k = 0; k < 2; ++k) {
    shape.micro_batches = static_cast<int>((k + 1) * least);
    workload::check_transformer(shape, gpus);
    out.shape[k] = workload::make_transformer_step(shape, gpus).dag;
    out.shape_micro_batches[k] = shape.micro_batches;
  }
  return out;
}

// The distinct nodes of a group of job-local ranks (rank / GPUs per node), and the most of the
// group's ranks on any one node.
struct GroupNodes {
  int64_t nodes = 0;
  int64_t per_node = 0;
};
GroupNodes group_nodes_of(const std::vector<uint32_t>& group, int64_t gpn) {
  GroupNodes out;
  std::vector<int64_t> ns;
  for (uint32_t r : group) ns.push_back(r / gpn);
  std::sort(ns.begin(), ns.end());
  int64_t run = 0;
  for (size_t i = 0; i < ns.size(); ++i) {
    run = i > 0 && ns[i] == ns[i - 1] ? run + 1 : 1;
    out.nodes += run == 1;
    out.per_node = std::max(out.per_node, run);
  }
  return out;
}

// Every collective of a training DAG, `steps` times; the workload's algorithm and protocol stand
// in for the DAG's `auto`. A communicator runs its collectives one at a time, in every step
// (workload/training.h: NCCL's one stream per process group), so what is live at once is per
// communicator its largest collective's plan and credit windows, summed over communicators.
void add_dag_traffic(const workload::Dag& dag, int64_t steps, const workload::WorkloadSpec& w,
                     const JobResolver& engine, int64_t gpn, GpuTraffic& t) {
  std::vector<int64_t> group_plan_bytes(dag.groups.size(), 0);
  std::vector<int64_t> group_window(dag.groups.size(), 0);
  std::vector<int64_t> group_pairs(dag.groups.size(), 0);  // a communicator reuses its pairs
  // A step repeats its collectives over the same communicators and sizes: one plan built per
  // distinct (communicator, op, size, root).
  std::map<std::tuple<uint32_t, workload::CollOp, int64_t, int>,
           workload::CollectiveEngine::CrossNodeTraffic>
      plans;
  t.dag_ops += steps * static_cast<int64_t>(dag.ops.size());
  t.dag_deps += steps * static_cast<int64_t>(dag.deps.size());
  for (const workload::DagOp& op : dag.ops) {
    if (op.kind != workload::DagOp::Kind::kCollective) continue;
    const workload::DagCollective& c = dag.collectives[op.collective];
    const std::vector<uint32_t>& group = dag.groups[c.group];
    const GroupNodes spread = group_nodes_of(group, gpn);
    const int64_t group_nodes = spread.nodes;
    if (group.size() < 2 || c.size_bytes <= 0) continue;  // the engine runs none
    // Group ranks are job-local: the machine's GPUs 0 .. g-1 in the same layout.
    const workload::CollectiveRecord r = engine.resolve(
        c.op, c.algorithm == workload::CollAlgorithm::kAuto ? w.algorithm : c.algorithm,
        c.protocol == workload::Protocol::kAuto ? w.protocol : c.protocol, w.channels, c.size_bytes,
        group);
    const auto key = std::make_tuple(c.group, c.op, c.size_bytes, c.root);
    auto it = plans.find(key);
    if (it == plans.end()) {
      it = plans
               .emplace(key, engine.traffic(c.op, r.algorithm, r.protocol, r.channels,
                                            c.size_bytes, group, c.root))
               .first;
    }
    t.messages += steps * it->second.messages;
    t.node_messages += steps * it->second.node_messages;
    t.net_bytes +=
        steps * collective_net_bytes(r, static_cast<int64_t>(group.size()), group_nodes, gpn);
    t.total_bytes += c.size_bytes;
    t.collectives += steps;
    t.max_message_bytes = std::max(t.max_message_bytes, std::min<int64_t>(c.size_bytes, 1 << 20));
    group_pairs[c.group] =
        std::max(group_pairs[c.group],
                 collective_pairs(r, static_cast<int64_t>(group.size()), group_nodes, gpn,
                                  spread.per_node, engine.per_channel()));
    group_plan_bytes[c.group] = std::max(group_plan_bytes[c.group], it->second.plan_bytes);
    group_window[c.group] = std::max(group_window[c.group], it->second.window);
  }
  for (size_t g = 0; g < dag.groups.size(); ++g) {
    t.plan_bytes += group_plan_bytes[g];
    if (t.live_messages >= 0) t.live_messages += group_window[g];
    if (t.pairs >= 0) t.pairs += group_pairs[g];
  }
}

// The full step of `d` from its two small ones: every count on the line through theirs at the
// step's micro-batches, what is live at once (the same communicators and sizes) as in either.
void add_scaled_traffic(const TrainingDag& d, int64_t steps, const workload::WorkloadSpec& w,
                        const JobResolver& engine, int64_t gpn, GpuTraffic& t) {
  GpuTraffic a, b;
  add_dag_traffic(*d.shape[0], steps, w, engine, gpn, a);
  add_dag_traffic(*d.shape[1], steps, w, engine, gpn, b);
  const int64_t m0 = d.shape_micro_batches[0];
  const int64_t span = d.shape_micro_batches[1] - m0;
  const Checked c{"training.global_batch"};
  auto line = [&](int64_t x0, int64_t x1) {
    if ((x1 - x0) % span != 0 || x1 < x0) {
      throw std::logic_error("pre-flight: a training step's counts are not linear in its "
                             "micro-batches");
    }
    return c.add(x0, c.mul((x1 - x0) / span, d.micro_batches - m0));
  };
  t.messages = c.add(t.messages, line(a.messages, b.messages));
  t.node_messages = c.add(t.node_messages, line(a.node_messages, b.node_messages));
  t.net_bytes = c.add(t.net_bytes, line(a.net_bytes, b.net_bytes));
  t.total_bytes = c.add(t.total_bytes, line(a.total_bytes, b.total_bytes));
  t.collectives = c.add(t.collectives, line(a.collectives, b.collectives));
  t.dag_ops = c.add(t.dag_ops, line(a.dag_ops, b.dag_ops));
  t.dag_deps = c.add(t.dag_deps, line(a.dag_deps, b.dag_deps));
  t.max_message_bytes = std::max({t.max_message_bytes, a.max_message_bytes, b.max_message_bytes});
  t.plan_bytes += std::max(a.plan_bytes, b.plan_bytes);
  if (t.live_messages >= 0) t.live_messages += std::max(a.live_messages, b.live_messages);
  if (t.pairs >= 0) t.pairs += std::max(a.pairs, b.pairs);
}

}  // namespace

GpuTraffic gpu_traffic(const Scenario& sc) { return gpu_traffic(sc, kBuildToCountOps); }

GpuTraffic gpu_traffic(const Scenario& sc, int64_t build_limit) {
  GpuTraffic t;
  const int64_t gpn = sc.node.gpus_per_node;
  std::vector<JobSpec> jobs = sc.jobs;
  if (jobs.empty()) {
    JobSpec all;
    all.nodes = sc.topology.hosts;
    all.workload = sc.workload;
    all.training = sc.training;
    jobs.push_back(all);
  }
  for (const JobSpec& job : jobs) {
    const int64_t g = int64_t{job.nodes} * gpn;
    const JobResolver engine(sc, g);
    const workload::WorkloadSpec& w = job.workload;
    if (w.kind == workload::WorkloadKind::kCollective) {
      t.plan_bytes += add_collective_sweep(w, engine, g, job.nodes, gpn, t);
    } else if (w.kind == workload::WorkloadKind::kTraining) {
      const TrainingDag dag = training_dag(job, g, gpn, build_limit, t);
      const int64_t steps = std::max(1, job.training.steps);
      if (dag.dag) add_dag_traffic(*dag.dag, steps, w, engine, gpn, t);
      if (dag.shape[0]) add_scaled_traffic(dag, steps, w, engine, gpn, t);
    }
  }
  return t;
}

}  // namespace fabricsim::scenario
