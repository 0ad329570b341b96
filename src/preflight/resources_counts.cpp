#include "preflight/resources_counts.h"

#include <algorithm>
#include <vector>

#include "preflight/resources_gpu.h"
#include "topo/file_topology.h"
#include "topo/topology.h"
#include "workload/workload.h"

namespace fabricsim::scenario::preflight {
namespace {

// topology.kind: file: the counts of the file itself (topo/file_topology.h), read, not built.
Shape file_shape_of(const topo::TopologySpec& t) {
  const topo::TopologyFile f = topo::read_topology_file(t.file, "topology.file");
  Shape s;
  s.nics = f.nics();
  s.switches = f.switches();
  s.cables = static_cast<int64_t>(f.links.size());
  std::vector<int64_t> degree(f.nodes.size(), 0);
  std::vector<char> leaf(f.nodes.size(), 0);
  for (const topo::FileLink& l : f.links) {
    ++degree[l.a];
    ++degree[l.b];
    if (!f.nodes[l.a].is_switch) leaf[l.b] = 1;
    if (!f.nodes[l.b].is_switch) leaf[l.a] = 1;
  }
  for (size_t n = 0; n < f.nodes.size(); ++n) {
    if (f.nodes[n].is_switch) s.radix = std::max(s.radix, degree[n]);
    s.leaves += leaf[n];
  }
  s.up = s.radix;
  return s;
}

}  // namespace

Shape shape_of(const topo::TopologySpec& t) {
  if (t.kind == topo::TopologyKind::kFile) return file_shape_of(t);
  if (t.kind == topo::TopologyKind::kDragonfly) {
    // topo/dragonfly.cpp's closed forms: a·g switches (every one a leaf), p·a·g NICs,
    // g·a·(a-1)/2 local and g·a·h/2 global cables, radix p + a - 1 + h.
    const topo::DragonflyShape d = topo::dragonfly_shape(t);
    Shape s;
    s.nics = d.nics();
    s.switches = d.switches();
    s.leaves = s.switches;
    s.cables = int64_t{s.nics} + d.local_links() + d.global_links();
    s.radix = d.p + d.a - 1 + d.h;
    s.up = d.a - 1 + d.h;
    return s;
  }
  const Checked c{"hosts.count"};
  Shape s;
  s.radix = t.radix;
  s.nics = c.mul(t.hosts, t.nics_per_host);
  const int64_t down = std::llround(t.radix * t.oversubscription / (t.oversubscription + 1.0));
  s.up = t.radix - down;
  s.leaves = (s.nics + down - 1) / down;
  if (t.kind == topo::TopologyKind::kRail) {
    // topo/rail.cpp: ceil(nodes / down) leaves per rail; spines: the smallest divisor of `up`
    // >= ceil(leaves x up / radix); every leaf's `up` uplinks cabled (up / spines parallel
    // cables to each spine).
    s.leaves = c.mul(t.nics_per_host, (int64_t{t.hosts} + down - 1) / down);
    const int64_t uplinks = c.mul(s.leaves, s.up);
    int64_t spines = (uplinks + t.radix - 1) / t.radix;
    while (spines < s.up && s.up % spines != 0) ++spines;  // a refused shape may pass `up`
    if (t.upper_tiers == topo::UpperTiers::kFull) spines = s.up;
    s.switches = s.leaves + spines;
    s.cables = c.add(s.nics, uplinks);
  } else if (t.tiers == 2) {
    // topo/fat_tree.cpp: spines = the smallest divisor of `up` >= ceil(leaves x up / radix),
    // every leaf's `up` uplinks cabled (up / spines parallel cables to each spine).
    s.switches = s.leaves + (t.upper_tiers == topo::UpperTiers::kFull
                                 ? s.up
                                 : topo::detail::fewest_top_switches(
                                       s.leaves, static_cast<int>(s.up), t.radix));
    s.cables = c.add(s.nics, c.mul(s.leaves, s.up));
  } else {
    // topo/fat_tree.cpp: `up` aggs per pod, each with k/2 uplinks spread over its core group
    // of C = the smallest divisor of k/2 >= ceil(pods x k/2 / k) cores.
    const int64_t half = t.radix / 2;
    const int64_t pods = (s.nics + half * down - 1) / (half * down);
    const int64_t aggs = c.mul(pods, s.up);
    const int64_t cores_per_group =
        t.upper_tiers == topo::UpperTiers::kFull
            ? half
            : topo::detail::fewest_top_switches(pods, static_cast<int>(half), t.radix);
    s.switches = c.add(c.add(s.leaves, aggs), c.mul(s.up, cores_per_group));
    s.cables = c.add(c.add(s.nics, c.mul(s.leaves, s.up)), c.mul(aggs, half));
  }
  if (t.planes > 1) {
    // topo/multi_plane.h: a plane selector per NIC (one cable to it) and P copies of the fabric.
    s.switches = c.add(s.nics, c.mul(t.planes, s.switches));
    s.cables = c.add(s.nics, c.mul(t.planes, s.cables));
  }
  return s;
}

Traffic traffic_of(const Scenario& sc, int64_t n) {
  const workload::WorkloadSpec& w = sc.workload;
  Traffic t;
  if (sc.node.gpus_per_node > 0) {
    // GPU runs (preflight/resources_gpu.h): transport messages of the collectives; a connection
    // per (source NIC, destination NIC) pair at most.
    const GpuTraffic g = gpu_traffic(sc);
    t.messages = g.messages;
    t.total_bytes = g.total_bytes;
    t.max_message_bytes = g.max_message_bytes;
    t.qps = std::min(Checked{"hosts.count"}.mul(n, n - 1), std::max<int64_t>(g.messages, 1));
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
      t.max_message_bytes = w.size_cdf.empty() ? w.flow_size_bytes : w.size_cdf.back().size_bytes;
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


}  // namespace fabricsim::scenario::preflight
