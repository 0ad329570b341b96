#include "output/pcap/pcap_trace.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace fabricsim::output {
namespace {

using net::Packet;
using net::PacketType;

constexpr uint32_t kMaxDataVl = 14;    // VL15 is the management VL; data VLs are 0-14
constexpr uint32_t kFcclMask = 0xFFF;  // FCCL is 12 bits on the wire (reference §1)

constexpr size_t kNoIndex = static_cast<size_t>(-1);

[[noreturn]] void refuse(size_t index, const Packet& p, const std::string& why) {
  const std::string which =
      index == kNoIndex ? "a captured frame" : "captured frame " + std::to_string(index + 1);
  throw std::runtime_error("trace.pcap: " + which + " (QP " + std::to_string(p.qp) + ", PSN " +
                           std::to_string(p.psn) +
                           ") cannot be written as an InfiniBand packet: " + why);
}

IbPacketFields fields_at(const scenario::CapturedFrame& frame, const IbCaptureContext& ctx,
                         size_t index) {
  const Packet& p = frame.pkt;
  if (p.type != PacketType::kData && p.type != PacketType::kAck && p.type != PacketType::kNak &&
      p.type != PacketType::kReadRequest) {
    refuse(index, p,
           p.type == PacketType::kCredit
               ? "a flow-control packet has no LRH (it belongs in credits.csv)"
               : "an InfiniBand fabric sends no PFC frames or CNPs");
  }
  const std::vector<uint16_t>& lids = *ctx.nic_lid;
  if (p.src_nic >= lids.size() || p.dst_nic >= lids.size() || lids[p.src_nic] == 0) {
    refuse(
        index, p,
        "no LID known for NIC " + std::to_string(p.src_nic) + " or " + std::to_string(p.dst_nic));
  }
  if (p.entropy != lids[p.dst_nic]) {
    refuse(index, p,
           "its DLID " + std::to_string(p.entropy) + " is not the LID " +
               std::to_string(lids[p.dst_nic]) + " of its destination NIC " +
               std::to_string(p.dst_nic));
  }
  if (p.priority > kMaxDataVl) {
    refuse(index, p, "VL " + std::to_string(p.priority) + " is no data VL");
  }

  IbPacketFields f;
  f.vl = p.priority;
  f.sl = net::ib_sl_of(p.flags);
  f.dlid = p.entropy;
  f.slid = lids[p.src_nic];
  try {
    f.opcode = bth_opcode(p, ctx.verbs);
  } catch (const std::runtime_error& e) {
    // bth_opcode's message starts "trace.pcap: cannot synthesize ...": keep only its reason.
    const std::string why = e.what();
    const size_t colon = why.rfind(": ");
    refuse(index, p, colon == std::string::npos ? why : why.substr(colon + 2));
  }
  const bool data = p.type == PacketType::kData;
  f.dest_qp = dest_qpn(p);
  f.ack_req = bth_ack_req(p, ctx.verbs);
  f.psn = p.psn;
  const std::optional<IbOpcodeHeaders> headers = ib_opcode_headers(f.opcode);
  if (!headers) refuse(index, p, "opcode " + std::to_string(f.opcode) + " is not synthesized");
  if (headers->reth) {
    const int64_t known = ctx.message_bytes ? ctx.message_bytes(p.msg) : -1;
    const int64_t length = known >= 0 ? known : p.payload_bytes;
    f.reth = IbRethFields{0, p.msg, static_cast<uint32_t>(std::min<int64_t>(length, 0xFFFFFFFF))};
  }
  if (headers->deth) f.deth = IbDethFields{kUdQkey, requester_qpn(p.qp)};
  if (headers->aeth) {                                   // ACK, NAK, READ RESPONSE FIRST/LAST/ONLY
    constexpr uint8_t kAck = 0x1F, kNakPsnError = 0x60;  // as output/pcap/pcap.h
    f.aeth = IbAethFields{p.type == PacketType::kNak ? kNakPsnError : kAck, 0};
  }
  f.payload_bytes = data ? p.payload_bytes : 0;
  const uint32_t size = ib_wire_bytes(f);
  if (size != p.frame_bytes) {
    refuse(index, p,
           "the simulator sent " + std::to_string(p.frame_bytes) +
               " bytes (LRH..VCRC) but the synthesized packet has " + std::to_string(size) +
               " (a header the capture does not know about?)");
  }
  return f;
}

IbCaptureContext context_of(const scenario::RunResult& r) {
  return IbCaptureContext{verbs_of(r), &r.nic_lid, message_bytes_of(r)};
}

}  // namespace

IbPacketFields ib_fields_of(const scenario::CapturedFrame& frame, const IbCaptureContext& ctx) {
  return fields_at(frame, ctx, kNoIndex);
}

std::vector<IbCapturedPacket> ib_captured_packets(
    const std::vector<scenario::CapturedFrame>& frames, const IbCaptureContext& ctx) {
  std::vector<IbCapturedPacket> out;
  out.reserve(frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].pkt.type == PacketType::kCredit) continue;  // credits.csv (see the header)
    out.push_back(IbCapturedPacket{frames[i].time_ps, fields_at(frames[i], ctx, i)});
  }
  return out;
}

void check_trace(const scenario::RunResult& r) {
  if (r.infiniband) {
    ib_captured_packets(r.captured, context_of(r));
    return;
  }
  const MessageBytes lookup = message_bytes_of(r);
  const Verbs verbs = verbs_of(r);
  for (const scenario::CapturedFrame& f : r.captured) frame_bytes(f, lookup, verbs);
}

void write_trace_pcap(const std::string& path, const scenario::RunResult& r) {
  if (!r.infiniband) {
    write_pcap_file(path, r.captured, message_bytes_of(r), verbs_of(r));
    return;
  }
  const std::vector<IbCapturedPacket> packets = ib_captured_packets(r.captured, context_of(r));
  try {
    write_ib_pcap_file(path, packets);
  } catch (const std::invalid_argument& e) {
    // ib_captured_packets checked every field, so this is a defect; still a clean failure.
    throw std::runtime_error(std::string("trace.pcap: ") + e.what());
  }
}

bool has_credit_packets(const std::vector<scenario::CapturedFrame>& frames) {
  for (const scenario::CapturedFrame& f : frames) {
    if (f.pkt.type == PacketType::kCredit) return true;
  }
  return false;
}

std::string credits_csv_text(const std::vector<scenario::CapturedFrame>& frames) {
  std::ostringstream out;
  out << kCreditsCsvHeader << '\n';
  for (const scenario::CapturedFrame& f : frames) {
    const Packet& p = f.pkt;
    if (p.type != PacketType::kCredit) continue;
    // net/packet.h: a flow-control packet's qp holds the VL and psn the FCCL in blocks.
    out << f.time_ps << ',' << f.from_node << ',' << f.to_node << ',' << p.qp << ',' << p.psn << ','
        << (p.psn & kFcclMask) << '\n';
  }
  return out.str();
}

}  // namespace fabricsim::output
