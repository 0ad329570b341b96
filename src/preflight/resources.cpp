#include "preflight/resources.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/event_queue.h"
#include "core/rng.h"
#include "core/units.h"
#include "engine/packet/flow_paths.h"
#include "engine/packet/steady_window.h"
#include "net/load_balance.h"
#include "net/network.h"
#include "net/plane_choice.h"
#include "preflight/resources_counts.h"
#include "preflight/resources_gpu.h"
#include "preflight/resources_transport.h"
#include "preflight/telemetry_estimate.h"
#include "resolve/fabric.h"
#include "resolve/resolve.h"
#include "results/result.h"
#include "routing/te_controller.h"
#include "topo/file_topology.h"
#include "topo/topology.h"
#include "transport/rc.h"
#include "transport/uet.h"
#include "workload/collective_engine.h"
#include "workload/dag.h"
#include "workload/workload.h"

namespace fabricsim::scenario {
namespace {

using preflight::Checked;
using preflight::grown_elements;
using preflight::resident_grown_elements;
using preflight::kHashBucketBytes;
using preflight::kHashNodeBytes;
using preflight::kMallocOverheadBytes;
using preflight::kMaxBytes;
using preflight::kMinRingBytes;
using preflight::transport_bytes;
using preflight::fabric_drivers;
using preflight::Traffic;
using preflight::workload_drivers;
using preflight::traffic_of;

// Every port uses its delay line and its data and control classes' queues; with PFC or IB
// credits also its MAC-control queue and control-frame line (each ring's first 8 slots).
int64_t port_ring_bytes(const Scenario& sc, bool ib) {
  const bool ctrl_frames = ib || sc.switch_config.pfc.enabled;
  return kMinRingBytes<net::InFlight> + 2 * kMinRingBytes<net::Packet> +
         (ctrl_frames ? kMinRingBytes<net::Packet> + kMinRingBytes<net::InFlight> : 0);
}

// The net::Network arrays (network.h) finalize() lays out: per port, NIC, switch, node, cable.
int64_t topology_bytes(const Scenario& sc, const ResourceEstimate& e, bool ib) {
  const Checked topo_c{"hosts.count"};
  const int64_t nodes = e.nics + e.switches;
  constexpr int64_t kCableBytes = 2 * sizeof(uint32_t) + sizeof(net::LinkConfig);  // Cable
  const int64_t per_port = sizeof(net::Port) + sizeof(net::PortQueues) + sizeof(int64_t) /*tx*/ +
                           sizeof(uint8_t) /*credit_return_broken*/ +
                           (sc.link.loss_rate > 0 ? sizeof(Rng) : 0) /*loss stream*/;
  const int64_t per_nic = sizeof(net::NicConfig) + 4 * sizeof(uint32_t) + sizeof(uint8_t) +
                          sizeof(uint32_t) /*BuiltTopology::host_of_nic*/;
  const int64_t per_switch = sizeof(net::Switch) + sizeof(net::SwitchConfig) + sizeof(Rng);
  const int64_t per_node = sizeof(net::Node) + 2 * sizeof(uint32_t) /*PortRange*/;
  const int64_t port_rings = port_ring_bytes(sc, ib);
  int64_t topology = topo_c.mul(e.ports, per_port + port_rings);
  topology = topo_c.add(topology, topo_c.mul(e.nics, per_nic));
  topology = topo_c.add(topology, topo_c.mul(e.switches, per_switch));
  topology = topo_c.add(topology, topo_c.mul(nodes, per_node));
  topology = topo_c.add(topology, topo_c.mul(grown_elements(e.cables), kCableBytes));
  if (sc.topology.planes > 1) {  // each NIC's plane selector keeps its assignment table
    topology = topo_c.add(topology, topo_c.mul(e.nics, net::kPlaneSlots * sizeof(net::FlowletSlot) +
                                                           kMallocOverheadBytes));
  }
  return topology;
}

// ECMP tables on both fabrics, and on InfiniBand the Subnet Manager's LIDs, LFTs and AR groups.
// Sets e.lids.
int64_t routing_bytes(const Scenario& sc, const topo::ShapeCounts& shape, ResourceEstimate& e,
                      bool ib) {
  // ECMP (routing/ecmp.h), installed on both fabrics: dist_[leaf][switch] in 16 bits, and per
  // switch one 16-bit group per leaf. In a fat-tree a switch reaches a leaf either through one
  // down port or through all its up ports, so it has at most one group per port plus the
  // up-port group, and the groups list at most 2 x radix ports. A rail fabric is a leaf-spine
  // whose spine reaches a leaf through its parallel cables: the same bounds hold.
  const Checked route_c{"hosts.count"};
  const int64_t radix = shape.radix;
  const int64_t groups = std::min<int64_t>(shape.leaves, radix) + 1;
  const int64_t per_switch_groups =
      (groups + 2 * radix) * sizeof(uint32_t) + 3 * kMallocOverheadBytes;
  int64_t routing = route_c.mul(
      shape.leaves, route_c.mul(e.switches, sizeof(uint16_t)) +
                        static_cast<int64_t>(sizeof(std::vector<uint16_t>)) + kMallocOverheadBytes);
  routing = route_c.add(routing, route_c.mul(e.nics, 2 * sizeof(uint32_t)));
  int64_t keys_per_switch = shape.leaves;
  if (ib) {
    // The Subnet Manager (routing/subnet_manager.h): LIDs for every CA and switch; while a
    // sweep is installed its LFTs (a 32-bit port per switch and LID) and, with adaptive routing,
    // the AR groups (offsets per LID, and per LID up to `up` ports) coexist with the switches'
    // 16-bit tables (one group id per LID). This is the figure that grows as switches x LIDs.
    e.lids = e.nics + e.switches + 1;
    keys_per_switch = e.lids;
    const int64_t lft =
        route_c.mul(e.switches, route_c.mul(e.lids, sizeof(uint32_t)) + kMallocOverheadBytes +
                                    static_cast<int64_t>(sizeof(std::vector<uint32_t>)));
    routing = route_c.add(routing, lft);
    if (sc.recovery.adaptive) {
      const int64_t ar_ports = std::max<int64_t>(shape.up, radix / 2);
      routing =
          route_c.add(routing, route_c.mul(e.switches, e.lids, (1 + ar_ports) * sizeof(uint32_t)));
    }
    routing = route_c.add(routing, route_c.mul(e.ports, sizeof(int32_t) + 2 * sizeof(uint32_t)));
    routing = route_c.add(routing, route_c.mul(e.nics, 2 * sizeof(uint16_t)));
  }
  return route_c.add(
      routing,
      route_c.mul(e.switches, route_c.mul(keys_per_switch, sizeof(uint16_t)) + per_switch_groups));
}

// The key whose count drives the workload's memory most: named when the arithmetic overflows.
std::string workload_key(const Scenario& sc) {
  return !sc.jobs.empty() && sc.node.gpus_per_node > 0             ? "jobs"
         : sc.workload.kind == workload::WorkloadKind::kTraining   ? "training"
         : sc.node.gpus_per_node > 0                               ? "workload.size"
         : sc.workload.kind == workload::WorkloadKind::kCollective ? "workload.slice"
         : sc.workload.pattern == workload::PatternKind::kFlows    ? "workload.flows"
         : sc.workload.pattern == workload::PatternKind::kPoisson  ? "workload.duration"
                                                                   : "workload.pattern";
}

// Per training op, beyond its dependencies (12 B each below): the DAG's DagOp (32 B, its
// vector grown by push_back: up to 48 B resident) and the generator's FLOPs (8 B), the
// TrainingEngine's per-op arrays (kind 1, remaining dependencies 4, dependents' offset 4, start
// and end 16, runner id 8: workload/training.h) and the result's copy of the op times (16 B):
// 97 B, rounded up. (The GPT-3 175B step measured 155 B per op with everything else its run
// held, workload/transformer.h.)
constexpr int64_t kDagBytesPerOp = 104;

struct WorkloadBytes {
  int64_t bytes = 0;
  int64_t trace_compute_spans = 0;  // outputs.trace: one span per training compute op
};

WorkloadBytes workload_bytes(const Scenario& sc, const Traffic& t, const Checked& wc) {
  // Workload::planned_ is built by push_back and (flows, Poisson) stable_sorted with a buffer of
  // up to as many elements; an explicit list is copied into Simulation::sc_ and Workload::spec_
  // (the loaded copy is already in the baseline).
  WorkloadBytes w;
  int64_t work = wc.mul(grown_elements(t.planned), sizeof(workload::PlannedFlow));
  if (t.sorted) work = wc.add(work, wc.mul(t.planned, sizeof(workload::PlannedFlow)));
  work = wc.add(work, wc.mul(2, t.explicit_flows, sizeof(workload::ExplicitFlow)));
  if (sc.node.gpus_per_node > 0) {
    // The node layer, the collective engine and the training engines: per training op its DAG
    // entry, the generator's FLOPs, the engine's per-op state and the result's op times
    // (measured: 325 MB for the GPT-3 175B step's 2.1 M ops, 155 B per op with its share of
    // dependencies, workload/transformer.h), per collective its record and plan, per GPU its
    // resources.
    const GpuTraffic g = gpu_traffic(sc);
    const int64_t gpus = Checked{"hosts.count"}.mul(sc.topology.hosts, sc.node.gpus_per_node);
    work = wc.add(work, wc.mul(g.dag_ops, kDagBytesPerOp));
    w.trace_compute_spans = g.dag_ops;
    work = wc.add(work, wc.mul(g.dag_deps, 3 * sizeof(uint32_t)));
    // Per collective its CollectiveRecord and the engine's running entry (64 + 48 B), in vectors
    // grown by push_back: resident up to bit_ceil of them once past glibc's mmap threshold
    // (resident_grown_elements; llama-70b-1024 at its test size: massif 2.1 + 1.6 MB for
    // 23,808 collectives, the count below 3.5 MiB), cap + cap / 2 below it.
    const int64_t kept = workload::CollectiveEngine::kKeptBytesPerCollective;
    const int64_t resident = resident_grown_elements(g.collectives) * kept >= (int64_t{128} << 10)
                                 ? resident_grown_elements(g.collectives)
                                 : grown_elements(g.collectives);
    work = wc.add(work, wc.mul(resident, kept));
    // The plans alive at once, each as built (was 1 KiB per rank and channel, from ResNet-50's
    // 54 all-reduces over 128 GPUs when they all ran at once: 950 B measured).
    work = wc.add(work, g.plan_bytes);
    work = wc.add(work, wc.mul(gpus, 4096));
  }
  w.bytes = work;
  return w;
}

// Load balancing (net/load_balance.h, routing/te_controller.h): flowlets keep a fixed table per
// switch; TE keeps a record per large message (its path: at most 2 x tiers ports) and its
// rules, at most one per path hop in tables kept at most half full.
void add_load_balancing_part(const Scenario& sc, const Traffic& t, const Checked& wc,
                             ResourceEstimate& e) {
  if (sc.ecmp.load_balancing == routing::LoadBalancing::kFlowlet) {
    e.parts.push_back(
        {"load balancing",
         wc.mul(e.switches, net::kFlowletSlots * sizeof(net::FlowletSlot) + kMallocOverheadBytes),
         "routing.load_balancing", {}});
  } else if (sc.ecmp.load_balancing == routing::LoadBalancing::kTe) {
    const int64_t hops = 2 * std::max(1, sc.topology.tiers);
    const int64_t per_flow = sizeof(routing::TeController::Flow) + kMallocOverheadBytes +
                             hops * (sizeof(uint32_t) + 2 * sizeof(net::TeRule)) + sizeof(int32_t);
    e.parts.push_back(
        {"load balancing", wc.mul(grown_elements(t.messages), per_flow), "routing.load_balancing", {}});
  }
}

// Packets exist only in the fabric (a NIC pulls its next packet when its port is free): at
// most what the switches' shared buffers hold (plus a stalled NIC's receive buffer), and at
// most the traffic itself.
int64_t packets_bound(const Scenario& sc, const Traffic& t, const ResourceEstimate& e, bool ib,
                      const Checked& wc) {
  const Checked pc{"fabric.switch.buffer"};
  int64_t buffer_bytes = pc.mul(e.switches, sc.switch_config.buffer_bytes);
  if (ib) {
    // InfiniBand: a packet is sent only against the receiver's credits, so what the fabric
    // holds is at most every receiving port's per-VL buffer (net/credits.cpp: a switch port
    // its share of the shared buffer; an HCA port its ConnectX buffer split over the VLs).
    const net::IbLinkConfig& l = sc.ib.link;
    const int64_t vls = std::max(1, l.data_vls);
    const int64_t hca_vl =
        l.hca_vl_buffer_bytes > 0 ? l.hca_vl_buffer_bytes : net::kConnectXPortBufferBytes / vls;
    if (l.vl_buffer_bytes > 0) {
      buffer_bytes = std::min(buffer_bytes, pc.mul(e.ports - e.nics, vls, l.vl_buffer_bytes));
    }
    buffer_bytes = pc.add(buffer_bytes, pc.mul(e.nics, vls, hca_vl));
  }
  if (sc.nic_stall.nic >= 0) buffer_bytes = pc.add(buffer_bytes, sc.nic.rx_buffer_bytes);
  const int64_t mtu = std::max(1, sc.roce.mtu_bytes);  // resolve_fabric copies the IB MTU here
  const int64_t payload = std::clamp<int64_t>(t.max_message_bytes, 1, mtu);
  const int64_t frame =
      transport::data_frame_bytes(sc.roce, static_cast<uint32_t>(payload), false, false);
  int64_t traffic_packets =
      wc.add(t.total_bytes / mtu, t.inflight_messages >= 0 ? t.inflight_messages : t.messages);
  if (t.live_messages >= 0) {
    // GPU runs: a packet in the fabric belongs to a message posted and not yet credited back
    // (GpuTraffic::live_messages, the connections' NCCL_STEPS windows), each at most
    // max_message_bytes of payload in whole MTU packets.
    const int64_t per_message = (std::max<int64_t>(t.max_message_bytes, 1) + mtu - 1) / mtu;
    traffic_packets = std::min(traffic_packets, wc.mul(t.live_messages, per_message));
  }
  return std::min(buffer_bytes / std::max<int64_t>(frame, 1), traffic_packets);
}

// What the queues are expected to hold at their peak in a GPU run on RoCE with DCQCN and ECN
// marking. Collectives are balanced: every NIC receives about what it sends (a ring or tree
// passes each slice on; an all-to-all spreads a sender's line rate over its peers), so a switch
// port is overloaded only by ECMP collisions, a few flows at once, not by an incast's
// dozens. DCQCN holds such a queue near Kmax: every packet above it is marked (net/config.h
// EcnConfig: pmax at Kmax), and one rate cut per colliding flow ends the overload. The
// expectation is a queue at Kmax, plus what its cable holds in flight, at one switch port per
// NIC (below). It is not a
// bound (a pattern's incast overshoots Kmax by the senders' rate over DCQCN's reaction time, so
// patterns keep the buffer bound; a PFC-only fabric's collision fills up to the XOFF threshold,
// so it does too), and a run watches its rings against the memory limit instead (core/ring.h
// RingMemory, cli/ring_budget.h). Measured (docs/reliability.md): the training
// examples' rings peaked at 0.07-1.8 MiB against 2-24 MiB expected.
int64_t packets_expected(const Scenario& sc, const ResourceEstimate& e, int64_t bound, bool ib) {
  if (ib || sc.technology != Technology::kRoce || sc.node.gpus_per_node <= 0 ||
      sc.roce.cc != transport::CongestionControl::kDcqcn) {
    return bound;
  }
  const net::EcnConfig ecn = resolved_roce_ecn(sc);
  if (!ecn.enabled) return bound;
  const Checked pc{"fabric.ecn.kmax"};
  const int64_t mtu = std::max(1, sc.roce.mtu_bytes);
  const int64_t frame =
      transport::data_frame_bytes(sc.roce, static_cast<uint32_t>(mtu), false, false);
  // A cable's bytes in flight: rate x propagation delay.
  const int64_t line_bytes = static_cast<int64_t>(static_cast<double>(sc.link.rate_bps) / 8 *
                                                  static_cast<double>(sc.link.propagation_ps()) *
                                                  1e-12);
  const int64_t per_port = (ecn.kmax_bytes + line_bytes + frame - 1) / frame;
  // Queues stand where flows are bottlenecked, and a bottleneck takes a port's line rate of
  // flows: with every NIC injecting at most the fabric's link rate, about one standing queue per
  // NIC, and never more than the switch ports.
  const int64_t queues = std::min(e.ports - e.nics, e.nics);
  return std::min(bound, pc.mul(queues, per_port));
}

// outputs.flows.path (engine/packet/flow_paths.h): per flow its record and its distinct paths of
// port ids, per packet in flight the hops it has crossed so far; flows.csv then holds the
// paths as text, ~20 characters a port label. A flow hashed onto one ECMP path keeps one path
// (plus one for a failure's reroute); anything that moves packets between paths (spraying,
// UET's entropies, adaptive routing, flowlets, TE, PLB, Dragonfly, planes) may fill all
// kMaxFlowPaths. A path has at most 2 x tiers ports on a fat-tree or rail fabric; 8 covers a
// Dragonfly's Valiant detour (local, global, local, global, local between two NIC links) and is
// assumed for topology files. flows.csv's path text is written row by row (results/flows_csv.h).
void add_flow_paths_part(const Scenario& sc, const Traffic& t, ResourceEstimate& e) {
  if (!sc.flow_paths) return;
  const Checked fc{"outputs.flows.path"};
  const bool one_path = sc.technology != Technology::kUet &&
                        sc.ecmp.load_balancing == routing::LoadBalancing::kEcmp && !sc.roce.spray &&
                        !sc.roce.plb.enabled && sc.topology.planes == 1 &&
                        sc.topology.kind != topo::TopologyKind::kDragonfly;
  // A failure moves a flow at most three times per cycle (local repair, convergence, the port
  // back after the link is up).
  const int64_t paths =
      one_path ? (sc.link_fail.switch_index >= 0
                      ? std::min<int64_t>(1 + 3 * int64_t{sc.link_fail.flaps}, kMaxFlowPaths)
                      : 1)
               : static_cast<int64_t>(kMaxFlowPaths);
  const bool fat = sc.topology.kind == topo::TopologyKind::kFatTree ||
                   sc.topology.kind == topo::TopologyKind::kRail;
  const int64_t hops = fat ? 2 * std::max(1, sc.topology.tiers) : 8;
  const int64_t path_bytes = kMallocOverheadBytes + 24 + hops * sizeof(uint32_t);
  const int64_t per_flow = 80 + kMallocOverheadBytes + paths * path_bytes;  // FlowPaths::PerMsg
  const int64_t open = fc.mul(e.packets, 32 + kMallocOverheadBytes + path_bytes);
  e.parts.push_back(
      {"flow paths", fc.add(fc.mul(t.messages, per_flow), open), "outputs.flows.path", {}});
}

// outputs.trace (workload/trace_recorder.h, output/chrome_trace.cpp; docs/trace.md). Traffic
// patterns: the spans are made when trace.json is written, at most max_flows of them, each a
// track entry (24 B) and ~260 characters of JSON in one string that doubles as it grows. GPU
// runs: a TraceSpan per compute op is counted; the collectives' step/send/recv spans depend
// on the algorithm the engine picks and are not (docs/trace.md gives their count). Returns the
// bytes of trace.json's text.
int64_t add_trace_part(const Scenario& sc, const Traffic& t, int64_t trace_compute_spans,
                       ResourceEstimate& e) {
  if (!sc.trace.enabled) return 0;
  const Checked tc{"outputs.trace.max_flows"};
  if (sc.node.gpus_per_node > 0) {
    const int64_t spans = tc.mul(grown_elements(trace_compute_spans), sizeof(workload::TraceSpan));
    e.parts.push_back({"trace spans", spans, "outputs.trace.enabled", {}});
    e.result_bytes = tc.add(e.result_bytes, spans);
    return tc.mul(trace_compute_spans, 24 + 2 * 260);
  }
  const int64_t kept = std::min(t.messages, sc.trace.max_flows);
  return tc.mul(kept, 24 + 2 * 260);
}

}  // namespace

int64_t ResourceEstimate::simulation_bytes() const {
  int64_t sum = 0;
  for (const MemoryPart& p : parts) sum += p.bytes;
  return sum;
}

int64_t ResourceEstimate::peak_bytes() const { return std::max(simulation_bytes(), output_bytes); }

const MemoryPart& ResourceEstimate::largest() const {
  return *std::max_element(
      parts.begin(), parts.end(),
      [](const MemoryPart& a, const MemoryPart& b) { return a.bytes < b.bytes; });
}

int64_t concurrent_runs(const Scenario& sc) {
  if (sc.threads <= 1) return 1;
  if (sc.scaling_nodes.size() > 1) {
    return std::min<int64_t>(sc.threads, static_cast<int64_t>(sc.scaling_nodes.size()));
  }
  bool ideal = sc.training.ideal_network;
  for (const JobSpec& job : sc.jobs) ideal |= job.training.ideal_network;
  return ideal && sc.node.gpus_per_node > 0 && !sc.node.ideal_fabric ? 2 : 1;
}

ResourceEstimate estimate_resources(const Scenario& input) {
  Scenario sc = input;
  if (!sc.scaling_nodes.empty()) {
    // run_scaling (engine/run.cpp) runs the counts one after another, each its own fabric:
    // the largest count is the peak.
    sc = scaling_point(sc, *std::max_element(sc.scaling_nodes.begin(), sc.scaling_nodes.end()));
  }
  resolve_fabric(sc);  // IB MTU, VLs and latencies as the run will use them
  const bool ib = sc.technology == Technology::kInfiniband;
  const topo::ShapeCounts shape = topo::shape_counts(sc.topology);
  const Checked topo_c{"hosts.count"};
  ResourceEstimate e;
  e.nics = shape.nics;
  e.switches = shape.switches;
  e.cables = shape.cables;
  e.ports = topo_c.mul(2, shape.cables);
  e.parts.push_back({"topology", topology_bytes(sc, e, ib), "hosts.count", fabric_drivers()});
  e.parts.push_back({"routing", routing_bytes(sc, shape, e, ib), "hosts.count", fabric_drivers()});

  // ---- workload and transport ----
  Traffic t = traffic_of(sc, e.nics);
  // fabric.roce.qps_per_pair (fabric.tcp.connections_per_pair for TCP and iWARP): every
  // (source, destination) pair used opens that many connections at once.
  const bool tcp_like = sc.technology == Technology::kTcp || sc.technology == Technology::kIwarp;
  const int per_pair = tcp_like ? sc.tcp.connections_per_pair : sc.roce.qps_per_pair;
  if (sc.technology != Technology::kUet && per_pair > 1) {
    t.qps = Checked{tcp_like ? "fabric.tcp.connections_per_pair" : "fabric.roce.qps_per_pair"}.mul(
        t.qps, per_pair);
  }
  e.messages = t.messages;
  e.qps = t.qps;
  const std::string wkey = workload_key(sc);
  const Checked wc{wkey};
  const WorkloadBytes work = workload_bytes(sc, t, wc);
  const std::vector<std::string> wdrivers = workload_drivers(sc);
  e.parts.push_back({"workload", work.bytes, wkey, wdrivers});
  e.parts.push_back({"transport", transport_bytes(sc, t, e.nics, wc), wkey, wdrivers});
  add_load_balancing_part(sc, t, wc, e);

  // ---- packets held in queues and on cables ----
  // Each ring keeps the power-of-two capacity of its deepest backlog, so the slots held are at
  // most twice the packets.
  // mode: flow moves no packet (docs/modes.md): its messages and fluid flows instead.
  const bool flow_mode = sc.mode == EngineMode::kFlow;
  e.packets = flow_mode ? 0 : packets_bound(sc, t, e, ib, wc);
  const Checked pc{"fabric.switch.buffer"};
  // At most the switches' buffers: their count and size; expected, where congestion control
  // holds the queues near a threshold, that threshold at every switch port.
  e.packets_bound_bytes = pc.mul(2, e.packets, sizeof(net::Packet));
  const int64_t expected = flow_mode ? 0 : packets_expected(sc, e, e.packets, ib);
  e.parts.push_back({"packets", pc.mul(2, expected, sizeof(net::Packet)), "fabric.switch.buffer",
                     {"fabric.switch.buffer", "hosts.count", "topology.radix"}});
  // Plus every port's first slots and each NIC's round-robin ring (counted in "topology" and
  // "transport"): what RingMemory counts.
  e.ring_bytes = pc.add(pc.add(e.parts.back().bytes, pc.mul(e.ports, port_ring_bytes(sc, ib))),
                        pc.mul(e.nics, kMinRingBytes<uint32_t>));

  // ---- pending events (core/event_queue.h) ----
  // At most a transmit-done, an arrival, a control arrival and a PFC/credit timer per port, two
  // timers per QP, a wake per NIC; each radix-heap bucket keeps the capacity of its fullest
  // moment, up to twice that, and an event may sit in any bucket: counted twice more.
  const int64_t pending =
      topo_c.add(topo_c.add(topo_c.mul(e.ports, 4), topo_c.mul(t.qps, 2)), e.nics + 4);
  e.parts.push_back(
      {"events", topo_c.mul(4 * pending, sizeof(Event)), "hosts.count", fabric_drivers()});

  // ---- capture and the run's result ----
  const Checked cc{"outputs.pcap.frames"};
  // Captured frames (Simulation::captured_, push_back); on InfiniBand every flow-control packet
  // is captured too without counting towards the limit: at most one per data frame received.
  const int64_t frames = cc.mul(sc.capture.max_frames, ib ? 2 : 1);
  const int64_t capture = cc.mul(grown_elements(frames), sizeof(CapturedFrame));
  e.parts.push_back({"capture", capture, "outputs.pcap.frames", {}});
  // The harvest keeps no record per message (engine/run_control.h FlowHarvest, as the CLI runs
  // it): the flow summary's digests, flows.csv's write buffer, and with a capture every
  // message's size, with a pattern's trace every k-th record (results/flow_summary.h).
  // The buffer is reserved whole but only the rows written into it are resident: at most 256
  // characters a row (results/flows_csv.h; a path column aside, counted with the flow paths).
  const int64_t csv_buffer = std::min(static_cast<int64_t>(FlowsCsvWriter::kBufferBytes) + 4096,
                                      wc.mul(t.messages, 256));
  // A GPU run's messages all use one class (GpuNet posts them on the QP's default SL or
  // priority) and are at most max_message_bytes of data, on the wire at most twice that (LL's
  // efficiency 0.5, the lowest: workload/collective_config.h): size buckets up to that one.
  const bool gpu = sc.node.gpus_per_node > 0;
  const int64_t records_bytes =
      gpu ? flow_summary_bytes_bound(t.messages, fct_bucket(2 * t.max_message_bytes) + 1, 1)
          : flow_summary_bytes_bound(t.messages);
  int64_t records = wc.add(records_bytes, csv_buffer);
  if (sc.capture.max_frames > 0) records = wc.add(records, wc.mul(t.messages, sizeof(int64_t)));
  if (sc.trace.enabled && sc.node.gpus_per_node == 0) {
    records = wc.add(records, wc.mul(std::min<int64_t>(t.messages, std::max<int64_t>(
                                                                       1, sc.trace.max_flows)),
                                     sizeof(FlowRecord)));
  }
  e.parts.push_back({"flow summary", records, wkey, wdrivers});
  if (sc.steady_window) {
    // engine/packet/steady_window.h: at most kMaxSnapshots + 1 copies of every flow's byte count
    // (the last while the oldest ones are thinned out).
    e.parts.push_back({"steady-window samples",
                       wc.mul(t.messages, SteadyWindow::bytes_per_flow() * 2),
                       "outputs.steady_window", {}});
  }
  // outputs.timeseries: the samplers' samples (preflight/telemetry_estimate.h).
  const TelemetryEstimate tel = estimate_telemetry(sc.timeseries, sc.stop_time_ps, e.ports, t.qps);
  if (sc.timeseries.interval_ps > 0) {
    e.parts.push_back({"time series", tel.simulation_bytes, "outputs.timeseries.max_samples", {}});
  }
  e.result_bytes = wc.add(records, cc.mul(frames, sizeof(CapturedFrame)));
  add_flow_paths_part(sc, t, e);
  const int64_t trace_output = add_trace_part(sc, t, work.trace_compute_spans, e);
  e.result_bytes = wc.add(e.result_bytes, tel.result_bytes);

  // ---- writing outputs, after the simulation is freed ----
  // flows.csv was written during the harvest (a bounded buffer, counted above). The capture is
  // rewritten per frame into its own buffer (IB: one decoded record per frame).
  int64_t outputs = e.result_bytes;
  if (ib) outputs = wc.add(outputs, cc.mul(frames, sizeof(CapturedFrame)));
  outputs = wc.add(outputs, trace_output);
  outputs = wc.add(outputs, wc.add(tel.result_bytes, tel.output_bytes));
  e.output_bytes = outputs;
  // The sum stays below the bound too (so simulation_bytes() cannot overflow); the part that
  // tips it over is the one named.
  int64_t sum = 0;
  for (const MemoryPart& p : e.parts) sum = Checked{p.key}.add(sum, p.bytes);
  // threads > 1 (engine/run.cpp): the run's simulations side by side, each at most the one
  // estimated here (the ideal network's twin holds no packets; scaling's counts are at most the
  // largest), so k at once hold at most k times it, the rings included.
  const int64_t together = concurrent_runs(input);
  if (together > 1) {
    const Checked tc{"threads"};
    e.parts.push_back({"concurrent runs (threads)", tc.mul(together - 1, sum), "threads", {}});
    e.ring_bytes = tc.mul(together, e.ring_bytes);
    e.packets_bound_bytes = tc.mul(together, e.packets_bound_bytes);
    tc.add(sum, e.parts.back().bytes);
  }
  return e;
}

std::string describe_parts(const ResourceEstimate& e) {
  std::vector<MemoryPart> parts = e.parts;
  std::stable_sort(parts.begin(), parts.end(),
                   [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  const int64_t total = e.peak_bytes();
  std::string out;
  for (const MemoryPart& p : parts) {
    if (p.bytes * 2000 < total) continue;
    out += (out.empty() ? "" : ", ") + p.name + " " + format_bytes(p.bytes);
  }
  if (e.output_bytes > e.simulation_bytes()) {
    out +=
        (out.empty() ? "" : "; ") + std::string("writing outputs ") + format_bytes(e.output_bytes);
  }
  return out;
}

int64_t parse_peak_bytes(int64_t file_bytes) {
  return file_bytes * kParseBytesPerFileByte;  // file_bytes <= 64 MiB: no overflow
}

int64_t current_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

int64_t code_to_page_in_bytes() {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool code = false;  // inside an executable mapping of a file (the program or a library)
  int64_t size_kib = 0, rss_kib = 0;
  while (std::getline(smaps, line)) {
    if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
        line.find(' ') != std::string::npos && line.find(':') > line.find(' ')) {
      // A mapping header: "start-end perms offset dev inode path".
      std::istringstream header(line);
      std::string range, perms, offset, dev, inode, name;
      header >> range >> perms >> offset >> dev >> inode >> name;
      code = perms.size() > 2 && perms[2] == 'x' && !name.empty() && name[0] == '/';
      continue;
    }
    if (!code) continue;
    std::istringstream field(line);
    std::string tag;
    int64_t kib = 0;
    field >> tag >> kib;
    if (tag == "Size:") size_kib += kib;
    if (tag == "Rss:") rss_kib += kib;
  }
  return std::max<int64_t>(0, size_kib - rss_kib) * 1024;
}

int64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    int64_t kib = 0;
    std::string unit;
    if (fields >> kib >> unit && unit == "kB") return kib * 1024;  // proc(5): kibibytes
    return 0;
  }
  return 0;
}

}  // namespace fabricsim::scenario
