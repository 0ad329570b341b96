// The GPU node model (node::GpuNet) against figures derived here from the spec's parameters and
// the wire format, never from the model's own functions:
//
//   node 0                                   node 1
//   GPU0..7 --NVLink/NVSwitch--              GPU8..15 --NVLink/NVSwitch--
//     |PCIe Gen5 x16                           |
//   PCIe switch (1 GPU + 1 NIC)              PCIe switch
//     |                                        |
//   NIC0..7 ---- leaf-spine fabric (400G, 3 m cables) ---- NIC8..15
//
// NVLink: 450 GB/s x 370.8/450 = 370.8 GB/s usable (NCCL SM90_NVLINK_BW x 18). PCIe Gen5 x16:
// 16 x 32 GT/s x 128/130 / 8 x 256/(256+24) = 57.61 GB/s per direction. Fabric: every RoCE
// WRITE packet is its payload + 82 B (preamble, IFG, Eth, IP, UDP, BTH, ICRC, FCS; SPEC §8),
// the first + 16 B RETH.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "spec/load.h"
#include "../support/gpu_arrivals.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace gpu_net_test {

scenario::Scenario two_nodes(int gpus, int nics_per_host) {
  scenario::Scenario sc;
  sc.topology.tiers = 2;
  sc.topology.radix = 16;
  sc.topology.hosts = 2;
  sc.topology.nics_per_host = nics_per_host;
  sc.link.rate_bps = 400'000'000'000;
  sc.link.cable_m = 3.0;
  sc.switch_config.latency_ps = 450'000;
  sc.node.gpus_per_node = gpus;
  return sc;
}

using test_support::Arrivals;  // tests/support/gpu_arrivals.h

// Usable bytes per second of one PCIe Gen5 x16 direction, from the PCIe figures above.
double pcie_gen5_x16_bytes_per_s() { return 16 * 32e9 * 128.0 / 130.0 / 8.0 * 256.0 / 280.0; }

// Completion time of one RoCE WRITE alone on the fabric, term by term: serialization of every
// frame, propagation over `switches + 1` cables, each switch's latency, the NIC pipelines and
// the NIC/host per-message costs of the default profile (as tests/transport/single_flow_test).
double fabric_ps(const scenario::Simulation& sim, int64_t size, int switches) {
  int64_t wire = 16;
  const int mtu = sim.scenario().roce.mtu_bytes;
  for (int64_t left = size; left > 0; left -= mtu) wire += std::min<int64_t>(left, mtu) + 82;
  const net::NicConfig& n = sim.scenario().nic;
  const double nic =
      static_cast<double>(n.host_post_ps + n.doorbell_ps + n.dma_read_ps + n.tx_latency_ps +
                          n.rx_latency_ps + n.mem_write_ps + n.host_poll_ps);
  const double prop_ps = 3.0 * 5.0 * 1000.0;  // 5 ns per metre
  return static_cast<double>(wire) * 8.0 / 400e9 * 1e12 + (switches + 1) * prop_ps +
         switches * 450'000.0 + nic;
}

TEST(GpuNet, IntraNodeTransferIsNvlinkLatencyPlusSerialization) {
  scenario::Simulation sim(two_nodes(8, 8));
  Arrivals arr;
  arr.attach(sim);
  const int64_t size = 64 << 20;
  sim.gpu_net()->send(0, 1, size, 7);
  sim.run();
  const double expected = 600'000.0 + size / 370.8e9 * 1e12;
  EXPECT_NEAR(static_cast<double>(arr.of(7)), expected, 1.0) << "600 ns + 64 MiB / 370.8 GB/s";
  EXPECT_NEAR(static_cast<double>(sim.gpu_net()->idle_transfer_ps(0, 1, size)), expected, 1.0);
  EXPECT_NEAR(sim.gpu_net()->path_rate_bytes_per_s(0, 1), 370.8e9, 1e3);
}

TEST(GpuNet, TwoTransfersIntoOneGpuShareItsIngressFairly) {
  scenario::Simulation sim(two_nodes(8, 8));
  Arrivals arr;
  arr.attach(sim);
  const int64_t size = 64 << 20;
  sim.gpu_net()->send(0, 2, size, 1);
  sim.gpu_net()->send(1, 2, size, 2);
  sim.run();
  // NVLink interleaves the two at flit grain: each gets r/2 of GPU 2's ingress for the whole
  // time, so both last bytes leave at 2S/r (a FIFO per message would give S/r and 2S/r).
  const double ser = size / 370.8e9 * 1e12;
  EXPECT_NEAR(static_cast<double>(arr.of(1)), 600'000.0 + 2 * ser, 2.0);
  EXPECT_NEAR(static_cast<double>(arr.of(2)), 600'000.0 + 2 * ser, 2.0);
  const node::GpuNet& g = *sim.gpu_net();
  const node::FluidServer in = g.server(g.resource(node::ResourceKind::kNvlinkIn, 0, 2));
  EXPECT_EQ(in.bytes, 2 * size);
  EXPECT_NEAR(static_cast<double>(in.busy_ps), 2 * ser, 2.0) << "busy exactly 2 S / r";
}

TEST(GpuNet, CrossNodeGpuDirectIsPcieSwitchCrossingsPlusFabric) {
  scenario::Simulation sim(two_nodes(8, 8));
  Arrivals arr;
  arr.attach(sim);
  const int64_t size = 1 << 20;
  const int hops = sim.routes().switch_hops(0, 8);
  sim.gpu_net()->send(0, 8, size, 3);
  sim.run();
  // PCIe (57.6 GB/s) is faster than the 400G wire (50 GB/s), so its serialization hides under
  // the wire's: each side adds only one PCIe switch crossing (150 ns).
  ASSERT_GT(pcie_gen5_x16_bytes_per_s(), 400e9 / 8);
  const double expected = 2 * 150'000.0 + fabric_ps(sim, size, hops);
  EXPECT_NEAR(static_cast<double>(arr.of(3)), expected, expected * 0.02);
  EXPECT_NEAR(static_cast<double>(sim.gpu_net()->idle_transfer_ps(0, 8, size)), expected,
              expected * 0.02);
  EXPECT_EQ(sim.transport().num_messages(), 1u);
  EXPECT_EQ(sim.roce()->qp(sim.roce()->message(0).qp).src_nic, 0u);
}

TEST(GpuNet, InfinibandFabricCarriesGpuTransfersToo) {
  scenario::Scenario sc = two_nodes(8, 8);
  sc.technology = scenario::Technology::kInfiniband;
  scenario::Simulation sim(sc);
  Arrivals arr;
  arr.attach(sim);
  const int64_t size = 1 << 20;
  sim.gpu_net()->send(3, 11, size, 4);
  sim.run();
  // The GPU-side parts (PCIe both sides) of the run equal the idle-machine arithmetic's: the
  // run minus the transport message's own completion time, against idle_transfer_ps minus the
  // transport's ideal completion time. (The IB fabric itself completes this message ~30 ns
  // later than transport::ideal_fct_ps says: a property of the IB model, not of the node's.)
  ASSERT_GT(arr.of(4), 0);
  const transport::MessageRecord& m = sim.transport().message(0);
  const scenario::Scenario& r = sim.scenario();
  const int64_t ideal = transport::ideal_fct_ps(size, sim.routes().switch_hops(3, 11), r.roce,
                                                r.link, r.switch_config, r.nic);
  EXPECT_EQ(arr.of(4) - (m.rx_done_ps - m.post_ps),
            sim.gpu_net()->idle_transfer_ps(3, 11, size) - ideal);
  EXPECT_EQ(m.post_ps, 150'000) << "posted when the first byte crossed the PCIe switch";
}

// Per-GPU rate when 4 GPUs of node 0 each send S to a GPU of node 1 at once.
double per_gpu_rate(int nics_per_host) {
  scenario::Scenario sc = two_nodes(4, nics_per_host);
  sc.node.sockets = 1;
  scenario::Simulation sim(sc);
  Arrivals arr;
  arr.attach(sim);
  const int64_t size = 4 << 20;
  for (uint32_t g = 0; g < 4; ++g) sim.gpu_net()->send(g, 4 + g, size, g);
  sim.run();
  int64_t last = 0;
  for (const auto& [c, t] : arr.at) last = std::max(last, t);
  EXPECT_EQ(arr.at.size(), 4u);
  // All four have their data only when the last one has: the rate each GPU saw on average.
  return size / (static_cast<double>(last) * 1e-12);
}

TEST(GpuNet, FourGpusSharingOneNicGetAQuarterOfTheOneToOneRate) {
  const double one_to_one = per_gpu_rate(4);
  const double shared = per_gpu_rate(1);
  // 1:1 each GPU has a 400G NIC: close to its 4096/(4096+82) payload rate.
  EXPECT_NEAR(one_to_one, 50e9 * 4096 / 4178, 50e9 * 0.05);
  EXPECT_NEAR(shared / one_to_one, 0.25, 0.25 * 0.05);
}

TEST(GpuNet, GpuWhoseNicIsOnAnotherSwitchCrossesTheRootComplex) {
  // 4 GPUs, one PCIe switch each, one NIC (on switch 0): GPU 1's path to it is GPU link ->
  // switch 1 -> uplink -> root complex -> uplink -> switch 0 -> NIC link.
  scenario::Scenario sc = two_nodes(4, 1);
  sc.node.sockets = 1;
  scenario::Simulation sim(sc);
  Arrivals arr;
  arr.attach(sim);
  const int64_t size = 1 << 20;
  sim.gpu_net()->send(0, 4, size, 0);  // GPU 0 and its NIC share switch 0, on both nodes
  sim.run();
  sim.gpu_net()->send(1, 5, size, 1);
  const int64_t start = sim.scheduler().now_ps;
  sim.run();
  // Two more device crossings (root complex, other switch) on each side: 4 x 150 ns; the x16
  // uplinks run at the GPU link's rate, so no serialization shows.
  EXPECT_NEAR(static_cast<double>(arr.of(1) - start - arr.of(0)), 4 * 150'000.0, 2.0);
  const node::GpuNet& g = *sim.gpu_net();
  EXPECT_EQ(g.server(g.resource(node::ResourceKind::kUplinkUp, 0, 1)).bytes, size);
  EXPECT_EQ(g.server(g.resource(node::ResourceKind::kUplinkDown, 0, 0)).bytes, size);
  EXPECT_EQ(g.server(g.resource(node::ResourceKind::kUplinkUp, 1, 0)).bytes, size);
  EXPECT_EQ(g.server(g.resource(node::ResourceKind::kUplinkDown, 1, 1)).bytes, size);
  EXPECT_EQ(g.server(g.resource(node::ResourceKind::kUplinkUp, 0, 0)).bytes, 0);
}

TEST(GpuNet, StagedExceedsGpuDirectByTheExtraCrossingsAndCopies) {
  const int64_t size = 1 << 20;
  int64_t t[2];
  for (int gdr = 0; gdr < 2; ++gdr) {
    scenario::Scenario sc = two_nodes(8, 8);
    sc.node.gpudirect = gdr == 1;
    scenario::Simulation sim(sc);
    Arrivals arr;
    arr.attach(sim);
    sim.gpu_net()->send(0, 8, size, 9);
    sim.run();
    t[gdr] = arr.of(9);
    EXPECT_NEAR(static_cast<double>(sim.gpu_net()->idle_transfer_ps(0, 8, size)),
                static_cast<double>(t[gdr]), 2.0);
  }
  // Staged, per side: the copy between GPU and host memory is store-and-forward at message
  // grain (S at PCIe rate; DRAM at 307 GB/s and the x16 uplink are not slower), the CPU proxy
  // (2 us), and three device crossings more than GPUDirect's one (GPU switch, root complex on
  // the way in; root complex, NIC switch on the way out): 3 x 150 ns extra.
  const double copy_ps = size / pcie_gen5_x16_bytes_per_s() * 1e12;
  const double extra = 2 * (copy_ps + 2'000'000.0 + 3 * 150'000.0);
  EXPECT_NEAR(static_cast<double>(t[0] - t[1]), extra, 10.0);
}

TEST(GpuNet, PxnSendsCrossRailTrafficFromTheDestinationsRail) {
  for (bool pxn : {true, false}) {
    scenario::Scenario sc = two_nodes(8, 8);
    sc.node.pxn = pxn;
    scenario::Simulation sim(sc);
    Arrivals arr;
    arr.attach(sim);
    sim.gpu_net()->send(0, 9, 1 << 20, 5);  // GPU 0 (rail 0) -> GPU 9 = node 1, local 1 (rail 1)
    sim.run();
    ASSERT_GE(arr.of(5), 0);
    const transport::Qp& q = sim.roce()->qp(sim.roce()->message(0).qp);
    EXPECT_EQ(q.src_nic, pxn ? 1u : 0u) << "PXN leaves from the NIC of node 0's rail-1 GPU";
    EXPECT_EQ(q.dst_nic, 9u);
    const node::GpuNet& g = *sim.gpu_net();
    EXPECT_EQ(g.server(g.resource(node::ResourceKind::kNvlinkOut, 0, 0)).bytes,
              pxn ? int64_t{1} << 20 : 0);
  }
}

TEST(GpuNet, TimersFireAndSlotsAreReused) {
  scenario::Simulation sim(two_nodes(8, 8));
  node::GpuNet& g = *sim.gpu_net();
  std::vector<int64_t> fired;
  int sends = 0;
  g.on_timer = [&](uint64_t cookie) { fired.push_back(g.now_ps()); };
  // A chain of 100 transfers, each started when the previous arrives: one slot in use at a time.
  g.on_arrived = [&](uint64_t cookie) {
    if (++sends < 100) g.send(cookie % 8, (cookie + 1) % 8, 4096, cookie + 1, 1000);
  };
  g.timer(5'000'000, 1);
  g.send(0, 1, 4096, 0);
  sim.run();
  EXPECT_EQ(sends, 100);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0], 5'000'000);
  EXPECT_LE(g.slots_allocated(), 2u);
  EXPECT_TRUE(g.idle());
}

TEST(GpuNet, NoGpuLayerByDefault) {
  scenario::Scenario sc = two_nodes(0, 1);
  scenario::Simulation sim(sc);
  EXPECT_EQ(sim.gpu_net(), nullptr);
}

std::string bad_key(const scenario::Scenario& sc) {
  try {
    scenario::Simulation sim(sc);
  } catch (const InputError& e) {
    return e.key_path();
  }
  return "";
}

TEST(GpuNet, ImpossibleNodesNameTheirKey) {
  scenario::Scenario sc = two_nodes(6, 4);
  EXPECT_EQ(bad_key(sc), "node.gpus_per_node") << "6 GPUs cannot share 4 NICs evenly";
  sc = two_nodes(8, 8);
  sc.node.gpus_per_pcie_switch = 3;
  EXPECT_EQ(bad_key(sc), "node.pcie.gpus_per_switch");
  sc = two_nodes(8, 2);
  sc.node.gpus_per_pcie_switch = 8;  // one PCIe switch holding both NICs
  EXPECT_EQ(bad_key(sc), "node.host.sockets") << "one switch cannot be split over 2 sockets";
  sc = two_nodes(4, 1);
  EXPECT_EQ(bad_key(sc), "node.host.sockets") << "1 NIC cannot be split over 2 sockets";
  sc = two_nodes(8, 8);
  sc.node.nvlink_efficiency = 1.5;
  EXPECT_EQ(bad_key(sc), "node.nvlink.efficiency");
}

// The loader checks each node.* key's type and range and names it in the one-line error.
std::string load_error(const std::string& yaml) {
  try {
    scenario::load_scenario_string(yaml, "s.yaml");
  } catch (const scenario::LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(GpuNet, BadNodeKeysAreLoadErrorsNamingTheKey) {
  EXPECT_NE(load_error("node:\n  pcie:\n    lanes: 3\n").find("s.yaml:3: node.pcie.lanes"),
            std::string::npos);
  EXPECT_NE(load_error("node:\n  gpus_per_node: -8\n").find("s.yaml:2: node.gpus_per_node"),
            std::string::npos);
  EXPECT_NE(load_error("node:\n  nvlink:\n    rate: 450\n").find("node.nvlink.rate"),
            std::string::npos)
      << "a rate without a unit";
  EXPECT_NE(load_error("node:\n  pcie:\n    generation: 6\n").find("node.pcie.generation"),
            std::string::npos);
  const scenario::LoadedScenario ok = scenario::load_scenario_string(
      "node:\n  gpus_per_node: 8\n  gpudirect: false\n  nvlink:\n    rate: 3600Gbps\n", "s.yaml");
  EXPECT_EQ(ok.scenario.node.gpus_per_node, 8);
  EXPECT_FALSE(ok.scenario.node.gpudirect);
  EXPECT_EQ(ok.scenario.node.nvlink_rate_bps, 3'600'000'000'000);
}

// Two nodes of one GPU and one 400G NIC each, in `mode`.
scenario::Scenario one_gpu_nodes(scenario::EngineMode mode) {
  scenario::Scenario sc = two_nodes(1, 1);
  sc.node.sockets = 1;
  sc.mode = mode;
  return sc;
}

TEST(GpuNet, AFoldedMessageIsPostedByItsWeightedShareOfTheNicLine) {
  // Flow mode: a weight-8 transfer (8 folded channels) and a weight-1 one leave GPU 0 for node 1
  // at once over the same PCIe path into one 400G NIC. Weighted max-min gives them 8/9 and 1/9
  // of PCIe (57.6 GB/s, above) and of the NIC's line. A message is posted when its first byte
  // is at the NIC unless PCIe would then fall behind its share of the line: the weight-1 one
  // needs S x 9 / 57.6 GB/s on PCIe and S x 9 / 50 GB/s on the line, so PCIe keeps up and both
  // are posted one PCIe switch crossing (150 ns) after the send. Counting crossings (2) instead
  // of weights would post it S x 9 / 57.6 - 2 x S / 50 GB/s = 975 us late.
  scenario::Simulation sim(one_gpu_nodes(scenario::EngineMode::kFlow));
  Arrivals arr;
  arr.attach(sim);
  constexpr int64_t kS = int64_t{8} << 20;
  ASSERT_LT(9.0 / pcie_gen5_x16_bytes_per_s(), 9.0 / (400e9 / 8));
  sim.gpu_net()->send(0, 1, kS, 0, 0, 0, 8, 0);
  sim.gpu_net()->send(0, 1, kS, 1, 0, 0, 1, 0);
  sim.run();
  ASSERT_EQ(sim.transport().num_messages(), 2u);
  EXPECT_EQ(sim.transport().message(0).post_ps, 150'000);
  EXPECT_EQ(sim.transport().message(1).post_ps, 150'000);
  EXPECT_GT(arr.of(0), 0);
  EXPECT_GT(arr.of(1), 0);
}

TEST(GpuNet, ARateCapHoldsTheStageIntoTheNic) {
  // Flow mode: a transfer capped at 10 GB/s (a folded P2P stream's credit loop,
  // collective.fold_p2p) enters the NIC at 10 GB/s, below PCIe's 57.6 and the line's 50: its
  // 8 MiB take 838.9 us to reach the NIC, and the message is posted when the 400G line,
  // serializing 8 MiB in 167.8 us, would not outrun it: 671.1 us after the first byte. It
  // arrives no sooner than its last byte reached the NIC.
  scenario::Simulation sim(one_gpu_nodes(scenario::EngineMode::kFlow));
  Arrivals arr;
  arr.attach(sim);
  constexpr int64_t kS = int64_t{8} << 20;
  sim.gpu_net()->send(0, 1, kS, 0, 0, 0, 1, 0, node::FoldedStream{80e9, 1});
  sim.run();
  const double pcie_ps = static_cast<double>(kS) / 10e9 * 1e12;
  const double line_ps = static_cast<double>(kS) * 8 / 400e9 * 1e12;
  EXPECT_NEAR(static_cast<double>(sim.transport().message(0).post_ps),
              150'000.0 + pcie_ps - line_ps, 2.0);
  EXPECT_GT(static_cast<double>(arr.of(0)), 150'000.0 + pcie_ps);
  // Outside flow mode a cap is refused: packet mode moves the chunks themselves.
  scenario::Simulation packet(one_gpu_nodes(scenario::EngineMode::kPacket));
  EXPECT_THROW(packet.gpu_net()->send(0, 1, kS, 0, 0, 0, 1, 0, node::FoldedStream{80e9, 1}),
               std::logic_error);
}

}  // namespace gpu_net_test
}  // namespace fabricsim
