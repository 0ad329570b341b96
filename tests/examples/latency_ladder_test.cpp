// The latency ladder (examples/latency.yaml, issue 12 item 7): `fabricsim compare` runs the
// ping-pong through one switch for every variant (fabric x era), and each variant's one-way
// latency (RTT / 2, perftest's figure) must
//   1. lie in the range derived here from that variant's own parameters, and
//   2. keep the ladder's order: tcp > iwarp > roce > ib where present, UET beside RoCE.
//
// The derivation (docs/calibration.md, section The latency ladder (item 7)), for one RDMA message of S bytes on an idle
// path NIC A -> cable -> switch -> cable -> NIC B (TCP and iWARP: see derive()):
//   one way = host_post + doorbell + (S > inline_max ? dma_read : 0)      sender's host + PCIe
//           + tx_latency + rx_latency                                      NIC pipelines
//           + 2 x cable x 5 ns/m                                            propagation
//           + switch latency                                                port to port
//           + wire bytes x 8 / rate                                         serialization
//           + mem_write + host_poll                                         receiver's PCIe + CPU
// The range is [that, that + one more frame serialization]: a cut-through switch starts the
// frame out once its header is in (so it adds at most one frame time), a store-and-forward one
// adds exactly one. The frame is built here from the header sizes of the specifications, not
// from the simulator's frame code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include <unistd.h>

#include "../support/cli_runner.h"
#include "resolve/fabric.h"
#include "spec/load.h"
#include "transport/tcp_config.h"

namespace fabricsim {
namespace latency_ladder_test {

namespace fs = std::filesystem;
using nlohmann::json;
using test_support::parse_csv;
using test_support::read_file;
using test_support::run_fabricsim;
using test_support::shell_quote;

const fs::path kExample = fs::path(FABRICSIM_SOURCE_DIR) / "examples" / "latency.yaml";

int64_t pad4(int64_t payload) { return (payload + 3) / 4 * 4; }  // BTH PadCnt (IBA §9.2)

// Ethernet (IEEE 802.3): 14 B header, 4 B FCS, 64 B minimum frame; on the wire also 7 B
// preamble + 1 B SFD and a 12 B inter-frame gap.
constexpr int64_t kEthHeader = 14, kFcs = 4, kMinFrame = 64, kPreambleIfg = 8 + 12;
constexpr int64_t kIpv4 = 20, kUdp = 8;  // RFC 791 (no options), RFC 768
// IBA Vol 1: LRH 8 (§7.7), BTH 12 (§9.2), RETH 16 (§9.3.3), ICRC 4 and VCRC 2 (§7.8).
constexpr int64_t kLrh = 8, kBth = 12, kReth = 16, kIcrc = 4, kVcrc = 2;
// UET (UE Specification 1.0.1 via Wireshark packet-uet.c): PDS RUD request 12 B, SES standard
// request 44 B, over UDP/IPv4/Ethernet.
constexpr int64_t kPdsRud = 12, kSesStandard = 44;

// TCP (RFC 9293) 20 B + the timestamps option (RFC 7323 §3: 10 B + 2 NOPs) = 32 B; iWARP adds
// per segment the MPA length 2 B and CRC32c 4 B (RFC 5044) around a DDP tagged header 14 B
// (RFC 5041 §4), the FPDU padded to 4 B.
constexpr int64_t kTcpWithTimestamps = 20 + 12, kMpaLength = 2, kDdpTagged = 14, kMpaCrc = 4;

// Bytes one S-byte message occupies on the wire (one frame), per technology: an RDMA WRITE for
// roce, ib and iwarp, a UET write, a TCP segment.
int64_t wire_bytes(const std::string& fabric, int64_t payload) {
  if (fabric == "tcp") {
    return std::max(kMinFrame, kEthHeader + kIpv4 + kTcpWithTimestamps + payload + kFcs) +
           kPreambleIfg;
  }
  if (fabric == "iwarp") {
    return std::max(kMinFrame, kEthHeader + kIpv4 + kTcpWithTimestamps +
                                   pad4(kMpaLength + kDdpTagged + payload) + kMpaCrc + kFcs) +
           kPreambleIfg;
  }
  if (fabric == "ib") return kLrh + kBth + kReth + pad4(payload) + kIcrc + kVcrc;
  if (fabric == "roce") {  // RoCEv2: IBA Annex A17, BTH + RETH over UDP/IPv4
    return std::max(kMinFrame, kEthHeader + kIpv4 + kUdp + kBth + kReth + pad4(payload) + kIcrc +
                                   kFcs) +
           kPreambleIfg;
  }
  if (fabric == "uet") {
    return std::max(kMinFrame, kEthHeader + kIpv4 + kUdp + kPdsRud + kSesStandard + payload + kFcs) +
           kPreambleIfg;
  }
  ADD_FAILURE() << "no derivation for fabric '" << fabric
                << "': add its frame and host-stack terms here and in docs/calibration.md, section The latency ladder (item 7)";
  return 0;
}

double serialization_ps(int64_t bytes, int64_t rate_bps) {
  return static_cast<double>(bytes) * 8.0 * 1e12 / static_cast<double>(rate_bps);
}

struct Range {
  double lo_ps = 0;
  double hi_ps = 0;
};

// The range of one variant, from the scenario the variant runs (the file with the variant's
// fabric and overrides applied, as compare applies them).
Range derive(const scenario::VariantSpec& v) {
  std::vector<std::string> sets = {"fabric.technology=" + v.fabric};
  sets.insert(sets.end(), v.sets.begin(), v.sets.end());
  scenario::Scenario sc = scenario::load_scenario_file(kExample.string(), sets);
  scenario::resolve_nic(sc);  // fabric.nic.profile and overrides -> sc.nic
  const net::NicConfig& nic = sc.nic;
  const transport::TcpConfig& tcp = sc.tcp;
  const int64_t size = sc.workload.ping_pong.size_bytes;
  // RDMA (roce, ib, uet, iwarp): the verbs post, the doorbell (carrying an inline WQE), the NIC
  // pipelines, the payload's write into host memory and the polling CPU.
  double host_and_nic = static_cast<double>(
      nic.host_post_ps + nic.doorbell_ps + (size > nic.inline_max_bytes ? nic.dma_read_ps : 0) +
      nic.tx_latency_ps + nic.rx_latency_ps + nic.mem_write_ps + nic.host_poll_ps);
  if (v.fabric == "iwarp") {
    // The RNIC's TCP/MPA/DDP work on top of the pipelines (docs/transports.md "iWARP").
    host_and_nic += static_cast<double>(tcp.iwarp_tx_extra_ps + tcp.iwarp_rx_extra_ps);
  } else if (v.fabric == "tcp") {
    // Kernel sockets (docs/transports.md "TCP"): send() and recv() replace the post and the poll;
    // the driver always DMA-reads the descriptor and payload; one copy each side.
    const double copy_ps = static_cast<double>(size) * 8.0 * 1e12 /
                           static_cast<double>(tcp.host_copy_rate_bps);
    host_and_nic = static_cast<double>(tcp.host_tx_message_ps + tcp.host_tx_segment_ps +
                                       nic.doorbell_ps + nic.dma_read_ps + nic.tx_latency_ps +
                                       nic.rx_latency_ps + nic.mem_write_ps +
                                       tcp.host_rx_segment_ps + tcp.host_rx_message_ps) +
                   2 * copy_ps;
  }
  const double propagation = 2.0 * sc.link.cable_m * 5000.0;  // 5 ns/m, two cables
  const double sw = static_cast<double>(v.fabric == "ib" ? sc.ib.switch_latency_ps
                                                         : sc.switch_config.latency_ps);
  const double frame = serialization_ps(wire_bytes(v.fabric, size), sc.link.rate_bps);
  const double lo = host_and_nic + propagation + sw + frame;
  return {lo, lo + frame};
}

struct Measured {
  double typical_ps = 0;
  double min_ps = 0;
  double max_ps = 0;
  int64_t iterations = 0;
};

// `fabricsim compare examples/latency.yaml`, run once for the whole suite (it takes well under a
// second), into a directory of its own that is removed afterwards.
struct LadderRun {
  scenario::Scenario sc;
  std::string output;
  std::map<std::string, Measured> measured;
};

const LadderRun& ladder() {
  static const LadderRun run = [] {
    LadderRun l;
    l.sc = scenario::load_scenario_file(kExample.string());
    const fs::path dir =
        fs::temp_directory_path() / ("fabricsim_latency_ladder_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path out = dir / "out";
    const test_support::CliOutcome r = run_fabricsim(
        "compare " + shell_quote(kExample.string()) + " --out " + shell_quote(out.string()), dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    l.output = r.out;
    for (const scenario::VariantSpec& v : l.sc.variants) {
      if (!fs::exists(out / v.name / "result.json")) continue;
      const json result = json::parse(read_file(out / v.name / "result.json"));
      const json& pp = result.at("ping_pong").at(0);
      l.measured[v.name] = {pp.at("one_way_typical_ps").get<double>(),
                            pp.at("one_way_min_ps").get<double>(),
                            pp.at("one_way_max_ps").get<double>(),
                            pp.at("iterations").get<int64_t>()};
      // ping_pong.csv: one row per measured round trip, one way = RTT / 2 on each.
      const auto rows = parse_csv(read_file(out / v.name / "ping_pong.csv"));
      EXPECT_EQ(static_cast<int64_t>(rows.size()) - 1, pp.at("iterations").get<int64_t>());
      for (size_t i = 1; i < rows.size(); ++i) {
        EXPECT_DOUBLE_EQ(std::stod(rows[i][6]), std::stod(rows[i][5]) / 2) << v.name << " row " << i;
      }
    }
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    return l;
  }();
  return run;
}

class LatencyLadder : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(ladder().measured.size(), ladder().sc.variants.size()); }
  static double ps(const std::string& variant) { return ladder().measured.at(variant).typical_ps; }
  static double us(const std::string& variant) { return ps(variant) * 1e-6; }
  static bool has(const std::string& variant) { return ladder().measured.count(variant) > 0; }
};

TEST_F(LatencyLadder, TheExampleIsAPerftestStylePingPongThroughOneSwitch) {
  ASSERT_EQ(ladder().sc.workload.pattern, workload::PatternKind::kPingPong);
  EXPECT_EQ(ladder().sc.workload.ping_pong.size_bytes, 2) << "perftest's latency size (DEF_SIZE_LAT)";
  EXPECT_EQ(ladder().sc.workload.ping_pong.iterations, 1000) << "perftest's DEF_ITERS";
  EXPECT_EQ(ladder().sc.topology.hosts, 2);
  EXPECT_EQ(ladder().sc.topology.radix, 4) << "two hosts on one leaf: one switch between them";
  for (const char* v : {"tcp-era", "iwarp-era", "roce-era", "ib-era", "tcp-today", "iwarp-today",
                        "roce-today", "ib-today", "uet-today"}) {
    EXPECT_TRUE(has(v)) << "the ladder runs variant " << v;
  }
  EXPECT_NE(ladder().output.find("one-way latency"), std::string::npos) << ladder().output;
}

TEST_F(LatencyLadder, EachValueLiesInTheRangeItsParametersGive) {
  for (const scenario::VariantSpec& v : ladder().sc.variants) {
    const Range r = derive(v);
    const Measured& m = ladder().measured.at(v.name);
    EXPECT_EQ(m.iterations, ladder().sc.workload.ping_pong.iterations) << v.name;
    EXPECT_GE(m.typical_ps, r.lo_ps) << v.name << ": below the sum of its parts";
    EXPECT_LE(m.typical_ps, r.hi_ps) << v.name << ": above the sum plus one frame time";
    // An idle fabric and one message in flight: every RDMA round trip is the same. (TCP and
    // iWARP send pure ACKs beside the data, every second segment and on the delayed-ACK timer,
    // and a pong may queue behind one: their tails are longer by up to a few ACK frames.)
    if (v.fabric != "tcp" && v.fabric != "iwarp") {
      EXPECT_EQ(m.min_ps, m.max_ps) << v.name << ": round trips differ on an idle fabric";
    }
  }
}

TEST_F(LatencyLadder, TheOrderIsTcpIwarpRoceIb) {
  for (const std::string era : {"-era", "-today"}) {
    ASSERT_TRUE(has("tcp" + era) && has("iwarp" + era) && has("roce" + era) && has("ib" + era));
    EXPECT_GT(us("tcp" + era), us("iwarp" + era))
        << era << ": the kernel's send() and recv() against an RNIC's offload";
    EXPECT_GT(us("iwarp" + era), us("roce" + era))
        << era << ": the same Ethernet path, plus the RNIC's TCP/MPA/DDP processing";
    EXPECT_GT(us("roce" + era), us("ib" + era))
        << era << ": RoCE crosses an Ethernet switch (450 ns today, 3.2 us then) where IB "
                  "crosses a 130-170 ns one, with the same NIC";
  }
}

// UET runs on the same Ethernet switch and the same NIC/host model as RoCE; its data frame is
// longer (PDS + SES headers: 56 B against BTH + RETH + ICRC: 32 B), so it sits just above RoCE,
// by the serialization of the difference, and above IB.
TEST_F(LatencyLadder, UetSitsBesideRoceAboveIb) {
  ASSERT_TRUE(has("uet-today") && has("roce-today") && has("ib-today"));
  EXPECT_GT(us("uet-today"), us("ib-today"));
  const double extra_ps = serialization_ps(wire_bytes("uet", 2) - wire_bytes("roce", 2),
                                           ladder().sc.link.rate_bps);
  EXPECT_NEAR(ps("uet-today") - ps("roce-today"),
              extra_ps, serialization_ps(wire_bytes("uet", 2), ladder().sc.link.rate_bps));
}

// Each fabric of the era is slower than today's: PCIe Gen3 and slower links, and for RoCE a
// multi-microsecond DCB-era Ethernet switch.
TEST_F(LatencyLadder, TheEraIsSlowerThanToday) {
  for (const char* f : {"tcp", "iwarp", "roce", "ib"}) {
    EXPECT_GT(us(std::string(f) + "-era"), us(std::string(f) + "-today")) << f;
  }
}

}  // namespace latency_ladder_test
}  // namespace fabricsim
