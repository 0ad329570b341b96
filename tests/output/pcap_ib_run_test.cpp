// trace.pcap of an InfiniBand run (output/pcap/pcap_trace.h): a small IB scenario runs with capture
// on, write_run_files writes trace.pcap (ERF InfiniBand records, LINKTYPE_ERF 197) and
// credits.csv, and Wireshark's own ERF and InfiniBand dissectors (tshark), reading the file
// exactly as written, must give back, packet by packet, the time, the LRH DLID/SLID/VL/SL, BTH
// opcode, DestQP and PSN, and the extension headers that the simulator logged in
// RunResult::captured. Expected values are derived here from the packet's type and flags and the
// IBTA opcode table (reference infiniband.md §5), not from output/pcap/pcap.h. A second test runs
// examples/vl-qos.yaml as a user would and checks its trace the same way.
//
//   NIC0 NIC1   NIC2 NIC3
//     \  /        \  /
//     leaf0      leaf1      2-tier leaf-spine, radix 4: 2 leaves x 2 spines, IB, 2 data VLs
//       |  \    /  |        SL2VL maps odd SLs to VL 1, even SLs to VL 0
//     spine0  spine1
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "../support/tshark.h"
#include "output/pcap/pcap_trace.h"
#include "output/write.h"
#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim::output {
namespace pcap_ib_run_test {

namespace fs = std::filesystem;
using net::PacketType;
using test_support::flag;
using test_support::fresh_dir;
using test_support::number;
using test_support::split_rows;
using transport::Operation;
using transport::Service;

// tshark on trace.pcap as written, one row of `fields` per packet.
test_support::FieldRows tshark_ib(const fs::path& file, const std::string& fields, size_t count) {
  const std::string bytes = test_support::read_file(file);
  EXPECT_GE(bytes.size(), 24u) << "a pcap global header";
  if (bytes.size() < 24) return {};
  EXPECT_EQ(test_support::pcap_linktype(bytes), test_support::kLinktypeErf)
      << "trace.pcap of an InfiniBand run is LINKTYPE_ERF, as ibdump writes";
  const std::string cmd = test_support::tshark_ib_command(file, "", fields) + " 2>/dev/null";
  const test_support::CommandOutput r = test_support::run_command(cmd);
  EXPECT_TRUE(r.started) << "cannot start tshark";
  if (!r.started) return {};
  EXPECT_EQ(r.status, 0) << "tshark failed: " << cmd;
  return split_rows(r.out, count);
}

struct Verb {
  const char* name;
  Service service;
  Operation operation;
  int64_t size_bytes;  // per flow
};

// IBTA Vol. 1 Table 38, written out again here: the opcode a packet must carry.
int64_t expected_opcode(const net::Packet& p, const Verb& v) {
  if (p.type == PacketType::kAck || p.type == PacketType::kNak) return 0x11;
  if (p.type == PacketType::kReadRequest) return 0x0C;
  const bool first = p.flags & net::kFlagFirst, last = p.flags & net::kFlagLast;
  const auto pick = [&](int only, int f, int middle, int l) {
    return first && last ? only : first ? f : last ? l : middle;
  };
  if (p.flags & net::kFlagResponse) return pick(0x10, 0x0D, 0x0E, 0x0F);
  if (v.service == Service::kUd) return 0x64;
  const int rc = v.operation == Operation::kWrite ? pick(0x0A, 0x06, 0x07, 0x08)
                                                  : pick(0x04, 0x00, 0x01, 0x02);
  return v.service == Service::kUc ? (rc | 0x20) : rc;
}

scenario::Scenario ib_scenario(const Verb& v) {
  scenario::Scenario sc;
  sc.name = std::string("pcap-ib-") + v.name;
  sc.technology = scenario::Technology::kInfiniband;
  sc.topology.tiers = 2;
  sc.topology.radix = 4;
  sc.topology.hosts = 4;
  sc.link.rate_bps = 100'000'000'000;
  sc.ib.link.data_vls = 2;
  sc.ib.sl2vl = "0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1";
  sc.ib.vlarb_high = "1:64";
  sc.ib.vlarb_low = "0:64";
  sc.roce.service = v.service;
  sc.roce.operation = v.operation;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kFlows;
  // Across the spines both ways and within a leaf, on SLs 3 (VL 1) and 0 (VL 0).
  sc.workload.flows = {{0, 2, v.size_bytes, 0, 3},
                       {1, 3, v.size_bytes, 0, 0},
                       {2, 1, v.size_bytes, 0, 3},
                       {3, 2, v.size_bytes, 200'000, 0}};
  sc.capture.max_frames = 400;
  sc.capture.point = scenario::CapturePoint::kAll;
  return sc;
}

const char* const kFields =
    "-e frame.number -e frame.len -e infiniband.lrh.vl -e infiniband.lrh.sl "
    "-e infiniband.lrh.lnh -e infiniband.lrh.dlid -e infiniband.lrh.pktlen -e infiniband.lrh.slid "
    "-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.a -e infiniband.bth.psn "
    "-e infiniband.reth.r_key -e infiniband.reth.dmalen -e infiniband.aeth.syndrome "
    "-e infiniband.deth.q_key -e infiniband.deth.srcqp -e frame.time_epoch -e erf.types.type "
    "-e erf.wlen -e frame.protocols -e _ws.malformed -e _ws.expert";
constexpr size_t kFieldCount = 23;

// TsharkDecodesWhatTheSimulatorLogged, part by part (its helpers that ASSERT are called through
// ASSERT_NO_FATAL_FAILURE, so a fatal failure still ends the test where it ended it before).

// Decoded row `row` against packet i of the capture; records the BTH opcode it expected.
void expect_row_decodes(const std::vector<std::string>& row,
                        const std::vector<const scenario::CapturedFrame*>& packets, size_t i,
                        const Verb& v, const std::string& at, std::set<int64_t>& opcodes) {
  const net::Packet& p = packets[i]->pkt;
  const bool first = p.flags & net::kFlagFirst, last = p.flags & net::kFlagLast;
  const bool response = p.type == PacketType::kData && (p.flags & net::kFlagResponse);
  const bool to_responder =
      (p.type == PacketType::kData && !response) || p.type == PacketType::kReadRequest;
  EXPECT_EQ(number(row[1]), p.frame_bytes) << at << ": length = the simulator's frame_bytes";
  EXPECT_EQ(number(row[2]), p.priority) << at << ": LRH VL = the packet's VL";
  EXPECT_EQ(number(row[3]), p.flags >> 4) << at << ": LRH SL";
  EXPECT_EQ(number(row[4]), 2) << at << ": LRH LNH = BTH follows (local)";
  EXPECT_EQ(number(row[5]), p.dst_nic + 1) << at << ": LRH DLID = LID of the destination NIC";
  EXPECT_EQ(number(row[5]), p.entropy) << at << ": LRH DLID = what the switches forwarded by";
  EXPECT_EQ(number(row[6]), (p.frame_bytes - 2) / 4) << at << ": PktLen, VCRC excluded";
  EXPECT_EQ(number(row[7]), p.src_nic + 1) << at << ": LRH SLID = LID of the source NIC";
  const int64_t opcode = expected_opcode(p, v);
  EXPECT_EQ(number(row[8]), opcode) << at << ": BTH opcode";
  opcodes.insert(opcode);
  const int64_t requester = 0x100 + 2 * int64_t{p.qp};
  EXPECT_EQ(number(row[9]), to_responder ? requester + 1 : requester)
      << at << ": BTH DestQP (to the responder, or back to the requester)";
  const bool ack_req =
      v.service == Service::kRc &&
      ((p.type == PacketType::kData && !response && last) || p.type == PacketType::kReadRequest);
  EXPECT_EQ(flag(row[10]), ack_req) << at << ": BTH AckReq";
  EXPECT_EQ(number(row[11]), p.psn & 0xFFFFFF) << at << ": BTH PSN";
  const bool reth = p.type == PacketType::kReadRequest ||
                    (p.type == PacketType::kData && !response && first &&
                     v.operation == Operation::kWrite && v.service != Service::kUd);
  if (reth) {
    EXPECT_EQ(number(row[12]), p.msg) << at << ": RETH R_Key = message id";
    EXPECT_EQ(number(row[13]), v.size_bytes) << at << ": RETH DMA length = message size";
  } else {
    EXPECT_EQ(row[12] + row[13], "") << at << ": no RETH";
  }
  const bool aeth =
      p.type == PacketType::kAck || p.type == PacketType::kNak || (response && (first || last));
  if (aeth) {
    EXPECT_EQ(number(row[14]), p.type == PacketType::kNak ? 0x60 : 0x1F) << at << ": AETH";
  } else {
    EXPECT_EQ(row[14], "") << at << ": no AETH";
  }
  if (v.service == Service::kUd) {
    EXPECT_EQ(number(row[15]), 0x01234567) << at << ": DETH Q_Key (rdma_cm RDMA_UDP_QKEY)";
    EXPECT_EQ(number(row[16]), requester) << at << ": DETH source QP = the requester";
  } else {
    EXPECT_EQ(row[15] + row[16], "") << at << ": no DETH";
  }
  EXPECT_LE(std::llabs(test_support::epoch_ps(row[17]) - packets[i]->time_ps),
            test_support::kErfShownTimeTolerancePs)
      << at << ": time = when the simulator put it on the wire (" << row[17] << ")";
  EXPECT_EQ(number(row[18]), 21) << at << ": ERF record type InfiniBand";
  EXPECT_EQ(number(row[19]), p.frame_bytes) << at << ": ERF wlen = the packet";
  EXPECT_EQ(row[20].rfind("erf:infiniband", 0), 0u) << at << ": protocols " << row[20];
  EXPECT_EQ(row[21], "") << at << ": not malformed";
  EXPECT_EQ(row[22], "") << at << ": no Wireshark expert warnings";
}

void expect_verb_opcodes(const Verb& v, const std::set<int64_t>& opcodes) {
  // Every opcode the verb uses shows up (20001-byte messages are FIRST, MIDDLE x 3, LAST).
  std::set<int64_t> want;
  const int uc = v.service == Service::kUc ? 0x20 : 0;
  if (v.service == Service::kUd) {
    want = {0x64};
  } else if (v.operation == Operation::kRead) {
    want = {0x0C, 0x0D, 0x0E, 0x0F};
  } else if (v.operation == Operation::kWrite) {
    want = {0x06 | uc, 0x07 | uc, 0x08 | uc};
  } else {
    want = {0x00 | uc, 0x01 | uc, 0x02 | uc};
  }
  if (v.service == Service::kRc && v.operation != Operation::kRead) want.insert(0x11);
  for (int64_t op : want) {
    EXPECT_TRUE(opcodes.count(op)) << v.name << ": no packet with opcode " << op << " captured";
  }
}

void check_credits_csv(const fs::path& dir,
                       const std::vector<const scenario::CapturedFrame*>& credits) {
  // credits.csv: the flow-control packets the pcap left out, in order, with their VL and FCCL.
  const auto csv = split_rows(test_support::read_file(dir / "credits.csv"), 6);
  ASSERT_EQ(csv.size(), credits.size() + 1) << "credits.csv: header + one row per credit packet";
  EXPECT_EQ(csv[0], (std::vector<std::string>{"time_ps", "from_node", "to_node", "vl",
                                              "fccl_blocks", "fccl"}))
      << "credits.csv header";
  for (size_t i = 0; i < credits.size(); ++i) {
    const scenario::CapturedFrame& f = *credits[i];
    const std::vector<std::string> want_row = {
        std::to_string(f.time_ps), std::to_string(f.from_node), std::to_string(f.to_node),
        std::to_string(f.pkt.qp),  std::to_string(f.pkt.psn),   std::to_string(f.pkt.psn % 4096)};
    EXPECT_EQ(csv[i + 1], want_row) << "credits.csv row " << i + 1;
  }
}

class IbRunCapture : public ::testing::TestWithParam<Verb> {};

TEST_P(IbRunCapture, TsharkDecodesWhatTheSimulatorLogged) {
  REQUIRE_TSHARK();
  const Verb v = GetParam();
  const scenario::RunResult r = scenario::run_scenario(ib_scenario(v));
  ASSERT_TRUE(r.completed) << v.name << ": the flows must finish";
  ASSERT_TRUE(r.infiniband) << "RunResult says the fabric was InfiniBand";
  ASSERT_EQ(r.nic_lid.size(), 4u) << "one LID per NIC";
  for (uint32_t nic = 0; nic < 4; ++nic) {
    EXPECT_EQ(r.nic_lid[nic], nic + 1) << "the SM's first sweep gives NIC i LID i + 1";
  }
  ASSERT_FALSE(r.captured.empty()) << "capture was asked for";

  const fs::path dir = fresh_dir(std::string("fabricsim_pcap_ib_run_") + v.name);
  write_run_files(dir, r);
  ASSERT_TRUE(fs::exists(dir / "trace.pcap")) << "trace.pcap written for a capture";

  std::vector<const scenario::CapturedFrame*> packets;  // what trace.pcap must hold, in order
  std::vector<const scenario::CapturedFrame*> credits;  // what credits.csv must hold
  for (const scenario::CapturedFrame& f : r.captured) {
    (f.pkt.type == PacketType::kCredit ? credits : packets).push_back(&f);
  }
  ASSERT_FALSE(credits.empty()) << "an IB run returns credits: some are among the first frames";

  const auto rows = tshark_ib(dir / "trace.pcap", kFields, kFieldCount);
  ASSERT_EQ(rows.size(), packets.size())
      << "one decoded packet per captured frame that is not a flow-control packet";
  std::set<int64_t> opcodes;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const std::string at = std::string(v.name) + " packet " + std::to_string(i + 1);
    ASSERT_EQ(row.size(), kFieldCount) << at << ": all fields present";
    expect_row_decodes(row, packets, i, v, at, opcodes);
  }
  expect_verb_opcodes(v, opcodes);

  ASSERT_NO_FATAL_FAILURE(check_credits_csv(dir, credits));
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Verbs, IbRunCapture,
    ::testing::Values(Verb{"rc_write", Service::kRc, Operation::kWrite, 20'001},
                      Verb{"rc_send", Service::kRc, Operation::kSend, 20'001},
                      Verb{"rc_read", Service::kRc, Operation::kRead, 20'001},
                      Verb{"uc_write", Service::kUc, Operation::kWrite, 20'001},
                      Verb{"uc_send", Service::kUc, Operation::kSend, 20'001},
                      Verb{"ud_send", Service::kUd, Operation::kSend, 3'001}),
    [](const ::testing::TestParamInfo<Verb>& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------------------------
// examples/vl-qos.yaml, as a user runs it: its trace.pcap must open in an unmodified tshark and
// dissect down to LRH and BTH with no malformed packet and no expert info, the fields matching
// what the scenario sent (file header: 4 leaves x 4 spines, NICs 1-3 write 8 MiB each to NIC 4
// on SL 0 = flows 0-2, NIC 0 writes ten messages to NIC 4 on SL 1 = flows 3-12; sl2vl maps
// SL 1 to VL 1 and every other SL to VL 0; RC RDMA WRITE; outputs.pcap.frames 1000).

TEST(IbExampleCapture, VlQosTraceDissectsAsWritten) {
  REQUIRE_TSHARK();
  const scenario::Scenario sc =
      scenario::load_scenario_file(std::string(FABRICSIM_SOURCE_DIR) + "/examples/vl-qos.yaml");
  const scenario::RunResult r = scenario::run_scenario(sc);
  ASSERT_TRUE(r.completed) << "vl-qos must finish";
  const fs::path dir = fresh_dir("fabricsim_pcap_ib_vl_qos");
  write_run_files(dir, r);
  std::vector<const scenario::CapturedFrame*> packets;
  for (const scenario::CapturedFrame& f : r.captured) {
    if (f.pkt.type != PacketType::kCredit) packets.push_back(&f);
  }
  ASSERT_EQ(packets.size(), 1000u) << "outputs.pcap.frames: 1000 packets besides credits";
  EXPECT_LT(packets.size(), r.captured.size()) << "credit packets were captured too";
  EXPECT_TRUE(fs::exists(dir / "credits.csv")) << "and went to credits.csv, not trace.pcap";

  const auto rows = tshark_ib(dir / "trace.pcap", kFields, kFieldCount);
  ASSERT_EQ(rows.size(), packets.size()) << "one decoded packet per captured packet";
  const Verb rc_write{"vl_qos", Service::kRc, Operation::kWrite, 0};
  ASSERT_GE(r.nic_lid.size(), 5u);
  size_t sl1_packets = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const net::Packet& p = packets[i]->pkt;
    const std::string at = "vl-qos packet " + std::to_string(i + 1);
    ASSERT_EQ(row.size(), kFieldCount) << at << ": all fields present";
    const bool data = p.type == PacketType::kData;
    ASSERT_TRUE(data || p.type == PacketType::kAck) << at << ": RDMA WRITE data or its ACK";
    // Data goes to NIC 4; ACKs come back from it.
    const uint32_t src = data ? p.src_nic : 4, dst = data ? 4 : p.dst_nic;
    EXPECT_EQ(number(row[5]), r.nic_lid[dst]) << at << ": LRH DLID";
    EXPECT_EQ(number(row[7]), r.nic_lid[src]) << at << ": LRH SLID";
    EXPECT_EQ(number(row[4]), 2) << at << ": LRH LNH = BTH follows";
    if (data) {
      const bool latency = p.msg >= 3;  // flows 3-12: NIC 0 on SL 1
      EXPECT_EQ(p.src_nic, latency ? 0u : p.msg + 1) << at << ": flow table of the example";
      EXPECT_EQ(number(row[3]), latency ? 1 : 0) << at << ": LRH SL of its flow";
      EXPECT_EQ(number(row[2]), latency ? 1 : 0) << at << ": LRH VL = sl2vl[SL]";
      sl1_packets += latency;
    }
    EXPECT_EQ(number(row[8]), expected_opcode(p, rc_write)) << at << ": BTH opcode";
    EXPECT_EQ(number(row[11]), p.psn & 0xFFFFFF) << at << ": BTH PSN";
    EXPECT_EQ(number(row[1]), p.frame_bytes) << at << ": frame length";
    EXPECT_LE(std::llabs(test_support::epoch_ps(row[17]) - packets[i]->time_ps),
              test_support::kErfShownTimeTolerancePs)
        << at << ": time";
    EXPECT_EQ(row[21], "") << at << ": not malformed";
    EXPECT_EQ(row[22], "") << at << ": no expert info";
  }
  EXPECT_GT(sl1_packets, 0u) << "the SL 1 messages start at 5 us: some are in the first 1000";

  // The full dissection (-V), as a user inspecting the file would read it.
  const test_support::CommandOutput v =
      test_support::run_command("tshark -r '" + (dir / "trace.pcap").string() + "' -V 2>&1");
  ASSERT_EQ(v.status, 0) << "tshark -V";
  size_t lrh = 0, bth = 0;
  for (size_t at = v.out.find("Local Route Header"); at != std::string::npos;
       at = v.out.find("Local Route Header", at + 1)) {
    ++lrh;
  }
  for (size_t at = v.out.find("Base Transport Header"); at != std::string::npos;
       at = v.out.find("Base Transport Header", at + 1)) {
    ++bth;
  }
  EXPECT_EQ(lrh, packets.size()) << "every packet dissected down to its LRH";
  EXPECT_EQ(bth, packets.size()) << "and its BTH";
  EXPECT_EQ(v.out.find("Malformed"), std::string::npos) << "no malformed packet";
  EXPECT_EQ(v.out.find("Expert Info"), std::string::npos) << "no expert info";
  EXPECT_EQ(v.out.find("unknown or unsupported"), std::string::npos) << "the link type opens";
  fs::remove_all(dir);
}

// ---------------------------------------------------------------------------------------------
// Refusals: a frame that cannot be written exactly fails the write before any file exists.

scenario::RunResult one_frame_result(const net::Packet& p) {
  scenario::RunResult r;
  r.infiniband = true;
  r.nic_lid = {1, 2, 3, 4};
  r.flows.push_back(scenario::FlowRecord{.id = 0, .src_nic = 0, .dst_nic = 2, .size_bytes = 4096});
  scenario::CapturedFrame f;
  f.time_ps = 1'000;
  f.from_is_nic = true;
  f.pkt = p;
  r.captured.push_back(f);
  return r;
}

net::Packet write_only_packet() {  // NIC 0 -> NIC 2, SL 1 on VL 1, one 4096-byte RDMA WRITE
  net::Packet p;
  p.src_nic = 0, p.dst_nic = 2, p.qp = 0, p.psn = 0, p.msg = 0;
  p.payload_bytes = 4096;
  p.frame_bytes = 8 + 12 + 16 + 4096 + 4 + 2;  // LRH BTH RETH payload ICRC VCRC
  p.entropy = 3;                               // DLID of NIC 2
  p.type = PacketType::kData;
  p.priority = 1;
  p.flags = net::kFlagFirst | net::kFlagLast | (1 << net::kFlagSlShift);
  return p;
}

void expect_refused(const scenario::RunResult& r, const std::string& reason,
                    const std::string& what) {
  const fs::path dir = fs::temp_directory_path() / "fabricsim_pcap_ib_refused";
  fs::remove_all(dir);
  try {
    write_run_files(dir, r);
    ADD_FAILURE() << what << ": write_run_files must refuse";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("trace.pcap"), std::string::npos) << what << ": names the file: " << msg;
    EXPECT_NE(msg.find(reason), std::string::npos) << what << ": says why: " << msg;
  }
  EXPECT_FALSE(fs::exists(dir)) << what << ": nothing written (not even result.json)";
  fs::remove_all(dir);
}

TEST(IbCaptureRefusal, ConsistentPacketIsAcceptedAsIs) {
  const scenario::RunResult r = one_frame_result(write_only_packet());
  const IbCaptureContext ctx{verbs_of(r), &r.nic_lid, message_bytes_of(r.flows)};
  const IbPacketFields f = ib_fields_of(r.captured[0], ctx);
  EXPECT_EQ(f.opcode, 0x0A) << "RDMA WRITE ONLY";
  EXPECT_EQ(f.vl, 1) << "VL";
  EXPECT_EQ(f.sl, 1) << "SL";
  EXPECT_EQ(f.dlid, 3) << "DLID";
  EXPECT_EQ(f.slid, 1) << "SLID = LID of NIC 0";
  ASSERT_TRUE(f.reth.has_value()) << "WRITE ONLY carries a RETH";
  EXPECT_EQ(f.reth->dma_length, 4096u) << "DMA length from flows";
  EXPECT_EQ(ib_wire_bytes(f), r.captured[0].pkt.frame_bytes) << "same size as simulated";
}

TEST(IbCaptureRefusal, SizeMismatchIsRefused) {
  net::Packet p = write_only_packet();
  p.frame_bytes -= 16;  // as if the simulator had sent no RETH
  expect_refused(one_frame_result(p), "sent 4122 bytes", "a frame 16 bytes short of its headers");
  scenario::RunResult send = one_frame_result(write_only_packet());
  send.operation = Operation::kSend;  // SEND ONLY has no RETH: 16 bytes too many
  expect_refused(send, "synthesized packet has 4122", "a WRITE-sized frame in a SEND run");
}

TEST(IbCaptureRefusal, WhatInfiniBandCannotCarryIsRefused) {
  net::Packet cnp = write_only_packet();
  cnp.type = PacketType::kCnp;
  expect_refused(one_frame_result(cnp), "no PFC frames or CNPs", "a CNP on InfiniBand");
  net::Packet wrong_dlid = write_only_packet();
  wrong_dlid.entropy = 4;
  expect_refused(one_frame_result(wrong_dlid), "is not the LID 3", "a DLID that is not the dst's");
  net::Packet multi = write_only_packet();
  multi.flags = net::kFlagFirst;  // a UD message of several packets does not exist
  multi.frame_bytes = 8 + 12 + 8 + 4096 + 4 + 2;
  scenario::RunResult ud = one_frame_result(multi);
  ud.service = Service::kUd;
  ud.operation = Operation::kSend;
  expect_refused(ud, "UD message must be one packet", "a multi-packet UD message");
  scenario::RunResult no_lids = one_frame_result(write_only_packet());
  no_lids.nic_lid.clear();
  expect_refused(no_lids, "no LID known", "a capture without the LID table");
}

TEST(IbCaptureRefusal, CreditPacketsGoToCsvNotThePcap) {
  scenario::RunResult r = one_frame_result(write_only_packet());
  scenario::CapturedFrame credit;
  credit.time_ps = 2'000;
  credit.from_node = 5, credit.to_node = 0;
  credit.pkt.type = PacketType::kCredit;
  credit.pkt.qp = 1;          // VL
  credit.pkt.psn = 4096 + 7;  // FCCL beyond 12 bits: the wire carries 7
  credit.pkt.frame_bytes = 6;
  r.captured.push_back(credit);
  const IbCaptureContext ctx{verbs_of(r), &r.nic_lid, message_bytes_of(r.flows)};
  const std::vector<IbCapturedPacket> pkts = ib_captured_packets(r.captured, ctx);
  ASSERT_EQ(pkts.size(), 1u) << "the flow-control packet is left out of trace.pcap";
  EXPECT_EQ(pkts[0].time_ps, 1'000) << "the data packet stays";
  EXPECT_EQ(credits_csv_text(r.captured), std::string(kCreditsCsvHeader) + "\n2000,5,0,1,4103,7\n")
      << "credits.csv row: time, link ends, VL, FCCL absolute and mod 4096";
  EXPECT_THROW(ib_fields_of(credit, ctx), std::runtime_error)
      << "a flow-control packet has no LRH to synthesize";
}

}  // namespace pcap_ib_run_test
}  // namespace fabricsim::output
