// The transport part of the memory pre-flight (preflight/resources.cpp): message records,
// per-connection state and the NICs' context caches, by the transport the scenario runs.
#include "preflight/resources_transport.h"

#include <algorithm>
#include <bit>

#include "core/id_window.h"
#include "core/ring.h"
#include "net/int_telemetry.h"
#include "net/nic_context_cache.h"
#include "resolve/hpcc_setup.h"
#include "resolve/swift_setup.h"
#include "resolve/uet_setup.h"
#include "transport/dcqcn.h"
#include "transport/rc.h"
#include "transport/tcp.h"
#include "transport/uet.h"
#include "engine/flow/flow_transport.h"
#include "engine/flow/fluid_fabric.h"

namespace fabricsim::scenario::preflight {
namespace {

// The message records a transport holds at its peak, and the message ids its connections list
// (core/id_window.h, core/id_list.h). Records live in pages of kPageRecords covering the ids
// from the oldest live message to the newest. With a bound on the messages not yet credited
// (GPU runs: the collectives' credit windows, resources_gpu.h live_messages): ceil(live / page)
// pages, one more straddling a page boundary and the spare IdWindow keeps. A record outlives its
// credit until its acknowledgement arrives and every older id retired (retirement is in id
// order), so the ids spanned may exceed the windows (two-jobs: 1,268 against 512); the rounding
// up to whole pages is the slack for that, checked on every GPU example by the examples test
// (docs/performance.md). Without a bound (patterns; retirement off: the steady window, TE), every
// record, counted as a vector grown by push_back (bit_ceil, at or above the pages). A
// connection's id list keeps its ids not yet retired and up to as many dropped ones (erased once
// they are half of it, or 32), in a vector of at most twice that: 2 x (2 x live + 32 per
// connection) ids, and never more than twice every id.
struct MessageMemory {
  int64_t records = 0;
  int64_t list_ids = 0;
  int64_t page_table_bytes = 0;
};
MessageMemory message_memory(const Traffic& t) {
  MessageMemory m;
  m.records = resident_grown_elements(t.messages);
  m.list_ids = 2 * t.messages;
  if (t.live_messages < 0) return m;
  constexpr int64_t kPage = IdWindow<transport::Message>::kPageRecords;
  const int64_t pages = (t.live_messages + kPage - 1) / kPage + 2;
  m.records = std::min(m.records, pages * kPage);
  m.list_ids = std::min(m.list_ids, 2 * (2 * t.live_messages + 32 * t.qps));
  // A pointer per page ever used, in a vector grown by resize: at most twice that.
  m.page_table_bytes = 2 * ((t.messages + kPage - 1) / kPage) * static_cast<int64_t>(sizeof(void*));
  return m;
}

// RoceTransport (transport/rc.h): msgs_ grows by push_back; each QP keeps its message ids
// (push_back too: at most twice what it holds) and is indexed by qp_index_; a congestion-control
// scheme per QP; an out-of-order responder's reorder bitmap per QP; per NIC its round-robin ring.
int64_t roce_transport_bytes(const Scenario& sc, const Traffic& t, int64_t nics,
                             const Checked& wc) {
  const bool paced = sc.roce.cc != transport::CongestionControl::kNone;
  const MessageMemory mm = message_memory(t);
  int64_t transport = wc.mul(mm.records, sizeof(transport::Message));
  transport = wc.add(transport, wc.add(wc.mul(mm.list_ids, sizeof(uint32_t)), mm.page_table_bytes));
  const int64_t per_qp =
      sizeof(transport::Qp) + kMallocOverheadBytes + kHashNodeBytes + kHashBucketBytes +
      (sc.roce.out_of_order ? (static_cast<int64_t>(sc.roce.reorder_buffer_packets) + 63) / 64 * 8 +
                                  kMallocOverheadBytes
                            : 0);
  transport = wc.add(transport, wc.mul(grown_elements(t.qps), per_qp));
  // A scheme per QP (transport/rate_cc.h: the variant is as large as its largest member; a
  // registered scheme's own object is not known here).
  if (paced)
    transport = wc.add(transport, wc.mul(grown_elements(t.qps), sizeof(transport::RateCc)));
  if (sc.roce.cc == transport::CongestionControl::kHpcc) {
    // HPCC's INT table (net/int_telemetry.h): per QP its slots, an IntRecord and a flag each,
    // sized as rc_hpcc.cpp enable_hpcc sizes them (B x T / MTU + 2, to a power of two); the
    // vectors grow by resize as QPs appear, so the old copy is live while the new one fills.
    const transport::HpccParams hp = resolve_hpcc(sc);
    const double w_max = static_cast<double>(sc.link.rate_bps) / 8 * hp.base_rtt_ps * 1e-12;
    const int64_t slots = static_cast<int64_t>(std::bit_ceil(
        static_cast<uint64_t>(w_max / std::max(1, sc.roce.mtu_bytes)) + 2));
    transport = wc.add(transport, wc.mul(2, t.qps, slots * static_cast<int64_t>(
                                                             sizeof(net::IntRecord) + 1)));
  }
  if (sc.roce.cc == transport::CongestionControl::kSwift) {
    // Swift's send times (transport/swift.h SwiftCc): per QP one int64 per slot of its stamp
    // ring, max_cwnd + 2 to a power of two, in a vector of its own.
    const auto slots = static_cast<int64_t>(transport::SwiftCc::stamp_slots(resolve_swift(sc)));
    transport = wc.add(transport, wc.mul(grown_elements(t.qps),
                                         slots * static_cast<int64_t>(sizeof(int64_t)) +
                                             kMallocOverheadBytes));
  }
  return wc.add(transport, wc.mul(nics, sizeof(Ring<uint32_t>) + sizeof(int64_t) +
                                            kMinRingBytes<uint32_t> + sizeof(uint16_t)));
}

// UetTransport (transport/uet.h) instead: a message record, and per connection (PDC) its
// sender window of 32-byte slots (grown by doubling to the PSN span in flight: the window of
// maxwnd = 1.5 x BDP packets, with one doubling for the holes losses leave, at most the PSN
// window of 4 windows), the receiver's bitmap of the PSN window, the retransmission FIFO,
// NSCC's state, the entropy state and the post-time index.
int64_t uet_transport_bytes(const Scenario& sc, const Traffic& t, const Checked& wc) {
  const transport::UetDerived d = transport::uet_derive(sc.uet, uet_network(sc));
  const int64_t frame =
      transport::uet_data_frame_bytes(sc.uet, static_cast<uint32_t>(sc.uet.mtu_bytes));
  const int64_t wnd_bytes =
      sc.uet.nscc_overrides.max_cwnd_bytes.value_or(d.bdp_bytes + d.bdp_bytes / 2);
  const int64_t wnd_pkts = std::clamp<int64_t>((wnd_bytes + frame - 1) / frame, 1, 1 << 14);
  const int64_t window = std::clamp<int64_t>(
      static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(4 * wnd_pkts))), 64, 16384);
  // Nor more than the largest message's packets (a connection's messages rarely overlap by
  // more than one window); the first allocation is 16 slots (UetTransport::grow_tx).
  const int64_t msg_pkts =
      std::max<int64_t>(1, (t.max_message_bytes + sc.uet.mtu_bytes - 1) / sc.uet.mtu_bytes);
  const int64_t slots = std::clamp<int64_t>(
      static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::min(2 * wnd_pkts, msg_pkts)))),
      16, window);
  const int64_t per_pdc =
      sizeof(transport::UetPdc) + sizeof(transport::UetEntropy) +
      sizeof(transport::UetWindowCc) + kHashNodeBytes +
      kHashBucketBytes + slots * static_cast<int64_t>(sizeof(transport::UetTxSlot) + 4) +
      window / 8 + 3 * kMallocOverheadBytes +
      (sc.uet.nscc ? static_cast<int64_t>(sizeof(transport::Nscc)) + kMallocOverheadBytes : 0);
  const MessageMemory mm = message_memory(t);
  int64_t transport = wc.mul(mm.records, sizeof(transport::UetMessage));
  transport = wc.add(transport, wc.add(wc.mul(mm.list_ids, sizeof(uint32_t)), mm.page_table_bytes));
  return wc.add(transport, wc.mul(grown_elements(t.qps), per_pdc));
}

// TcpTransport (transport/tcp.h): a message record, and per connection its sender ring of
// 32-byte segment slots (grown by doubling from 16 to twice the window in flight, at most the
// receive window's segments, and no more than the largest message's segments), the resend
// FIFO (4 B per slot), the receiver's bitmap of the segment window and the post-time index.
int64_t tcp_transport_bytes(const Scenario& sc, const Traffic& t, const Checked& wc) {
  const int64_t mss = transport::tcp_payload_per_segment(sc.tcp);
  const int64_t window = std::bit_ceil(static_cast<uint64_t>(
      std::clamp<int64_t>(2 * (sc.tcp.rwnd_bytes + mss - 1) / mss, 64, 1 << 20)));
  const int64_t wnd_segs = (sc.tcp.rwnd_bytes + mss - 1) / mss;
  const int64_t msg_segs = std::max<int64_t>(1, (t.max_message_bytes + mss - 1) / mss);
  const int64_t slots = std::clamp<int64_t>(
      static_cast<int64_t>(std::bit_ceil(static_cast<uint64_t>(std::min(2 * wnd_segs, msg_segs)))),
      16, window);
  const int64_t per_conn = sizeof(transport::TcpConn) + kHashNodeBytes + kHashBucketBytes +
                           slots * static_cast<int64_t>(sizeof(transport::TcpTxSlot) + 4) +
                           window / 8 + 3 * kMallocOverheadBytes;
  const MessageMemory mm = message_memory(t);
  int64_t transport = wc.mul(mm.records, sizeof(transport::TcpMessage));
  transport = wc.add(transport, wc.add(wc.mul(mm.list_ids, sizeof(uint32_t)), mm.page_table_bytes));
  return wc.add(transport, wc.mul(grown_elements(t.qps), per_conn));
}

// mode: flow (engine/flow/flow_transport.h): a record per message held (retired once
// delivered, as the packet transports' are: the same page-rounded bound) and a fluid flow per
// message draining at once (one per connection at most), each with its crossings: the ports of
// one path (at most 2 x tiers, and a Dragonfly's Valiant detour), or with spraying every port
// of the paths' groups (radix^2 / 4 on a 3-tier fat-tree at most). Plus the fabric's per-port
// link records (capacity, flow list, scratch).
int64_t flow_engine_bytes(const Scenario& sc, const Traffic& t, const Checked& wc) {
  const MessageMemory mm = message_memory(t);
  // A connection drains one message at a time: at most one fluid flow per connection.
  const int64_t held = std::min(t.live_messages >= 0 ? t.live_messages : t.messages, t.qps);
  const bool sprayed = sprays_packets(sc);
  const int64_t radix = std::max(4, sc.topology.radix);
  const int64_t crossings = sprayed ? 2 + radix + radix * radix / 4 : 12;
  const int64_t per_flow = static_cast<int64_t>(FluidFabric::flow_record_bytes()) +
                           kMallocOverheadBytes +
                           crossings * static_cast<int64_t>(FluidFabric::kCrossingBytes);
  int64_t bytes = wc.mul(mm.records, FlowTransport::message_record_bytes());
  bytes = wc.add(bytes, wc.mul(grown_elements(held), per_flow));
  return bytes;
}

}  // namespace

// The transport part: RoCE's, or UET's or TCP's instead, plus the NICs' context caches. In
// flow mode the packet transport holds its connections but no message (the flow engine's
// records and fluid flows stand in for them).
int64_t transport_bytes(const Scenario& sc, const Traffic& traffic, int64_t nics,
                        const Checked& wc) {
  const bool flow_mode = sc.mode == EngineMode::kFlow;
  Traffic t = traffic;
  if (flow_mode) t.messages = t.live_messages = 0;
  int64_t transport = roce_transport_bytes(sc, t, nics, wc);
  if (sc.technology == Technology::kUet) transport = uet_transport_bytes(sc, t, wc);
  if (sc.technology == Technology::kTcp || sc.technology == Technology::kIwarp) {
    transport = tcp_transport_bytes(sc, t, wc);
  }
  if (flow_mode) transport = wc.add(transport, flow_engine_bytes(sc, traffic, wc));
  // iWARP connections use the cache too; kernel TCP keeps its state on the host.
  if (sc.context_cache.enabled && sc.technology != Technology::kUet &&
      sc.technology != Technology::kTcp) {
    // The NICs' context caches (net/nic_context_cache.h): per cached context a slot and at most
    // four index words (the index doubles at load 1/2); a context at each end of every QP, at
    // most `entries` cached per NIC; per NIC its read ring and the two rings of packets and QPs
    // waiting for a context.
    const Checked cc{"fabric.nic.context_cache.entries"};
    const int64_t cached = std::min(cc.mul(2, t.qps), cc.mul(nics, sc.context_cache.entries));
    transport =
        wc.add(transport, cc.mul(grown_elements(cached), net::NicContextCache::kSlotBytes + 16));
    transport = wc.add(
        transport, cc.mul(nics, sc.context_cache.outstanding_misses * 8 +
                                    2 * kMinRingBytes<uint32_t> + 4 * kMallocOverheadBytes + 256));
  }
  return transport;
}

}  // namespace fabricsim::scenario::preflight
