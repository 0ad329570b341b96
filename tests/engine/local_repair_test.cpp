// Local repair of a failed cable's ECMP groups, link flaps, and InfiniBand's two reactions (issue
// 22 item 4; docs/load-balancing.md "Link failure, local repair and flaps").
//
//              spine (switch 2)            leaf-spine, radix 8, 8 NICs, 100 Gb/s: two leaves of
//            //  ||  ||  \\                4 NICs (ports 0-3) and 4 uplinks (ports 4-7), one spine
//       4 cables       4 cables            (the fewest that takes every uplink), so every leaf has
//           //        \\                   4 parallel cables to it. Leaf 0's port 4 fails at 50 us
//       leaf 0        leaf 1               with 3 parallel cables left. NICs 0-3 each send 2 MB
//       0 1 2 3       4 5 6 7              to each of NICs 4-7 (16 QPs), all sending at 50 us.
//
// The expectations are counted in the test: which ports a group holds, drops at the dead port
// before and after the repair instant, and at most 3 x 100 Gb/s through the three live cables.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/time.h"
#include "engine/packet/simulation.h"
#include "spec/load.h"

namespace fabricsim {
namespace local_repair_test {

constexpr int64_t kFailPs = 50 * kPsPerUs;
constexpr int64_t kDetectPs = 20 * kPsPerUs;  // routing.ecmp.local_repair_delay below

std::string flows_yaml() {
  std::string f = "  flows: [";
  for (int s = 0; s < 4; ++s) {
    for (int d = 4; d < 8; ++d) {
      f += "[" + std::to_string(s) + ", " + std::to_string(d) + ", 2MB, 0us]";
      f += (s == 3 && d == 7) ? "]\n" : ", ";
    }
  }
  return f;
}

const std::string kYaml = std::string(R"(
name: local-repair
seed: 3
fabric:
  technology: roce
  link: {rate: 100Gbps, cable: 3m}
  pfc: {enabled: true}
  roce: {ack_timeout_exponent: 4}
topology: {kind: leaf_spine, radix: 8}
hosts: {count: 8}
routing: {ecmp: {convergence: 1ms, local_repair_delay: 20us},
          sm: {sweep_delay: 100us, reprogram_time: 20us}}
faults: {link_down: {switch: 0, port: 4, at: 50us}}
workload:
  kind: pattern
  pattern: flows
)") + flows_yaml();

scenario::Scenario load(const std::vector<std::string>& set = {}) {
  return scenario::load_scenario_string(kYaml, "local-repair.yaml", set).scenario;
}

// The member ports of switch `sw`'s forwarding group towards NIC `dst` (Ethernet: by leaf slot).
std::vector<uint32_t> group_towards(const net::Network& net, uint32_t sw, uint32_t dst) {
  const net::Switch& s = net.switch_at(sw);
  const uint16_t g = s.group_of_key[net.leaf_slot_of_nic(dst)];
  std::vector<uint32_t> ports(s.group_ports.begin() + s.group_offsets[g],
                              s.group_ports.begin() + s.group_offsets[g + 1]);
  std::sort(ports.begin(), ports.end());
  return ports;
}

// Leaf 0's uplinks (ports 4-7), without `except` (kNoPort: all four).
std::vector<uint32_t> uplinks(const net::Network& net, uint32_t except = net::kNoPort) {
  std::vector<uint32_t> v;
  for (uint32_t k = 4; k < 8; ++k) {
    if (net.switch_at(0).first_port + k != except) v.push_back(net.switch_at(0).first_port + k);
  }
  return v;
}

int64_t drops_at(const scenario::Simulation& sim, uint32_t port) {
  return sim.network().queues(port).drops;
}

// How many of the 16 QPs leaf 0 hashes onto `port`.
int qps_hashed_to(scenario::Simulation& sim, uint32_t port) {
  int n = 0;
  const transport::RoceTransport& t = *sim.roce();
  for (uint32_t q = 0; q < t.num_qps(); ++q) {
    net::Packet pkt;
    pkt.src_nic = t.qp(q).src_nic;
    pkt.dst_nic = t.qp(q).dst_nic;
    pkt.entropy = t.qp(q).entropy;
    n += sim.network().egress_port(0, pkt) == port;
  }
  return n;
}

TEST(LocalRepair, FailedUplinkIsLeftWithinTheDetectionDelayNotTheConvergenceTime) {
  scenario::Simulation sim(load());
  const net::Network& net = sim.network();
  const uint32_t failed = net.switch_at(0).first_port + 4;
  const uint32_t spine_end = net.port(failed).peer;
  sim.start_workload();
  sim.run(kFailPs - 1);
  ASSERT_GT(net.port_tx_bytes(failed), 0) << "test scenario: the uplink carried data";
  ASSERT_GT(qps_hashed_to(sim, failed), 0) << "test scenario: some QP hashes onto it";
  sim.run(kFailPs);  // the failure (a network event) runs before the stop at that instant
  ASSERT_FALSE(net.port(failed).up);
  const int64_t drops_at_failure = drops_at(sim, failed);
  EXPECT_EQ(group_towards(net, 0, 4), uplinks(net)) << "before detection the group is unchanged";

  sim.run(kFailPs + kDetectPs - 1);
  EXPECT_GT(drops_at(sim, failed), drops_at_failure)
      << "until the failure is detected, packets are still hashed onto the dead port";
  EXPECT_EQ(group_towards(net, 0, 4), uplinks(net));

  sim.run(kFailPs + kDetectPs);
  EXPECT_EQ(sim.local_repair_ps(), kFailPs + kDetectPs);
  EXPECT_EQ(group_towards(net, 0, 4), uplinks(net, failed)) << "three parallel cables left";
  const std::vector<uint32_t> spine_group = group_towards(net, 2, 0);
  EXPECT_EQ(spine_group.size(), 3u) << "the spine's group towards leaf 0 lost the other end";
  EXPECT_EQ(std::count(spine_group.begin(), spine_group.end(), spine_end), 0);
  EXPECT_EQ(qps_hashed_to(sim, failed), 0) << "no QP hashes onto the dead port any more";
  const int64_t drops_at_repair = drops_at(sim, failed) + drops_at(sim, spine_end);
  int64_t live_tx_at_repair = 0;
  for (const uint32_t p : uplinks(net, failed)) live_tx_at_repair += net.port_tx_bytes(p);

  constexpr int64_t kWindowPs = 200 * kPsPerUs;
  sim.run(kFailPs + kDetectPs + kWindowPs);
  EXPECT_EQ(drops_at(sim, failed) + drops_at(sim, spine_end), drops_at_repair)
      << "from the repair on nothing is sent to the dead cable";
  EXPECT_LT(sim.routes_restored_ps(), 0) << "routing (1 ms) has not converged yet";
  int64_t live_tx = -live_tx_at_repair;
  for (const uint32_t p : uplinks(net, failed)) live_tx += net.port_tx_bytes(p);
  // Three cables of 100 Gb/s carry at most 3 x 12.5 bytes/ns (wire bytes, preamble and gap
  // included), plus one frame each that was being serialized at the window's start.
  const int64_t cap_bytes = 3 * (kWindowPs / 80) + 3 * 4200;
  EXPECT_LE(live_tx, cap_bytes);
  EXPECT_GT(live_tx, cap_bytes / 2) << "the three cables carry the leaf's traffic";

  ASSERT_TRUE(sim.run()) << "the run finishes";
  for (uint32_t m = 0; m < sim.transport().num_messages(); ++m) {
    EXPECT_GE(sim.transport().message(m).rx_done_ps, 0) << "message " << m << " delivered";
  }
}

TEST(LocalRepair, WithoutItTheDeadPortDropsUntilRoutingConverges) {
  scenario::Simulation sim(load({"routing.ecmp.local_repair=false"}));
  const net::Network& net = sim.network();
  const uint32_t failed = net.switch_at(0).first_port + 4;
  sim.start_workload();
  sim.run(kFailPs + kDetectPs);
  const int64_t drops = drops_at(sim, failed);
  sim.run(kFailPs + kDetectPs + 200 * kPsPerUs);
  EXPECT_GT(drops_at(sim, failed), drops) << "the group still holds the dead port";
  EXPECT_EQ(group_towards(net, 0, 4), uplinks(net));
  EXPECT_LT(sim.local_repair_ps(), 0);
}

// A flap: down at 50 us, up at 150 us; routing converges in 200 us. The port is out of the
// groups from the repair (70 us) until routing has the cable back (150 + 200 = 350 us): the
// convergence that the failure triggered (at 250 us) still computes without it.
TEST(LocalRepair, AFlapRestoresThePortAfterTheRoutingHasItBack) {
  scenario::Simulation sim(
      load({"faults.link_down.until=150us", "routing.ecmp.convergence=200us"}));
  const net::Network& net = sim.network();
  const uint32_t failed = net.switch_at(0).first_port + 4;
  sim.start_workload();
  sim.run(150 * kPsPerUs);
  EXPECT_TRUE(net.port(failed).up) << "the cable is back";
  EXPECT_EQ(sim.link_up_ps(), 150 * kPsPerUs);
  const int64_t tx_at_up = net.port_tx_bytes(failed);
  const int64_t drops_after = drops_at(sim, failed);
  sim.run(350 * kPsPerUs - 1);
  EXPECT_EQ(sim.routes_restored_ps(), 250 * kPsPerUs) << "the failure's convergence ran";
  EXPECT_EQ(group_towards(net, 0, 4), uplinks(net, failed))
      << "routing does not have the cable back yet";
  EXPECT_EQ(net.port_tx_bytes(failed), tx_at_up) << "nothing is forwarded onto it yet";
  sim.run(350 * kPsPerUs);
  EXPECT_EQ(group_towards(net, 0, 4), uplinks(net)) << "the port is back in the group";
  EXPECT_GT(qps_hashed_to(sim, failed), 0);
  sim.run(450 * kPsPerUs);
  EXPECT_GT(net.port_tx_bytes(failed), tx_at_up) << "traffic uses the cable again";
  EXPECT_EQ(drops_at(sim, failed), drops_after) << "and nothing more is lost on it";
  ASSERT_TRUE(sim.run());
  EXPECT_EQ(sim.link_downs(), 1);
}

// Two cycles, 300 us apart: down 50-150 us and 350-450 us, convergence 50 us. Each outage loses
// packets until its repair, and each time the port comes back after up + convergence.
TEST(LocalRepair, RepeatedFlapsRepairAndRestoreEveryCycle) {
  scenario::Simulation sim(load({"faults.link_down.until=150us", "faults.link_down.flaps=2",
                                 "faults.link_down.period=300us",
                                 "routing.ecmp.convergence=50us"}));
  const net::Network& net = sim.network();
  const uint32_t failed = net.switch_at(0).first_port + 4;
  sim.start_workload();
  for (const int64_t down_ps : {kFailPs, kFailPs + 300 * kPsPerUs}) {
    SCOPED_TRACE(down_ps);
    sim.run(down_ps);
    ASSERT_FALSE(net.port(failed).up);
    const int64_t d0 = drops_at(sim, failed);
    sim.run(down_ps + kDetectPs - 1);
    EXPECT_GT(drops_at(sim, failed), d0) << "hashed onto the dead port until detected";
    sim.run(down_ps + kDetectPs);
    EXPECT_EQ(group_towards(net, 0, 4), uplinks(net, failed));
    sim.run(down_ps + 100 * kPsPerUs + 50 * kPsPerUs);  // up + convergence
    EXPECT_TRUE(net.port(failed).up);
    EXPECT_EQ(group_towards(net, 0, 4), uplinks(net)) << "restored";
  }
  ASSERT_TRUE(sim.run());
  EXPECT_EQ(sim.link_downs(), 2);
  EXPECT_EQ(net.queues(failed).down_count, 2);
  const scenario::RunResult r = sim.harvest(true);
  EXPECT_EQ(r.failure.link_downs, 2);
  EXPECT_EQ(r.failure.local_repair_ps, kFailPs + kDetectPs);
  EXPECT_EQ(r.failure.link_up_ps, 150 * kPsPerUs);
}

// InfiniBand: static LFTs keep forwarding onto the dead port until the SM's sweep (100 us) and
// programming (20 us); adaptive routing leaves it at the next packet (port state in hardware).
TEST(LocalRepair, InfiniBandStaticWaitsForTheSmAdaptiveReroutesAtOnce) {
  for (const bool adaptive : {false, true}) {
    SCOPED_TRACE(adaptive ? "adaptive" : "static");
    scenario::Simulation sim(load({"fabric.technology=ib", "fabric.pfc.enabled=false",
                                   std::string("routing.sm.adaptive=") +
                                       (adaptive ? "true" : "false")}));
    const net::Network& net = sim.network();
    const uint32_t failed = net.switch_at(0).first_port + 4;
    sim.start_workload();
    sim.run(kFailPs - 1);
    ASSERT_GT(net.port_tx_bytes(failed), 0) << "test scenario: the uplink carried data";
    sim.run(kFailPs);
    const int64_t d0 = drops_at(sim, failed);
    sim.run(kFailPs + 50 * kPsPerUs);
    if (adaptive) {
      EXPECT_EQ(drops_at(sim, failed), d0) << "AR never chooses a port that is down";
      EXPECT_EQ(sim.local_repair_ps(), kFailPs);
    } else {
      EXPECT_GT(drops_at(sim, failed), d0) << "the LFT still points at the dead port";
      EXPECT_LT(sim.local_repair_ps(), 0);
    }
    sim.run(kFailPs + 120 * kPsPerUs);
    EXPECT_EQ(sim.routes_restored_ps(), kFailPs + 120 * kPsPerUs) << "sweep + programming";
    const int64_t d1 = drops_at(sim, failed);
    sim.run(kFailPs + 220 * kPsPerUs);
    EXPECT_EQ(drops_at(sim, failed), d1) << "the SM's tables avoid the cable";
    ASSERT_TRUE(sim.run());
  }
}

// InfiniBand, the cable back up at 100 us (down at 50 us; SM sweep 100 us + programming 20 us):
// the trained port waits in the Init state until the SM's sweep after the link-up activates it
// (100 + 120 = 220 us; the sweep the failure triggered at 170 us still routes without it). Link
// initialization then gives each sender the far receiver's free buffer as credits (IBA 7.9:
// FCCL - FCTBS = free blocks) and traffic crosses the cable again with no credit violation.
TEST(LocalRepair, InfiniBandLinkBackUpIsUsedAfterTheSmActivatesItWithFreshCredits) {
  scenario::Simulation sim(load({"fabric.technology=ib", "fabric.pfc.enabled=false",
                                 "faults.link_down.until=100us"}));
  const net::Network& net = sim.network();
  const uint32_t failed = net.switch_at(0).first_port + 4;
  sim.start_workload();
  sim.run(100 * kPsPerUs);
  EXPECT_EQ(sim.link_up_ps(), 100 * kPsPerUs);
  EXPECT_FALSE(net.port(failed).up) << "Init: no data through it before the SM activates it";
  const int64_t tx_at_up = net.port_tx_bytes(failed);
  sim.run(220 * kPsPerUs - 1);
  EXPECT_EQ(sim.routes_restored_ps(), 170 * kPsPerUs);
  EXPECT_FALSE(net.port(failed).up);
  EXPECT_EQ(net.port_tx_bytes(failed), tx_at_up);
  sim.run(220 * kPsPerUs);
  ASSERT_TRUE(net.port(failed).up) << "the SM's sweep after the link-up activated it";
  for (const uint32_t id : {failed, net.port(failed).peer}) {
    const net::PortQueues& q = net.queues(id);
    const net::PortQueues& far = net.queues(net.port(id).peer);
    for (int vl = 0; vl < net::kPriorities; ++vl) {
      // IBA 7.9: FCCL = ABR + min(free blocks, 2048), and FCTBS = ABR after link init.
      EXPECT_EQ(q.fc_limit_blocks[vl] - q.fc_sent_blocks[vl],
                std::min<uint32_t>(far.rx_buffer_blocks - far.rx_blocks[vl],
                                   net::kIbMaxAdvertisedBlocks))
          << "port " << id << " VL " << vl << ": credits = the receiver's free blocks, at most "
          << "the window";
    }
  }
  sim.run(300 * kPsPerUs);
  EXPECT_GT(net.port_tx_bytes(failed), tx_at_up) << "the SM routes over it again";
  ASSERT_TRUE(sim.run());
  EXPECT_EQ(net.counters().credit_violations, 0);
  for (uint32_t m = 0; m < sim.transport().num_messages(); ++m) {
    EXPECT_GE(sim.transport().message(m).rx_done_ps, 0) << "message " << m << " delivered";
  }
}

}  // namespace local_repair_test
}  // namespace fabricsim
