// The flow engine's transport (mode: flow, docs/modes.md): every message is one fluid flow on
// the path packet mode would give it (engine/flow/path_walk.h), at its max-min fair share of
// every link it crosses (engine/flow/fluid_fabric.h), re-shared when a flow starts or ends.
// Nothing is a packet: no queue, PAUSE, credit, mark, drop or retransmission exists.
//
// It sits where a packet transport sits (transport/transport.h), so the workloads, the node
// layer (NVLink, PCIe, the collectives, training) and the results above it run unchanged.
//
// Timing of a message posted at t (all per message, never per packet):
//  - it is ready after the NIC's send overhead (NicConfig::send_overhead_ps) and after the
//    message ahead of it on its connection is ready (a NIC takes one connection's WQEs in order);
//  - its bytes drain as a fluid once it is ready and the connection's previous message has
//    drained (a QP / PDC / TCP connection sends its messages one after another);
//  - the receiver has it `fixed` after the drain ends, where fixed is the idle-path completion
//    time of the packet transport (Transport::ideal_fct_ps: propagation per link, switch latency
//    per hop, NIC latencies, a store-and-forward frame per hop, the receiver's completion) less
//    the send overhead and less the serialization of the whole message at its bottleneck's
//    payload rate. Alone on an idle path a message therefore completes at exactly the packet
//    transport's ideal FCT; under sharing it adds the time it drained slower than line rate.
//  - the sender learns of it one acknowledgement latency later (propagation and switch latency
//    back), recorded in tx_done_ps; nothing waits on it.
// Link capacities are payload rates (Transport::payload_rate_bps of each port's line rate), and
// each port is credited the wire bytes (payload x line rate / payload rate) of every message
// that crossed it, so links.csv's bytes and utilization read as in packet mode.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "core/id_window.h"
#include "core/scheduler.h"
#include "engine/flow/fluid_dcqcn.h"
#include "engine/flow/fluid_fabric.h"
#include "engine/flow/path_walk.h"
#include "net/network.h"
#include "routing/ecmp.h"
#include "transport/transport.h"

namespace fabricsim::scenario {

// What a message's first data packet would carry (the packet transport decides: the flow
// engine asks it through this, engine/packet/simulation.cpp).
struct FlowHeader {
  uint32_t connection = 0;  // dense per transport: the QP, PDC or TCP connection
  uint32_t qp = 0;          // net::Packet::qp (a multi-plane HCA's port choice reads it)
  uint16_t entropy = 0;
  uint8_t priority = 0;
  int traffic_class = 0;
  PathChoice choice = PathChoice::kForward;
};
using HeaderFn = std::function<FlowHeader(uint32_t src_nic, uint32_t dst_nic, int sl)>;
// The entropy (UDP source port) of NCCL channel `channel`'s connection between two NICs as the
// packet transport would give it, or -1 when every channel takes the pair's path.
using ChannelEntropyFn = std::function<int32_t(uint32_t src_nic, uint32_t dst_nic,
                                               uint32_t channel)>;

class FlowTransport final : public transport::Transport {
 public:
  // `proto` is the packet transport the scenario asks for: its ideal FCT and payload rate give
  // the flow's fixed latency and the links' capacities; `header` its header fields.
  // `link` and `sw` are the scenario's fabric link and switch (per-path links come from
  // routes.path_link).
  FlowTransport(net::Network& net, Scheduler& sched, const routing::EcmpRoutes& routes,
                const net::LinkConfig& link, const net::SwitchConfig& sw,
                const transport::Transport& proto, HeaderFn header);

  uint32_t post(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                int sl = -1) override;
  // post_channel is Transport's: every NCCL channel on the NIC pair's one connection, though
  // packet mode gives each channel its own QP. Measured against packet mode, the fluid with a
  // connection per channel was 1.9x too long on a 16-node ring reduce-scatter of 37 MiB
  // (1,543.8 against 815.0 us; one connection: 822.5 us) and 5-31 % on the GPU rows of
  // docs/modes.md's error table: a fluid keeps the channels in lockstep, so every ring step
  // pays its latency after its bytes, where the NIC's packet round-robin lets them drift apart
  // and overlap (docs/modes.md).
  // A folded message (Transport::post_folded) counts as `weight` flows in the fabric's
  // max-min share: as packet mode, where each folded channel has its own queue pair and the
  // NIC serves its queue pairs in turn, so a ring's 16 channels get 16 turns to another
  // connection's one.
  // Its bytes split over its channels' own paths where they differ (RoCE: each channel's queue
  // pair has its own UDP source port, TCP and iWARP each channel's connection its own source
  // port, so its own ECMP path; set_channel_entropy), each link crossed in proportion to the
  // channels on it.
  uint32_t post_folded(uint32_t src_nic, uint32_t dst_nic, int64_t size_bytes, uint64_t tag,
                       uint32_t channel, int32_t weight) override;
  void set_channel_entropy(ChannelEntropyFn fn) { channel_entropy_ = std::move(fn); }
  // RoCE with `roce.cc: dcqcn`: each connection's rate follows its own DCQCN reaction point,
  // cut by CNPs where a switch port holds it back (engine/flow/fluid_dcqcn.h). Call before the
  // first message.
  void enable_dcqcn(const transport::DcqcnParams& p, int64_t mtu_bytes);
  const FluidDcqcn* dcqcn() const { return dcqcn_.get(); }
  const transport::MessageRecord& message(uint32_t id) const override { return msgs_[id].rec; }
  uint32_t num_messages() const override { return msgs_.end_id(); }
  bool retire_messages(RetireFn retire) override;
  uint32_t first_live_message() const override { return msgs_.front_id(); }
  uint32_t peak_live_messages() const override { return msgs_.max_live(); }
  const transport::TransportCounters& counters() const override { return counters_; }
  void on_event(uint32_t kind, uint32_t target) override;
  int64_t ideal_fct_ps(int64_t size_bytes, int switch_hops, const net::LinkConfig& link,
                       const net::SwitchConfig& sw, const net::NicConfig& nic) const override {
    return proto_.ideal_fct_ps(size_bytes, switch_hops, link, sw, nic);
  }
  double payload_rate_bps(int64_t link_rate_bps) const override {
    return proto_.payload_rate_bps(link_rate_bps);
  }
  int64_t failure_affected_connections() const override { return 0; }
  int64_t failure_recovered_ps() const override { return -1; }
  int64_t failure_unrecovered_connections() const override { return 0; }

  const FluidFabric& fabric() const { return fabric_; }
  // Bytes of one message record (the pre-flight, preflight/resources.cpp).
  static constexpr size_t message_record_bytes();

  // The fabric's links changed state or its forwarding changed (engine/packet/simulation.cpp
  // calls it after a link fails or comes back, after a local repair and after the routes are
  // reprogrammed). A failed cable carries nothing: the flows on it stall (a token 1 b/s) until
  // they are re-routed. Re-routed are the flows that cross a failed cable, or with
  // `reroute_all` (new routes) every active flow: each is walked again from its header, as its
  // next packets would be forwarded, and keeps the bytes it has left. Loss recovery is not
  // modelled: a stalled flow resumes the moment it has a path (docs/modes.md).
  void on_links_changed(bool reroute_all);
  // outputs.flows.path: called with each message's ports in hop order when it starts and when
  // it is re-routed (single-path messages only: resolve refuses the path column with spraying).
  std::function<void(uint32_t msg, const std::vector<uint32_t>& ports)> on_path;

 private:
  struct Msg {
    transport::MessageRecord rec;
    FlowHeader hdr;
    int64_t fixed_ps = 0;
    int64_t ack_ps = 0;
    uint32_t next = 0xFFFFFFFFu;  // the next message queued on the connection
    int32_t weight = 1;           // post_folded: channels channel .. channel + weight - 1
    uint32_t channel = 0;
    bool delivered = false;
  };
  struct Conn {
    uint32_t head = 0xFFFFFFFFu;  // the message draining or about to (none: 0xFFFFFFFF)
    uint32_t tail = 0xFFFFFFFFu;
    int64_t last_ready_ps = 0;
  };

  void start(uint32_t msg);            // the connection's head begins to drain now
  void begin(uint32_t msg);            // start()'s bookkeeping: path, port bytes, counters
  void drained(uint32_t msg);          // its last byte left the sender
  void complete(uint32_t msg);         // drained()'s own part: its delivery, the head moves on
  // At flow `flow`'s end: the connection's next message, ready now and on the same crossings,
  // carries on in the same fluid record (FluidFabric::renew). Returns false when it cannot.
  bool continue_connection(uint32_t flow);
  void deliver(uint32_t msg);          // the receiver has it
  void after_change();                 // schedules the re-share and the flows' end events
  void retire_front();
  bool walk(const Msg& m);  // into path_; false when some switch has no route
  void weigh_path(const Msg& m);  // path_'s crossing weights x the message's weight
  void report_path(uint32_t id);
  // The DCQCN rate cap (enable_dcqcn) appended to path_ for message m.
  void cap_path(const Msg& m);
  bool fabric_link(uint32_t link) const { return link < net_.num_ports(); }
  std::vector<uint32_t> path_ports_;

  net::Network& net_;
  Scheduler& sched_;
  const routing::EcmpRoutes& routes_;
  net::LinkConfig link_;
  net::SwitchConfig sw_;
  const transport::Transport& proto_;
  HeaderFn header_;
  FluidFabric fabric_;
  PathWalker walker_;
  double wire_per_payload_ = 1.0;
  IdWindow<Msg> msgs_;
  std::vector<Conn> conns_;
  std::vector<FluidFabric::Crossing> path_;
  std::vector<FluidFabric::Crossing> old_path_;
  std::vector<FluidFabric::Crossing> unweighted_;  // continue_connection's scratch
  std::vector<FluidFabric::Crossing> one_path_;    // walk's scratch: one channel's path
  ChannelEntropyFn channel_entropy_;
  std::unique_ptr<FluidDcqcn> dcqcn_;
  int64_t reshare_at_ps_ = -1;  // a re-share event is pending at this time
  transport::TransportCounters counters_;
  RetireFn retire_;
};

constexpr size_t FlowTransport::message_record_bytes() { return sizeof(Msg); }

}  // namespace fabricsim::scenario
