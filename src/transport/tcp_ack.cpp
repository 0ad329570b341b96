// TCP sender: ACK processing, SACK loss detection, the retransmission timer, and the part of
// congestion control every rule shares (slow start, the loss events); the rules' own parts are
// in transport/tcp_window_cc.h. Sources: RFC 5681 (slow start), RFC 3465 (byte counting), RFC
// 6582 (NewReno recovery point), RFC 6675 (SACK loss recovery), RFC 6298 (RTO), and Linux
// net/ipv4 where the RFCs leave a choice (named below).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "core/time.h"
#include "net/wire.h"
#include "transport/tcp.h"

namespace fabricsim::transport {

using net::Packet;

namespace {
// RFC 6675 §2 DupThresh: a segment is lost once 3 segments above it have been SACKed.
constexpr uint32_t kDupThresh = 3;
constexpr int kMaxBackoff = 16;
}  // namespace

void TcpTransport::arm_rto(uint32_t id) {
  TcpConn& c = conns_[id];
  const int64_t rto = std::min(c.rto_ps << std::min(c.backoff, kMaxBackoff), cfg_.rto_max_ps);
  c.rto_deadline_ps = sched_.now() + rto;
  // The event is lazy: a later deadline is picked up when the pending event fires.
  if (c.timer_ps < 0 || c.timer_ps > c.rto_deadline_ps) {
    c.timer_ps = c.rto_deadline_ps;
    sched_.at(c.timer_ps, kQpTimer, id, c.src_nic);  // the sender's timer
  }
}

void TcpTransport::rtt_sample(TcpConn& c, int64_t r) {
  // RFC 6298 §2.2-2.3 (alpha 1/8, beta 1/4, K 4). The clock granularity G is the simulator's
  // (1 ps), so max(G, K x RTTVAR) is K x RTTVAR.
  if (c.srtt_ps < 0) {
    c.srtt_ps = r;
    c.rttvar_ps = r / 2;
  } else {
    c.rttvar_ps = (3 * c.rttvar_ps + std::llabs(c.srtt_ps - r)) / 4;
    c.srtt_ps = (7 * c.srtt_ps + r) / 8;
  }
  c.rto_ps = std::clamp(c.srtt_ps + 4 * c.rttvar_ps, cfg_.rto_min_ps, cfg_.rto_max_ps);
  c.backoff = 0;  // a fresh sample ends the backoff (RFC 6298 §5.7 note; Linux tcp_ack)
}

void TcpTransport::mark_lost(TcpConn& c, TcpTxSlot& s) {
  if (s.state == kTcpInFlight) c.in_flight -= s.tcp_bytes;
  s.state = kTcpLost;
  c.rtx.push_back(s.seg);
}

void TcpTransport::enter_recovery(TcpConn& c) {
  // Halve the window once per loss event (RFC 5681 §3.2 / RFC 6675 §5; Linux tcp_reno_ssthresh
  // and DCTCP's dctcp_react_to_loss: max(cwnd / 2, 2 segments), RFC 8257 §3.5). The recovery
  // point (RFC 6582) keeps further losses of this window from halving it again.
  // CUBIC's is beta x cwnd with W_max remembered (RFC 9438 §4.6-4.7): the rule's.
  c.win.ssthresh = c.cc.loss_ssthresh(c.win, mss_, sched_.now());
  c.win.cwnd = c.win.ssthresh;
  c.in_recovery = true;
  c.recover = c.snd_nxt;
  c.win.cwr_end = c.snd_nxt;  // no ECN reduction on top within this window
  c.win.acked_accum = 0;
  ++ctr(counters_).fast_recoveries;
}

void TcpTransport::detect_losses(TcpConn& c) {
  // RFC 6675 IsLost, incrementally: "SACKed segments above s" only falls as s rises, so the
  // lost segments form a prefix that loss_ptr walks once. A resent segment is not re-marked
  // (only the RTO recovers a lost retransmission, as RFC 6675 without RACK).
  bool lost_any = false;
  while (c.loss_ptr < c.snd_nxt) {
    TcpTxSlot& s = slot(c, c.loss_ptr);
    const uint32_t self = s.state == kTcpSacked ? 1 : 0;
    if (c.sacked_count - c.sacked_below_ptr - self < kDupThresh) break;
    if (s.state == kTcpSacked) {
      ++c.sacked_below_ptr;
    } else if (s.state == kTcpInFlight && s.sends == 1) {
      mark_lost(c, s);
      ++ctr(counters_).sack_retransmits;
      lost_any = true;
    }
    ++c.loss_ptr;
  }
  if (lost_any && !c.in_recovery) enter_recovery(c);
}

void TcpTransport::advance_una(uint32_t id, uint32_t cum) {
  TcpConn& c = conns_[id];
  const TcpTxSlot& last = slot(c, cum - 1);
  c.snd_una_byte = last.start_byte + last.payload;
  for (uint32_t seg = c.snd_una; seg != cum; ++seg) {
    TcpTxSlot& s = slot(c, seg);
    if (s.state == kTcpInFlight) c.in_flight -= s.tcp_bytes;
    if (s.state == kTcpSacked) {
      --c.sacked_count;
      if (seg < c.loss_ptr) --c.sacked_below_ptr;
    }
    s.state = kTcpFree;
  }
  c.snd_una = cum;
  if (c.loss_ptr < cum) {
    c.loss_ptr = cum;
    c.sacked_below_ptr = 0;
  }
  while (c.una_msg < c.msgs.size()) {
    TcpMessage& m = msgs_[c.msgs[c.una_msg]];
    if (m.end_byte() > c.snd_una_byte) break;
    m.tx_done_ps = sched_.now();
    --owed().unacked;
    ++c.una_msg;
  }
  failure_.reached(c.lost_end, c.snd_una, sched_.now());
  retire_front();
  // RFC 6298 §5.2-5.3: stop the timer when everything is acknowledged, else restart it.
  if (c.snd_una == c.snd_nxt) {
    c.rto_deadline_ps = -1;
  } else {
    arm_rto(id);
  }
}

void TcpTransport::cc_on_ack(TcpConn& c, int64_t acked, bool ece) {
  const int64_t mss = mss_;
  const TcpAck a{acked, ece, c.in_recovery, c.snd_una, c.snd_nxt, c.srtt_ps, sched_.now(), mss};
  if (c.cc.on_ack(c.win, a)) return;  // the rule reacted to the echo (DCTCP's cut)
  if (c.in_recovery || acked <= 0) return;
  if (c.win.cwnd < c.win.ssthresh) {
    // Slow start, counting acknowledged bytes (RFC 3465; Linux tcp_slow_start counts every
    // acknowledged segment, delayed ACKs included), up to ssthresh.
    c.win.cwnd = std::min(c.win.cwnd + acked, std::max(c.win.ssthresh, c.win.cwnd));
  } else {
    c.cc.grow(c.win, a);  // congestion avoidance: the rule's own
  }
  // Growth beyond what the receive window lets out would be meaningless (RFC 7661's concern);
  // cap it there.
  c.win.cwnd = std::min(c.win.cwnd, std::max<int64_t>(cfg_.rwnd_bytes, 2 * mss));
}

void TcpTransport::on_ack(const Packet& p) {
  const AckInfo a = acks_.take(p.msg);
  ++ctr(counters_).ack_packets;
  const uint32_t id = p.qp;
  TcpConn& c = conns_[id];
  const int64_t now = sched_.now();
  const uint32_t cum = std::min(p.psn, c.snd_nxt);
  const bool ece = (p.flags & net::kFlagEce) != 0;
  // RTT from the segment that triggered the ACK, if it was sent once (Karn's rule, RFC 6298 §3).
  if (a.has_trigger && a.trigger >= c.snd_una && a.trigger < c.snd_nxt) {
    const TcpTxSlot& t = slot(c, a.trigger);
    if (t.seg == a.trigger && t.sends == 1 && t.state != kTcpFree) rtt_sample(c, now - t.sent_ps);
  }
  // SACK: the bitmap above the cumulative point and the triggering segment (RFC 2018 §4).
  auto sack = [&](uint32_t seg) {
    if (seg < c.snd_una || seg >= c.snd_nxt) return;
    TcpTxSlot& s = slot(c, seg);
    if (s.seg != seg || s.state == kTcpSacked || s.state == kTcpFree) return;
    if (s.state == kTcpInFlight) c.in_flight -= s.tcp_bytes;
    s.state = kTcpSacked;  // a Lost entry still in the resend queue is skipped there
    ++c.sacked_count;
    if (seg < c.loss_ptr) ++c.sacked_below_ptr;
  };
  for (uint64_t bits = a.sack_bits; bits != 0; bits &= bits - 1) {
    sack(cum + 1 + static_cast<uint32_t>(__builtin_ctzll(bits)));
  }
  if (a.has_trigger && a.trigger > cum) sack(a.trigger);
  int64_t acked = 0;
  if (cum > c.snd_una) {
    for (uint32_t seg = c.snd_una; seg != cum; ++seg) acked += slot(c, seg).tcp_bytes;
    advance_una(id, cum);
    if (c.in_recovery && c.snd_una >= c.recover) c.in_recovery = false;  // RFC 6582 exit
  }
  if (c.sacked_count >= kDupThresh) detect_losses(c);
  cc_on_ack(c, acked, ece);
  if (cfg_.phase_jitter) {
    const int64_t frame_ps = serialization_ps(
        tcp_data_frame_bytes(cfg_, seg_payload_) + net::kWireOnlyBytes,
        net_.port(net_.nic_port(c.src_nic)).rate_bps);
    c.tx_cpu_free_ps = std::max(c.tx_cpu_free_ps,
                                now + static_cast<int64_t>(jitter_rng_[c.src_nic].uniform() *
                                                        static_cast<double>(frame_ps)));
  }
  activate(id);
}

void TcpTransport::on_rto(uint32_t id) {
  TcpConn& c = conns_[id];
  const int64_t now = sched_.now();
  if (c.timer_ps != now) return;  // superseded
  c.timer_ps = -1;
  if (c.rto_deadline_ps < 0) return;  // everything was acknowledged
  if (c.rto_deadline_ps > now) {
    c.timer_ps = c.rto_deadline_ps;
    sched_.at(c.timer_ps, kQpTimer, id, c.src_nic);  // the sender's timer
    return;
  }
  ++ctr(counters_).timeouts;
  // RFC 5681 §3.1: ssthresh = max(FlightSize / 2, 2 SMSS) (Linux: from cwnd), cwnd = 1 SMSS;
  // RFC 6298 §5.5: back off. Every segment not SACKed is presumed lost (Linux tcp_enter_loss).
  // CUBIC (RFC 9438 §4.8): as a congestion event, then cwnd = 1 segment: the rule's ssthresh.
  c.win.ssthresh = c.cc.loss_ssthresh(c.win, mss_, now);
  c.win.cwnd = mss_;
  c.win.acked_accum = 0;
  c.in_recovery = false;
  c.recover = c.snd_nxt;
  c.win.cwr_end = c.snd_nxt;
  c.backoff = std::min(c.backoff + 1, kMaxBackoff);
  c.rtx.clear();
  c.rtx_head = 0;
  for (uint32_t seg = c.snd_una; seg != c.snd_nxt; ++seg) {
    TcpTxSlot& s = slot(c, seg);
    if (s.state == kTcpInFlight || s.state == kTcpLost) {
      s.state = kTcpInFlight;  // mark_lost takes it out of the pipe
      mark_lost(c, s);
    }
  }
  c.in_flight = 0;
  c.loss_ptr = c.snd_nxt;  // everything outstanding is decided
  c.sacked_below_ptr = c.sacked_count;
  c.rto_deadline_ps = -1;
  arm_rto(id);
  activate(id);
}

}  // namespace fabricsim::transport
