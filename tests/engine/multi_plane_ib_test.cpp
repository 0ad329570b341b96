// Multi-plane InfiniBand end to end (routing/plane_subnets.h, net/plane_choice.h kLbHcaPorts,
// transport/rc.h plane binding, resolve/planes.h): a QP lives on one plane at the plane port's
// rate, QPs are dealt round-robin over an HCA's ports, a failed plane takes its QPs down with it
// (they do not move), and the splits a QP cannot do are refused.
//
// Fabric: leaf-spine radix 8, 16 NICs (per plane 4 leaves x 2 spines, 2 cables per pair), NIC
// rate N = 400 Gb/s, P planes of r = N / P. An IB data packet of 4096 payload bytes is
// LRH 8 + BTH 12 + 4096 + ICRC 4 + VCRC 2 = 4122 bytes, the first of a WRITE 16 more (RETH);
// IB has no preamble or gap on the wire (the 4x rate is the data rate after encoding).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "engine/packet/simulation.h"
#include "engine/run.h"
#include "net/wire.h"
#include "resolve/resolve.h"
#include "spec/load.h"

namespace fabricsim::scenario {
namespace multi_plane_ib_test {

constexpr int64_t kNicBps = 400'000'000'000;
constexpr double kPacketBytes = 4096 + 26;
constexpr double kFcBytes = 6;  // an IB flow-control packet (IBA 7.9.4)
static_assert(net::ib_packet_bytes(4096) == 4122, "LRH + BTH + 4096 + ICRC + VCRC");

// Serialization of `bytes` at `bps`, in ps.
constexpr double ser_ps(double bytes, int64_t bps) { return bytes * 8.0 * 1e12 / bps; }

std::string ib_fabric(int planes, const std::string& workload, const std::string& extra = "") {
  return "name: mpib\nseed: 5\nfabric: {technology: ib, link: {rate: 400Gbps, cable: 3m}}\n"
         "topology: {kind: leaf_spine, radix: 8, planes: " + std::to_string(planes) + "}\n"
         "hosts: {count: 16}\n" + workload + extra;
}

Scenario load(const std::string& yaml) { return load_scenario_string(yaml, "mpib.yaml").scenario; }

int64_t fct_of(Simulation& sim, uint32_t msg) {
  const transport::MessageRecord& m = sim.transport().message(msg);
  return m.rx_done_ps < 0 ? -1 : m.rx_done_ps - m.post_ps;
}

TEST(MultiPlaneIb, ShiftOfLongFlowsRunsAtThePlanePortRate) {
  // group_shift with groups of 4 (a leaf's NICs): NIC j of leaf i sends to NIC j of leaf i + 1.
  // Under ftree (consecutive CAs of a leaf on different uplinks, each CA reached from one spine
  // port) a shift has no shared link, so each flow is limited by its QP's port alone: one QP per
  // NIC, bound to one plane, at r = N / P. 16 MiB = 4096 packets:
  //   T = (4096 x 4122 + 16) x 8 / r   (P = 2: 675.3 us; P = 4: 1350.7 us)
  // plus latency (NIC pipelines, 3 switch latencies, 4 cables, the selector's store-and-forward:
  // a few us): within 2 % of T. And the plane is what a single fabric at r is: FCT within 0.1 %.
  const std::string shift =
      "workload: {kind: pattern, pattern: group_shift, group_size: 4, flow_size: 16MiB}\n";
  for (int planes : {2, 4}) {
    const int64_t r = kNicBps / planes;
    const double t = ser_ps(4096 * kPacketBytes + 16, r);
    Simulation multi(load(ib_fabric(planes, shift)));
    multi.start_workload();
    ASSERT_TRUE(multi.run());
    Scenario sc1 = load(ib_fabric(1, shift));
    sc1.link.rate_bps = r;
    Simulation one(sc1);
    one.start_workload();
    ASSERT_TRUE(one.run());
    EXPECT_TRUE(multi.lid_routes().fallback_reason.empty()) << multi.lid_routes().fallback_reason;
    for (uint32_t m = 0; m < 16; ++m) {
      const double fct = static_cast<double>(fct_of(multi, m));
      EXPECT_GT(fct, t) << planes << " planes, flow " << m;
      EXPECT_LT(fct, 1.02 * t) << planes << " planes, flow " << m;
      EXPECT_NEAR(fct, static_cast<double>(fct_of(one, m)), 1e-3 * t) << "flow " << m;
    }
  }
}

TEST(MultiPlaneIb, QpsAreDealtOverTheHcaPortsAndKeepTheirPlane) {
  // NIC 0 opens 4 QPs (to NICs 4..7, the next leaf) on 4 planes: one per plane port, in turn.
  // Each port then carries exactly its QP's 1024 data packets (4 MiB) plus the 6-byte
  // flow-control packets returning the credits of what arrives on it (one per ACK, one ACK per
  // packet: fabric.nic.ack_every 1), i.e. 1024 x (4122 + 6) + 16 bytes; another QP's packet
  // would add 4122. The four run in parallel at r = 100 Gb/s each, the NIC's 400 Gb/s together:
  //   T = (1024 x 4122 + 16) x 8 / r = 337.7 us each, within 2 %.
  const std::string flows =
      "workload: {kind: pattern, pattern: flows, flows: [[0, 4, 4MiB, 0us], [0, 5, 4MiB, 0us], "
      "[0, 6, 4MiB, 0us], [0, 7, 4MiB, 0us]]}\n";
  Simulation sim(load(ib_fabric(4, flows)));
  sim.start_workload();
  ASSERT_TRUE(sim.run());
  const double t = ser_ps(1024 * kPacketBytes + 16, kNicBps / 4);
  const net::Network& net = sim.network();
  const net::Switch& sel = net.switch_at(0);
  for (uint32_t m = 0; m < 4; ++m) {
    EXPECT_LT(static_cast<double>(fct_of(sim, m)), 1.02 * t) << "flow " << m;
    // QP m on plane m: its plane port carried its data, give or take flow-control packets.
    const double bytes = static_cast<double>(net.port_tx_bytes(sel.first_port + 1 + m));
    EXPECT_NEAR(bytes, 1024 * (kPacketBytes + kFcBytes) + 16, 100 * kFcBytes) << "plane " << m;
  }
  // The destinations' LIDs on each plane: plane p's SM numbers its CAs from 1 in NIC order.
  const routing::PlaneSubnets* subnets = sim.subnets();
  ASSERT_NE(subnets, nullptr);
  ASSERT_EQ(subnets->planes(), 4u);
  for (uint32_t p = 0; p < 4; ++p) {
    EXPECT_EQ(subnets->plane_routes(p).nic_lid[7], 8) << "plane " << p;
    EXPECT_EQ(subnets->plane_routes(p).unreachable_pairs, 0) << "plane " << p;
  }
}

TEST(MultiPlaneIb, AFailedPlaneKeepsItsQpsWhichExhaustTheirRetries) {
  // 2 planes; NIC 0's QP to NIC 4 is bound to plane 0, its QP to NIC 5 to plane 1. Plane 1 fails
  // at 50 us. A QP is bound to its port: the plane-1 QP does not move to plane 0. Its packets are
  // lost at the dead port, it times out retry_count + 1 times and enters the error state (its
  // flow never finishes), while the plane-0 QP finishes untouched at r = 200 Gb/s:
  //   T = (1024 x 4122 + 16) x 8 / 200G = 168.9 us. A QP opened after the failure (NIC 0 to
  // NIC 6 at 60 us) takes the working port, plane 0, and finishes too.
  const std::string flows =
      "workload: {kind: pattern, pattern: flows, flows: [[0, 4, 4MiB, 0us], [0, 5, 4MiB, 0us], "
      "[0, 6, 64KiB, 60us]]}\n";
  RunResult r = run_scenario(load(
      ib_fabric(2, flows, "faults: {plane_down: {plane: 1, at: 50us}}\n")));
  ASSERT_EQ(r.flows.size(), 3u);
  const double t = ser_ps(1024 * kPacketBytes + 16, kNicBps / 2);
  EXPECT_GE(r.flows[0].finish_ps, 0) << "plane 0's QP finishes";
  EXPECT_LT(static_cast<double>(r.flows[0].fct_ps()), 1.05 * t);
  EXPECT_LT(r.flows[1].finish_ps, 0) << "plane 1's QP never moves to plane 0";
  EXPECT_GE(r.flows[2].finish_ps, 0) << "a QP opened after the failure binds to plane 0";
  EXPECT_EQ(r.counters.qp_errors, 1) << "the plane-1 QP exhausted its retries";
  EXPECT_EQ(r.failure.unrecovered_qps, 1);
  // Nothing of the plane-1 QP crossed plane 0: NIC 0's plane-0 port carried flows 0 and 2 (1024
  // + 16 packets, with a flow-control packet per ACK as above) and not one retransmission.
  Scenario sc = load(ib_fabric(2, flows, "faults: {plane_down: {plane: 1, at: 50us}}\n"));
  Simulation sim(sc);
  sim.start_workload();
  sim.run();
  const net::Network& net = sim.network();
  const double plane0 = static_cast<double>(net.port_tx_bytes(net.switch_at(0).first_port + 1));
  EXPECT_NEAR(plane0, (1024 + 16) * (kPacketBytes + kFcBytes) + 2 * 16, 100 * kFcBytes);
}

TEST(MultiPlaneIb, ALinkFailureReSweepsItsPlaneOnly) {
  // Plane 1's first leaf (switch 16 + 6 = 22: 16 selectors, then plane 0's 6 switches) loses
  // uplink 4 at 10 us; the SM of plane 1 re-sweeps (trap) 5 us + 1 us later and, its tree no
  // longer uniform, falls back to up/down. Plane 0's SM sees no trap: its switches keep the very
  // tables of the first sweep, and it stays on ftree.
  const std::string flows =
      "workload: {kind: pattern, pattern: flows, flows: [[0, 4, 1MiB, 0us], [0, 5, 1MiB, 0us]]}\n"
      "faults: {link_down: {switch: 22, port: 4, at: 10us}}\n"
      "routing: {sm: {sweep_delay: 5us, reprogram_time: 1us}}\n";
  // With adaptive routing the failed cable's switches also drop the port from their AR groups
  // at once (SHIELD-like local repair), both in plane 1: plane 0 is untouched either way.
  for (const char* adaptive : {"false", "true"}) {
    Scenario sc = load(ib_fabric(2, flows));
    sc.recovery.adaptive = std::string(adaptive) == "true";
    Simulation sim(sc);
    const net::Network& net = sim.network();
    const routing::PlaneSubnets& subnets = *sim.subnets();
    auto tables = [&](uint32_t sw) { return net.switch_at(sw).group_ports; };
    std::vector<std::vector<uint32_t>> before;
    for (uint32_t s = 0; s < net.num_switches(); ++s) before.push_back(tables(s));
    sim.start_workload();
    sim.run();
    SCOPED_TRACE(std::string("adaptive ") + adaptive);
    ASSERT_GE(sim.routes_restored_ps(), 0) << "the re-sweep ran";
    for (uint32_t s = 16; s < 22; ++s) EXPECT_EQ(tables(s), before[s]) << "plane 0's switch " << s;
    EXPECT_NE(tables(22), before[22]) << "plane 1's leaf no longer uses its failed uplink";
    EXPECT_EQ(subnets.plane_routes(0).engine_used, routing::SmEngine::kFatTree);
    EXPECT_TRUE(subnets.plane_routes(0).fallback_reason.empty());
    EXPECT_EQ(subnets.plane_routes(1).engine_used, routing::SmEngine::kUpDown);
    EXPECT_EQ(sim.lid_routes().fallback_reason.rfind("plane 1: ", 0), 0u);
    EXPECT_EQ(subnets.sweeps(0), 1u) << "plane 0's SM ran its first sweep only";
    EXPECT_EQ(subnets.sweeps(1), 2u) << "plane 1's SM swept again after the trap";
    EXPECT_EQ(sim.transport().counters().qp_errors, 0) << "both QPs recover";
  }
}

// The one-line error a user sees: file:line: key: message.
std::string load_error(const std::string& yaml) {
  LoadedScenario s;
  try {
    s = load_scenario_string(yaml, "mpib.yaml");
    (void)resolve(s.scenario);
  } catch (const LoadError& e) {
    return e.what();
  } catch (const InputError& e) {
    return format_input_error(s, e);
  }
  return "";
}

TEST(MultiPlaneIb, SplitsBelowAQpAreRefused) {
  const std::string head =
      "fabric:\n  technology: ib\n  planes: {split: ";
  const std::string tail =
      "}\ntopology: {kind: leaf_spine, radix: 8, planes: 2}\nhosts: {count: 8}\n"
      "workload: {kind: pattern, pattern: permutation, flow_size: 64KB}\n";
  EXPECT_EQ(load_error(head + "packet" + tail),
            "mpib.yaml:3: fabric.planes.split: packet: on InfiniBand each plane is its own "
            "subnet and a QP is bound to one HCA port, so all of a QP's packets stay on one "
            "plane; use split: connection");
  EXPECT_EQ(load_error(head + "message" + tail)
                .rfind("mpib.yaml:3: fabric.planes.split: message: ", 0),
            0u);
  EXPECT_EQ(load_error(head + "connection" + tail), "");
  EXPECT_NE(load_error("fabric: {technology: ib, sharp: {enabled: true}}\n"
                       "topology: {kind: leaf_spine, radix: 8, planes: 2}\nhosts: {count: 8}\n"
                       "workload: {kind: pattern, pattern: permutation, flow_size: 64KB}\n")
                .find("fabric.sharp.enabled"),
            std::string::npos);
}

}  // namespace multi_plane_ib_test
}  // namespace fabricsim::scenario
