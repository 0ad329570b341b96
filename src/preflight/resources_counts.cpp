#include "preflight/resources_counts.h"

#include <algorithm>
#include <vector>

#include "preflight/resources_gpu.h"
#include "workload/size_distributions.h"
#include "workload/workload.h"

namespace fabricsim::scenario::preflight {

Traffic traffic_of(const Scenario& sc, int64_t n) {
  const workload::WorkloadSpec& w = sc.workload;
  Traffic t;
  if (sc.node.gpus_per_node > 0) {
    // GPU runs (preflight/resources_gpu.h): transport messages of the collectives; a connection
    // per NCCL channel and (source NIC, destination NIC) pair at most, and per channel and GPU
    // pair whose transfers cross the fabric (its collectives' rings, trees and P2P pairs).
    const GpuTraffic g = gpu_traffic(sc);
    t.messages = g.messages;
    t.total_bytes = g.total_bytes;
    t.max_message_bytes = g.max_message_bytes;
    // Every NIC pair on each of NCCL's at most 128 channel connections (64 channels, a tree's
    // second copy c + nChannels) bounds it when the pairs are not counted.
    t.qps = std::min(Checked{"hosts.count"}.mul(n, n - 1, 128), std::max<int64_t>(g.messages, 1));
    if (g.pairs >= 0) t.qps = std::min(t.qps, std::max<int64_t>(g.pairs, 1));
    if (g.live_messages >= 0) t.live_messages = std::min(g.live_messages, g.messages);
    return t;
  }
  const int64_t pairs = Checked{"hosts.count"}.mul(n, n - 1);
  if (w.kind == workload::WorkloadKind::kCollective) {
    // Ring all-reduce (workload.cpp): 2(n-1) steps, each chunk of ceil(S/n) bytes cut into
    // ceil(chunk/slice) slices, one message per (rank, step, slice), all kept as Message
    // records until the end.
    const Checked c{"workload.slice"};
    const int64_t chunk = (w.size_bytes + n - 1) / n;
    const int64_t slices = (chunk + w.slice_bytes - 1) / w.slice_bytes;
    t.messages = c.mul(n, c.mul(2, n - 1), slices);
    // A slice is posted to the next step only once delivered, so at any moment each rank has
    // at most one message per slice outstanding: n x ceil(S/n) bytes in n x slices messages.
    t.total_bytes = Checked{"workload.size"}.mul(n, chunk);
    t.inflight_messages = c.mul(n, slices);
    t.max_message_bytes = std::min(chunk, w.slice_bytes);
    t.qps = n;
    return t;
  }
  switch (w.pattern) {
    case workload::PatternKind::kPermutation:
    case workload::PatternKind::kGroupShift:  // also one flow per NIC
      t.messages = n;
      t.qps = n;
      t.max_message_bytes = w.flow_size_bytes;
      break;
    case workload::PatternKind::kIncast:
      t.messages = w.incast_senders;
      t.qps = w.incast_senders;
      t.max_message_bytes = w.flow_size_bytes;
      break;
    case workload::PatternKind::kAllToAll:
      t.messages = pairs;
      t.qps = pairs;
      t.max_message_bytes = w.flow_size_bytes;
      break;
    case workload::PatternKind::kFlows:
      t.messages = static_cast<int64_t>(w.flows.size());
      t.explicit_flows = t.messages;
      t.sorted = true;
      // Distinct (src, dst, sl) pairs are at most the flows themselves; counting them exactly
      // would need a set as large as the list.
      t.qps = std::min(t.messages, pairs * 16);
      for (const workload::ExplicitFlow& f : w.flows) {
        t.total_bytes = Checked{"workload.flows"}.add(t.total_bytes, f.size_bytes);
        t.max_message_bytes = std::max(t.max_message_bytes, f.size_bytes);
      }
      break;
    case workload::PatternKind::kPingPong: {
      // workload/ping_pong.h: 2 x (iterations + warmup) messages per pair, one QP each way.
      const workload::PingPongSpec& pp = w.ping_pong;
      const int64_t pp_pairs = static_cast<int64_t>(pp.pairs.size() / 2);
      t.messages = Checked{"workload.ping_pong.iterations"}.mul(
          2 * pp_pairs, static_cast<int64_t>(pp.iterations) + pp.warmup);
      t.qps = 2 * pp_pairs;
      t.max_message_bytes = pp.size_bytes;
      t.total_bytes = Checked{"workload.ping_pong.size"}.mul(t.messages, pp.size_bytes);
      break;
    }
    case workload::PatternKind::kPoisson: {
      // workload.cpp: each NIC a Poisson process of rate load x line rate / (8 x mean size) over
      // the duration; the count is Poisson with mean m, so m + 4 sqrt(m) + 1 exceeds it except
      // with probability ~3e-5 (normal tail at 4 sigma).
      const double mean = static_cast<double>(n) * w.load * static_cast<double>(sc.link.rate_bps) *
                          (static_cast<double>(w.duration_ps) * 1e-12) / (8.0 * workload::mean_size(w));
      t.messages = Checked{"workload.duration"}.of(mean + 4.0 * std::sqrt(mean) + 1.0);
      t.sorted = true;
      t.qps = std::min(t.messages, pairs);
      t.max_message_bytes = workload::largest_flow_size(w);
      t.total_bytes =
          Checked{"workload.duration"}.of(static_cast<double>(t.messages) * workload::mean_size(w));
      break;
    }
  }
  if (w.pattern != workload::PatternKind::kFlows && w.pattern != workload::PatternKind::kPoisson &&
      w.pattern != workload::PatternKind::kPingPong) {
    t.total_bytes = Checked{"workload.flow_size"}.mul(t.messages, w.flow_size_bytes);
  }
  t.planned = t.messages;
  return t;
}


// The keys the workload's parts (workload, transport, flow records) grow with, most direct
// first: what a refusal names when the file sets them.
std::vector<std::string> workload_drivers(const Scenario& sc) {
  if (!sc.jobs.empty() && sc.node.gpus_per_node > 0) return {"jobs", "node.gpus_per_node"};
  if (sc.workload.kind == workload::WorkloadKind::kTraining) {
    if (sc.training.source != workload::TrainingSource::kTransformer) {
      return {"training.file", "hosts.count", "node.gpus_per_node", "training.steps"};
    }
    // The generator's ops: GPUs x layers x micro-batches (transformer_ops_estimate), x steps.
    return {"hosts.count",          "node.gpus_per_node", "training.layers",
            "training.micro_batches", "training.global_batch", "training.steps",
            "training.tp",          "training.pp",        "training.dp",
            "scaling.nodes"};
  }
  if (sc.node.gpus_per_node > 0) {
    return {"workload.size", "workload.max_size", "hosts.count", "node.gpus_per_node"};
  }
  if (sc.workload.kind == workload::WorkloadKind::kCollective) {
    return {"workload.slice", "workload.size", "hosts.count"};  // messages: size / slice
  }
  if (sc.workload.pattern == workload::PatternKind::kFlows) return {"workload.flows"};
  if (sc.workload.pattern == workload::PatternKind::kPoisson) {
    return {"workload.duration", "workload.load", "hosts.count", "workload.flow_size"};
  }
  return {"workload.pattern", "workload.flow_size", "hosts.count"};
}

// The keys the fabric's parts (topology, routing, events) grow with.
const std::vector<std::string>& fabric_drivers() {
  static const std::vector<std::string> keys{"hosts.count", "hosts.nics_per_host",
                                             "topology.radix", "topology.tiers"};
  return keys;
}

}  // namespace fabricsim::scenario::preflight
