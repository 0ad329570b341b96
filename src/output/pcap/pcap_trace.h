// A run's trace.pcap in the format of its fabric, and credits.csv for what a pcap cannot hold.
//
// RoCE: LINKTYPE_ETHERNET frames (output/pcap/pcap.h).
// InfiniBand: LINKTYPE_ERF (197), one ERF InfiniBand record (type 21) per packet, the packet from
// its LRH (output/pcap/pcap_ib.h, output/pcap/pcap_erf.h), mapped from the captured net::Packet header
// fields by these rules (the RoCE writer's where IB has the same field):
//   LRH     VL = pkt.priority (the VL the packet used on that link), SL = net::ib_sl_of(flags),
//           DLID = pkt.entropy (the LID the switches forwarded it by; checked against the
//           destination NIC's LID), SLID = the source NIC's LID (RunResult::nic_lid, as the
//           Subnet Manager assigned them), LNH = 2 (local: no GRH in one subnet).
//   BTH     opcode, DestQP, AckReq and PSN as output/pcap/pcap.h says for RoCE (bth_opcode, requester
//           and responder QPNs); P_Key 0xFFFF; MigReq 1 (no path migration armed).
//   RETH / DETH / AETH  as output/pcap/pcap.h.
// The synthesized packet must be exactly pkt.frame_bytes long (LRH..VCRC is what the simulator
// serialized and counted against credits); anything that would differ, or that IB cannot carry
// (a PFC frame, a CNP: IB congestion control is not modelled), makes the writer throw
// std::runtime_error naming the packet instead of writing a packet the simulator did not send.
//
// IB link-level flow-control packets (net::PacketType::kCredit) are left out of trace.pcap. ERF
// has a record type for them (25, InfiniBand link), but Wireshark's "infiniband_link" dissector
// first fills the address columns by reading the record as if it began with an LRH
// (dissect_infiniband_link calls dissect_general_info(..., IB_PACKET_STARTS_WITH_LRH) [WS
// packet-infiniband.c 002133c]), which runs past the end of a 6-byte flow-control packet:
// tshark 4.0.17 reports every such record as "[Malformed Packet: InfiniBand Link]" and shows
// none of its fields (tests/output/pcap_ib_tshark_test.cpp,
// FlowControlRecordsAreMalformedForThisTshark).
// Padding the record to look longer would misstate the packet (and only helps for some FCTBS
// values, whose low bits the dissector reads as LNH), so they go to credits.csv instead, one row
// each:
//   time_ps,from_node,to_node,vl,fccl_blocks,fccl
// time_ps = when it started on the wire; from_node/to_node = net::Network node ids of the link
// ends (as CapturedFrame); fccl_blocks = the flow-control credit limit the model carries (64-byte
// blocks since link initialization, never wrapped); fccl = the 12-bit wire value (mod 4096). The
// model does not record the packet's FCTBS. Flow-control packets do not count against the
// capture budget (engine/packet/simulation.cpp), so trace.pcap holds the first N other packets and
// credits.csv the flow-control packets sent in the same span.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "output/pcap/pcap.h"
#include "output/pcap/pcap_ib.h"
#include "results/result.h"

namespace fabricsim::output {

// Everything a captured frame's InfiniBand packet needs besides the frame itself.
struct IbCaptureContext {
  Verbs verbs;
  const std::vector<uint16_t>* nic_lid = nullptr;  // NIC -> LID; REQUIRES: set
  MessageBytes message_bytes;                      // RETH DMA length (optional)
};

// The LRH/BTH/extension header fields of one captured IB data, ACK or NAK packet. Throws
// std::runtime_error if the packet cannot be represented exactly (see above).
IbPacketFields ib_fields_of(const scenario::CapturedFrame& frame, const IbCaptureContext& ctx);

// The captured IB packets (flow-control packets skipped), mapped and checked.
std::vector<IbCapturedPacket> ib_captured_packets(
    const std::vector<scenario::CapturedFrame>& frames, const IbCaptureContext& ctx);

// Checks that every captured frame of the run can be written, without writing anything: call it
// before creating any output file so that a refusal leaves no half-written directory.
// Throws std::runtime_error naming the first frame that cannot.
void check_trace(const scenario::RunResult& result);

// Writes trace.pcap for the run (REQUIRES: result.captured is not empty): Ethernet for RoCE,
// ERF InfiniBand records for InfiniBand. Throws std::runtime_error as check_trace does, or if
// `path` cannot be written.
void write_trace_pcap(const std::string& path, const scenario::RunResult& result);

// credits.csv text (header and one row per captured flow-control packet; see above).
inline constexpr const char* kCreditsCsvHeader = "time_ps,from_node,to_node,vl,fccl_blocks,fccl";
std::string credits_csv_text(const std::vector<scenario::CapturedFrame>& frames);
// Whether the capture holds flow-control packets (then credits.csv is written).
bool has_credit_packets(const std::vector<scenario::CapturedFrame>& frames);

}  // namespace fabricsim::output
