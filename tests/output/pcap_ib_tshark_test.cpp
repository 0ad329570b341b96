// InfiniBand pcaps (output/pcap_ib.h) read back by Wireshark's own InfiniBand dissector
// (tshark): an independent parser checks that every packet decodes to the LRH, BTH and
// extension header fields that were written, at the nanosecond timestamps written, with no
// malformed-packet or expert warnings. Wireshark verifies neither ICRC nor VCRC [WS]; the unit
// tests (pcap_ib_test.cpp) check those against bitwise reference CRCs.
//
// Wireshark 4.0 (Debian 12's tshark) has the dissector but does not map LINKTYPE_INFINIBAND
// (247) to it: it refuses such a file with "network type 247 unknown or unsupported". So the
// dissection runs on a copy whose header says LINKTYPE_USER0 (147), with tshark's user_dlts
// table sending USER0 to the "infiniband" dissector, the same one Wireshark registers for its
// InfiniBand encapsulation [WS proto_reg_handoff_infiniband]. The records are untouched. A
// separate test reads the 247 file itself: a tshark that maps 247 must decode it identically,
// one that does not must refuse it for exactly that reason (not for a broken file).
//
// tshark is a build dependency (scripts/install-deps installs it, CI runs that script): without
// it these tests fail rather than skip, so a missing install cannot pass as green.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../support/tshark.h"
#include "output/pcap_ib.h"

namespace fabricsim::output {
namespace {

namespace fs = std::filesystem;
using test_support::CommandOutput;
using test_support::flag;
using test_support::fresh_dir;
using test_support::kLinktypeUser0;
using test_support::kUser0AsInfiniband;
using test_support::number;
using test_support::run_command;
using test_support::split_rows;
using test_support::tshark_ib_command;
using test_support::with_linktype;

std::string epoch(int64_t time_ps) {  // frame.time_epoch of a nanosecond pcap
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld.%09lld", static_cast<long long>(time_ps / 1'000'000'000'000),
                static_cast<long long>(time_ps % 1'000'000'000'000 / 1000));
  return buf;
}

// One RC RDMA WRITE of 3 packets (PSN wrapping through 2^24), its ACK and a NAK, an RDMA READ,
// a UD datagram, a SEND with immediate and a CNP: every extension header and flag at least once.
std::vector<IbCapturedPacket> sample_packets() {
  IbPacketFields data;
  data.vl = 1, data.sl = 5;
  data.dlid = 0x0101, data.slid = 0x0202;
  data.dest_qp = 0x000101;
  IbPacketFields back = data;  // the responder's direction
  back.dlid = 0x0202, back.slid = 0x0101;
  back.vl = 0, back.sl = 0;
  back.dest_qp = 0x000100;
  std::vector<IbCapturedPacket> v;

  IbPacketFields f = data;
  f.opcode = kIbOpWriteFirst;
  f.reth = IbRethFields{0x1122334455667788ull, 0xABCD0001, 2 * 4096 + 100};
  f.psn = 0xFFFFFE;
  f.payload_bytes = 4096;
  v.push_back({1'000'000, f});  // 1 us
  f = data;
  f.opcode = kIbOpWriteMiddle;
  f.psn = 0xFFFFFF;
  f.payload_bytes = 4096;
  v.push_back({1'010'000, f});
  f.opcode = kIbOpWriteLast;
  f.psn = 0x1000000;  // the simulator's counter passed 2^24: wire PSN 0
  f.payload_bytes = 100;
  f.ack_req = true;
  v.push_back({1'020'999, f});  // 999 ps are below the file's resolution
  f = back;
  f.opcode = kIbOpAcknowledge;
  f.aeth = IbAethFields{0x1F, 1};
  f.psn = 0;
  v.push_back({2'000'000, f});
  f.aeth = IbAethFields{0x60, 1};  // NAK: PSN sequence error
  f.psn = 1;
  v.push_back({2'500'000, f});
  f = data;
  f.opcode = kIbOpReadRequest;
  f.reth = IbRethFields{0x4000, 0x77, 5000};
  f.psn = 50;
  f.ack_req = true;
  v.push_back({3'000'000, f});
  f = back;
  f.opcode = kIbOpReadResponseFirst;
  f.aeth = IbAethFields{0x1F, 2};
  f.psn = 50;
  f.payload_bytes = 4096;
  v.push_back({4'000'000, f});
  f.opcode = kIbOpReadResponseLast;
  f.aeth = IbAethFields{0x1F, 3};
  f.psn = 51;
  f.payload_bytes = 904;
  v.push_back({5'000'000, f});
  f = data;
  f.opcode = kIbOpUdSendOnly;
  f.deth = IbDethFields{0x11111111, 0x002222};
  f.dest_qp = 0x000333;  // not QP0/QP1, whose payloads Wireshark parses as MADs
  f.pkey = 0x8001;
  f.fecn = true;  // marked by a congested switch
  f.migreq = false;
  f.psn = 7;
  f.payload_bytes = 13;                 // pad 3
  v.push_back({2'000'000'000'000, f});  // 2 s
  f = data;
  f.opcode = kIbOpSendOnlyImm;
  f.immediate = 0xDEADBEEF;
  f.solicited = true;
  f.psn = 8;
  f.payload_bytes = 6;  // pad 2
  v.push_back({2'000'000'123'456, f});
  f = back;
  f.opcode = kIbOpCnp;
  f.becn = true;
  f.sl = 7;
  v.push_back({3'000'000'000'000, f});
  return v;
}

const char* const kFields =
    "-e frame.number -e frame.time_epoch -e frame.len -e frame.protocols "
    "-e infiniband.lrh.vl -e infiniband.lrh.sl -e infiniband.lrh.lnh -e infiniband.lrh.dlid "
    "-e infiniband.lrh.pktlen -e infiniband.lrh.slid "
    "-e infiniband.bth.opcode -e infiniband.bth.se -e infiniband.bth.m -e infiniband.bth.padcnt "
    "-e infiniband.bth.tver -e infiniband.bth.p_key -e infiniband.bth -e infiniband.bth.destqp "
    "-e infiniband.bth.a -e infiniband.bth.psn "
    "-e infiniband.reth.va -e infiniband.reth.r_key -e infiniband.reth.dmalen "
    "-e infiniband.aeth.syndrome -e infiniband.aeth.msn "
    "-e infiniband.deth.q_key -e infiniband.deth.srcqp -e infiniband.immdt -e data.len "
    "-e infiniband.invariant.crc -e infiniband.variant.crc -e _ws.malformed -e _ws.expert";
constexpr size_t kFieldCount = 33;

TEST(PcapIbTshark, EveryPacketDecodesToTheFieldsWritten) {
  REQUIRE_TSHARK();
  const std::vector<IbCapturedPacket> pkts = sample_packets();
  const fs::path dir = fresh_dir("fabricsim_pcap_ib_tshark");
  const fs::path file = dir / "ib.pcap";
  write_ib_pcap_file(file.string(), pkts);
  const fs::path user0 = with_linktype(file, kLinktypeUser0, dir / "ib_user0.pcap");

  const CommandOutput r =
      run_command(tshark_ib_command(user0, kUser0AsInfiniband, kFields) + " 2>/dev/null");
  ASSERT_EQ(r.status, 0) << "tshark failed on " << user0;
  const auto rows = split_rows(r.out, kFieldCount);
  ASSERT_EQ(rows.size(), pkts.size()) << "one decoded line per packet";
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const IbPacketFields& f = pkts[i].fields;
    const std::vector<uint8_t> bytes = ib_packet_bytes(f);
    const std::string at = "packet " + std::to_string(i + 1);
    ASSERT_EQ(row.size(), kFieldCount) << at << ": all fields present";
    EXPECT_EQ(number(row[0]), static_cast<int64_t>(i + 1)) << at << ": order";
    EXPECT_EQ(row[1], epoch(pkts[i].time_ps)) << at << ": timestamp, ns resolution";
    EXPECT_EQ(number(row[2]), static_cast<int64_t>(ib_wire_bytes(f))) << at << ": length";
    EXPECT_NE(row[3].find("infiniband"), std::string::npos) << at << ": dissected as IB";
    EXPECT_EQ(number(row[4]), f.vl) << at << ": LRH VL";
    EXPECT_EQ(number(row[5]), f.sl) << at << ": LRH SL";
    EXPECT_EQ(number(row[6]), 2) << at << ": LRH LNH = BTH follows";
    EXPECT_EQ(number(row[7]), f.dlid) << at << ": LRH DLID";
    EXPECT_EQ(number(row[8]), (static_cast<int64_t>(bytes.size()) - 2) / 4) << at << ": PktLen";
    EXPECT_EQ(number(row[9]), f.slid) << at << ": LRH SLID";
    EXPECT_EQ(number(row[10]), f.opcode) << at << ": BTH opcode";
    EXPECT_EQ(flag(row[11]), f.solicited) << at << ": BTH SE";
    EXPECT_EQ(flag(row[12]), f.migreq) << at << ": BTH MigReq";
    EXPECT_EQ(number(row[13]), (4 - f.payload_bytes % 4) % 4) << at << ": BTH PadCnt";
    EXPECT_EQ(number(row[14]), 0) << at << ": BTH TVer";
    EXPECT_EQ(number(row[15]), f.pkey) << at << ": BTH P_Key";
    // Wireshark 4.0 names no FECN/BECN field; BTH byte 4 is hex digits 8-9 of the raw header.
    ASSERT_EQ(row[16].size(), 24u) << at << ": the 12 BTH bytes in hex";
    EXPECT_EQ(std::stoi(row[16].substr(8, 2), nullptr, 16),
              (f.fecn ? 0x80 : 0) | (f.becn ? 0x40 : 0))
        << at << ": BTH FECN/BECN byte";
    EXPECT_EQ(number(row[17]), f.dest_qp) << at << ": BTH DestQP";
    EXPECT_EQ(flag(row[18]), f.ack_req) << at << ": BTH AckReq";
    EXPECT_EQ(number(row[19]), f.psn & 0xFFFFFF) << at << ": BTH PSN (24 bits)";
    if (f.reth) {
      EXPECT_EQ(static_cast<uint64_t>(number(row[20])), f.reth->va) << at << ": RETH VA";
      EXPECT_EQ(number(row[21]), f.reth->rkey) << at << ": RETH R_Key";
      EXPECT_EQ(number(row[22]), f.reth->dma_length) << at << ": RETH DMA length";
    } else {
      EXPECT_EQ(row[20] + row[21] + row[22], "") << at << ": no RETH";
    }
    if (f.aeth) {
      EXPECT_EQ(number(row[23]), f.aeth->syndrome) << at << ": AETH syndrome";
      EXPECT_EQ(number(row[24]), f.aeth->msn) << at << ": AETH MSN";
    } else {
      EXPECT_EQ(row[23] + row[24], "") << at << ": no AETH";
    }
    if (f.deth) {
      EXPECT_EQ(number(row[25]), f.deth->qkey) << at << ": DETH Q_Key";
      EXPECT_EQ(number(row[26]), f.deth->src_qp) << at << ": DETH source QP";
    } else {
      EXPECT_EQ(row[25] + row[26], "") << at << ": no DETH";
    }
    EXPECT_EQ(row[27].empty() ? -1 : std::stoll(row[27], nullptr, 16),
              f.immediate ? int64_t{*f.immediate} : -1)
        << at << ": ImmDt (hex bytes)";
    const uint32_t padded = f.payload_bytes + (4 - f.payload_bytes % 4) % 4;
    EXPECT_EQ(number(row[28]), padded ? int64_t{padded} : -1)
        << at << ": Wireshark's payload = payload + pad (frame minus headers minus 6)";
    // Wireshark 4.0 stops after the BTH of a CNP (its rest shows as vendor data), so ICRC and
    // VCRC are named only for the other opcodes. It reads both big-endian; the bytes it shows
    // must be the last 6 of the packet.
    if (f.opcode != kIbOpCnp || !row[29].empty()) {
      const size_t n = bytes.size();
      const uint32_t icrc_be =
          uint32_t{bytes[n - 6]} << 24 | bytes[n - 5] << 16 | bytes[n - 4] << 8 | bytes[n - 3];
      EXPECT_EQ(number(row[29]), icrc_be) << at << ": ICRC position";
      EXPECT_EQ(number(row[30]), bytes[n - 2] << 8 | bytes[n - 1]) << at << ": VCRC position";
    }
    EXPECT_EQ(row[31], "") << at << ": not malformed";
    EXPECT_EQ(row[32], "") << at << ": no Wireshark expert warnings";
  }
  fs::remove_all(dir);
}

TEST(PcapIbTshark, LinktypeIs247AndTsharkEitherDecodesItOrRefusesOnlyTheLinktype) {
  REQUIRE_TSHARK();
  const fs::path dir = fresh_dir("fabricsim_pcap_ib_tshark_247");
  const fs::path file = dir / "ib.pcap";
  write_ib_pcap_file(file.string(), sample_packets());
  {
    std::ifstream in(file, std::ios::binary);
    unsigned char header[24] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    EXPECT_EQ(header[20] | header[21] << 8 | header[22] << 16 | header[23] << 24, 247)
        << "LINKTYPE_INFINIBAND in the global header";
  }
  const fs::path err = dir / "stderr.txt";
  const CommandOutput direct =
      run_command(tshark_ib_command(file, "", kFields) + " 2>'" + err.string() + "'");
  if (direct.status == 0) {
    // This tshark maps 247 to its InfiniBand dissector: it must decode the file exactly as
    // through USER0, frame.protocols aside (no user_dlt layer).
    const fs::path user0 = with_linktype(file, kLinktypeUser0, dir / "ib_user0.pcap");
    const CommandOutput via_user0 =
        run_command(tshark_ib_command(user0, kUser0AsInfiniband, kFields) + " 2>/dev/null");
    auto rows = split_rows(direct.out, kFieldCount);
    auto want = split_rows(via_user0.out, kFieldCount);
    ASSERT_EQ(rows.size(), sample_packets().size()) << "one decoded line per packet";
    ASSERT_EQ(rows.size(), want.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      ASSERT_EQ(rows[i].size(), kFieldCount);
      EXPECT_EQ(rows[i][3].rfind("infiniband", 0), 0u) << "packet " << i + 1 << ": IB from byte 0";
      rows[i][3] = want[i][3];
      EXPECT_EQ(rows[i], want[i]) << "packet " << i + 1 << ": same decode as through USER0";
    }
  } else {
    const std::string why = test_support::read_file(err);
    EXPECT_NE(why.find("network type 247 unknown or unsupported"), std::string::npos)
        << "tshark must refuse the file only for its link type (Wireshark 4.0 does not map 247), "
           "not because it is malformed: "
        << why;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fabricsim::output
