// trace.pcap read back by Wireshark's own dissectors (tshark): an independent parser checks that
// every frame a run captured decodes to the opcode, destination QP and PSN the simulator
// recorded, that IP checksums verify, and that a PFC frame decodes as 802.1Qbb.
//
// tshark is a build dependency (scripts/install-deps installs it, CI runs that script): without
// it these tests fail rather than skip, so a missing install cannot pass as green.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../support/tshark.h"
#include "output/pcap/pcap.h"
#include "output/write.h"
#include "engine/run.h"

namespace fabricsim::output {
namespace pcap_tshark_test {

namespace fs = std::filesystem;
using net::PacketType;
using test_support::fresh_dir;
using test_support::number;

// Runs tshark on `file` with `args` and returns one vector of comma-separated fields per line.
// The last field keeps any commas of its own (expert messages are joined with commas).
test_support::FieldRows tshark_fields(const fs::path& file, const std::string& args,
                                      size_t fields) {
  const std::string cmd = test_support::tshark_fields_command(file, "", args) + " 2>/dev/null";
  const test_support::CommandOutput r = test_support::run_command(cmd);
  if (!r.started) return {};
  EXPECT_EQ(r.status, 0) << "tshark failed: " << cmd;
  return test_support::split_rows(r.out, fields);
}

// IBTA opcode for a recorded packet, from its type and flags (not from output/pcap/pcap.h).
int64_t expected_opcode(const net::Packet& p) {
  if (p.type == PacketType::kAck || p.type == PacketType::kNak) return 0x11;
  if (p.type == PacketType::kCnp) return 0x81;
  const bool first = p.flags & net::kFlagFirst, last = p.flags & net::kFlagLast;
  return first && last ? 0x0A : first ? 0x06 : last ? 0x08 : 0x07;
}

//   NIC0 NIC1   NIC2 NIC3
//     \  /        \  /
//     leaf0      leaf1      2-tier leaf-spine, radix 4: 2 leaves x 2 spines
//       |  \    /  |
//     spine0  spine1
TEST(PcapTshark, EveryCapturedFrameDecodesToWhatTheSimulatorRecorded) {
  REQUIRE_TSHARK();
  scenario::Scenario sc;
  sc.name = "pcap-tshark";
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 4;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = 20'000;  // 5 packets: First, 3 x Middle, Last
  sc.capture.max_frames = 200;
  sc.capture.point = scenario::CapturePoint::kAll;  // switch-to-switch hops too
  const scenario::RunResult r = scenario::run_scenario(sc);
  ASSERT_TRUE(r.completed) << "the permutation must finish";
  ASSERT_FALSE(r.captured.empty()) << "capture was asked for";
  ASSERT_LE(r.captured.size(), 200u) << "at most max_frames frames";

  const fs::path dir = fresh_dir("fabricsim_pcap_tshark_run");
  write_run_files(dir, r);
  const fs::path file = dir / "trace.pcap";
  ASSERT_TRUE(fs::exists(file)) << "write_run_files writes trace.pcap when frames were captured";

  const auto rows = tshark_fields(
      file,
      "-o ip.check_checksum:TRUE -e frame.number -e frame.len -e ip.checksum.status -e ip.src "
      "-e udp.srcport -e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn "
      "-e infiniband.reth.dmalen -e _ws.expert",
      10);
  ASSERT_EQ(rows.size(), r.captured.size()) << "one decoded line per captured frame";
  int data = 0, acks = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const net::Packet& p = r.captured[i].pkt;
    const std::string at = "frame " + std::to_string(i + 1);
    ASSERT_EQ(row.size(), 10u) << at << ": all fields present";
    EXPECT_EQ(number(row[0]), static_cast<int64_t>(i + 1)) << at << ": frame order";
    EXPECT_EQ(number(row[1]), p.frame_bytes - 4) << at << ": length = frame_bytes without FCS";
    EXPECT_EQ(number(row[2]), 1) << at << ": Wireshark verifies the IPv4 checksum (1 = good)";
    EXPECT_EQ(row[3], "10.0.0." + std::to_string(p.src_nic + 1)) << at << ": source IP";
    EXPECT_EQ(number(row[4]), p.entropy) << at << ": UDP source port = entropy";
    EXPECT_EQ(number(row[5]), expected_opcode(p)) << at << ": BTH opcode";
    const int64_t requester = 0x100 + 2 * int64_t{p.qp};
    EXPECT_EQ(number(row[6]), p.type == PacketType::kData ? requester + 1 : requester)
        << at << ": BTH DestQP (data to the responder, ACK/NAK/CNP to the requester)";
    EXPECT_EQ(number(row[7]), p.psn & 0xFFFFFF) << at << ": BTH PSN";
    if (p.type == PacketType::kData && (p.flags & net::kFlagFirst)) {
      EXPECT_EQ(number(row[8]), r.flows.at(p.msg).size_bytes) << at << ": RETH DMA length";
    }
    EXPECT_EQ(row[9], "") << at << ": no Wireshark expert warnings";
    data += p.type == PacketType::kData;
    acks += p.type == PacketType::kAck;
  }
  EXPECT_GT(data, 0) << "the capture holds data packets";
  EXPECT_GT(acks, 0) << "and ACKs";
  fs::remove_all(dir);
}

TEST(PcapTshark, PfcFrameDecodesAsClassBasedPause) {
  REQUIRE_TSHARK();
  scenario::CapturedFrame pause;
  pause.time_ps = 5'000;
  pause.from_node = 3;  // a switch port pausing the NIC below it
  pause.to_node = 7, pause.to_is_nic = true;
  pause.pkt.type = PacketType::kPause;
  pause.pkt.qp = 1u << 3;  // class 3 only
  pause.pkt.psn = 1000;    // quanta
  pause.pkt.frame_bytes = 64;
  const fs::path dir = fresh_dir("fabricsim_pcap_tshark_pfc");
  const fs::path file = dir / "pfc.pcap";
  write_pcap_file(file.string(), {pause});

  const auto rows = tshark_fields(file,
                                  "-e frame.len -e eth.dst -e eth.src -e macc.opcode "
                                  "-e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 "
                                  "-e macc.cbfc.pause_time.c0 -e _ws.expert",
                                  8);
  ASSERT_EQ(rows.size(), 1u) << "one frame";
  const auto& row = rows[0];
  ASSERT_EQ(row.size(), 8u) << "all fields present";
  EXPECT_EQ(number(row[0]), 60) << "64-byte frame without FCS";
  EXPECT_EQ(row[1], "01:80:c2:00:00:01") << "PFC destination";
  EXPECT_EQ(row[2], "02:00:01:00:00:03") << "source: the pausing switch";
  EXPECT_EQ(number(row[3]), 0x0101) << "MAC Control opcode: class-based pause";
  EXPECT_EQ(number(row[4]), 0x0008) << "class-enable vector: class 3";
  EXPECT_EQ(number(row[5]), 1000) << "class 3 pause time in quanta";
  EXPECT_EQ(number(row[6]), 0) << "class 0 not paused";
  EXPECT_EQ(row[7], "") << "no expert warnings (DA and vector high byte are valid)";
  fs::remove_all(dir);
}

}  // namespace pcap_tshark_test
}  // namespace fabricsim::output
