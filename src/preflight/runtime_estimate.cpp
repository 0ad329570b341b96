#include "preflight/runtime_estimate.h"

#include <cmath>

#include "preflight/resources_gpu.h"
#include "resolve/fabric.h"
#include "workload/collective.h"
#include "workload/workload.h"

namespace fabricsim::scenario {
namespace {

// Mean links of a path to a uniformly random other NIC of a fat-tree (or rail fabric, whose
// leaves join through one spine tier) of `nics` NICs, `down` per leaf.
double mean_links(const topo::TopologySpec& t, double nics) {
  const double down = std::llround(t.radix * t.oversubscription / (t.oversubscription + 1.0));
  const double others = nics - 1;
  if (others <= 0) return 0;
  const double same_leaf = std::min(down - 1, others);
  if (t.kind != topo::TopologyKind::kFatTree || t.tiers == 2) {
    return (2 * same_leaf + 4 * (others - same_leaf)) / others;
  }
  const double per_pod = std::min(nics, down * (t.radix / 2));
  const double same_pod = per_pod - 1 - same_leaf;
  const double other_pod = others - same_leaf - same_pod;
  return (2 * same_leaf + 4 * same_pod + 6 * other_pod) / others;
}

double packets(double bytes, double mtu) { return std::ceil(bytes / mtu); }

// A GPU run: the bytes its collectives move across the fabric in MTU packets over the mean
// path, the ops of its training DAGs and its transport messages, in events at the rates above.
RuntimeEstimate estimate_gpu_runtime(const Scenario& input, double nics) {
  RuntimeEstimate r;
  Scenario sc = input;
  resolve_fabric(sc);  // the IB MTU as the run will use it
  const GpuTraffic g = gpu_traffic(sc);
  if (g.bounded) {
    r.why_not = "training step too large to count its messages (over 16 M DAG ops): not estimated";
    return r;
  }
  r.gpu = true;
  r.estimated = true;
  if (sc.mode == EngineMode::kFlow) {
    r.flow = true;
    r.events = static_cast<double>(g.messages) * kFlowEventsPerMessage +
               static_cast<double>(g.node_messages) * kFlowEventsPerNodeTransfer +
               static_cast<double>(g.dag_ops) * kFlowEventsPerOp;
    r.fastest_s = r.events / kFlowFastestEventsPerSecond;
    r.slowest_s = r.events / kFlowSlowestEventsPerSecond;
    return r;
  }
  const double mtu = static_cast<double>(sc.technology == Technology::kUet ? sc.uet.mtu_bytes
                                                                           : sc.roce.mtu_bytes);
  r.mean_links = mean_links(sc.topology, nics);
  if (sc.topology.kind == topo::TopologyKind::kRail) {
    // NCCL keeps a channel on one rail (its rings and trees pair NICs of the same index), so
    // a transfer crosses its rail's leaf (2 links) when both hosts sit under the same one, a
    // spine otherwise (4): of the other hosts, those sharing the rail leaf (its down ports).
    const double hosts = sc.topology.hosts;
    const double down = std::llround(sc.topology.radix * sc.topology.oversubscription /
                                     (sc.topology.oversubscription + 1.0));
    const double same = std::min(down, hosts) - 1;
    r.mean_links = hosts > 1 ? (2 * same + 4 * (hosts - 1 - same)) / (hosts - 1) : 0;
  }
  r.packet_hops = std::ceil(static_cast<double>(g.net_bytes) / mtu) * r.mean_links;
  r.events = r.packet_hops * kEventsPerPacketHop + static_cast<double>(g.dag_ops) * kEventsPerOp +
             static_cast<double>(g.messages) * kEventsPerMessage;
  r.fastest_s = r.events / kGpuFastestEventsPerSecond;
  r.slowest_s = r.events / kGpuSlowestEventsPerSecond;
  return r;
}

}  // namespace

RuntimeEstimate estimate_runtime(const Scenario& sc) {
  RuntimeEstimate r;
  if (sc.mode == EngineMode::kFlow && sc.node.gpus_per_node > 0) {
    return estimate_gpu_runtime(sc, 0);  // per message, transfer and op: no path length needed
  }
  if (sc.mode == EngineMode::kFlow) {
    // The packet-hop rates below are the packet engine's; a pattern's flow-mode cost is per
    // message and per re-share of a sharing component, not yet modelled (GPU runs are: above).
    r.why_not = "mode: flow: not estimated without GPUs (docs/modes.md and docs/performance.md "
                "have measured speed-ups against packet mode)";
    return r;
  }
  const topo::TopologySpec& t = sc.topology;
  if (t.kind == topo::TopologyKind::kFile) {
    r.why_not = "topology files: not estimated (no closed form for their path lengths)";
    return r;
  }
  const double n = static_cast<double>(t.hosts) * t.nics_per_host;
  if (sc.node.gpus_per_node > 0) return estimate_gpu_runtime(sc, n);
  const double mtu = static_cast<double>(sc.technology == Technology::kUet ? sc.uet.mtu_bytes
                                                                           : sc.roce.mtu_bytes);
  const workload::WorkloadSpec& w = sc.workload;
  double pkts = 0;
  if (w.kind == workload::WorkloadKind::kCollective) {
    // Every rank sends 2(n-1) chunks of ceil(S/n) bytes for an all-reduce (ring; NCCL's tree
    // moves about as much), n-1 for an all-gather or reduce-scatter, n-1 for an all-to-all,
    // one for a sendrecv, in slices.
    double chunks = 0;
    switch (w.op) {
      case workload::CollOp::kAllReduce:
        chunks = 2 * (n - 1);
        break;
      case workload::CollOp::kAllGather:
      case workload::CollOp::kReduceScatter:
      case workload::CollOp::kAllToAll:
        chunks = n - 1;
        break;
      case workload::CollOp::kSendRecv:
        chunks = n;  // the whole buffer to the next rank: n chunks of S/n
        break;
      default:
        r.why_not = "this collective: not estimated";
        return r;
    }
    const double chunk = std::ceil(static_cast<double>(w.size_bytes) / n);
    const double slice = static_cast<double>(w.slice_bytes);
    const double full = std::floor(chunk / slice);
    const double rest = chunk - full * slice;
    const double per_chunk = full * packets(slice, mtu) + (rest > 0 ? packets(rest, mtu) : 0);
    pkts = n * chunks * per_chunk;
  } else {
    switch (w.pattern) {
      case workload::PatternKind::kPermutation:
        pkts = n * packets(static_cast<double>(w.flow_size_bytes), mtu);
        break;
      case workload::PatternKind::kIncast:
        pkts = w.incast_senders * packets(static_cast<double>(w.flow_size_bytes), mtu);
        break;
      case workload::PatternKind::kAllToAll:
        pkts = n * (n - 1) * packets(static_cast<double>(w.flow_size_bytes), mtu);
        break;
      case workload::PatternKind::kFlows:
        for (const workload::ExplicitFlow& f : w.flows) {
          pkts += packets(static_cast<double>(f.size_bytes), mtu);
        }
        break;
      case workload::PatternKind::kPoisson:
        // The mean count of flows (resources.cpp) at the mean size, each at least one packet.
        pkts = n * w.load * static_cast<double>(sc.link.rate_bps) *
               (static_cast<double>(w.duration_ps) * 1e-12) / 8.0 / mtu;
        break;
      default:
        r.why_not = "this workload pattern: not estimated";
        return r;
    }
  }
  r.mean_links = mean_links(t, n);
  r.packet_hops = pkts * r.mean_links;
  r.fastest_s = r.packet_hops / kFastestHopsPerSecond;
  r.slowest_s = r.packet_hops / kSlowestHopsPerSecond;
  r.estimated = true;
  return r;
}

}  // namespace fabricsim::scenario
