// NSCC: every rule below restates the uet-htsim function named beside it (htsim/sim/uec.cpp
// @ 40ccb05; docs/reference/uet-sim.md §1). Integer truncations follow htsim's, where its
// mem_b/simtime_picosec members receive a double, so the model stays deterministic and the
// arithmetic is the reference's. One deliberate difference: htsim keeps the pending increase in
// a uint32_t (_inc_bytes), which would wrap past 4.29e9 byte^2 if more than ~43 packets were
// acked between fulfills; here it is a double (fulfill runs every 8 MTU, so htsim never wraps
// in its own runs and the two agree).
#include "transport/uet_nscc.h"

#include <algorithm>

namespace fabricsim::transport {

namespace {

// The reference network NSCC's constants were tuned on: 100 Gb/s x 12 us (initNsccParams).
constexpr double kReferenceRateBps = 100e9;
constexpr double kReferenceRttPs = 12e6;

int64_t bdp_bytes(int64_t rtt_ps, int64_t rate_bps) {
  return static_cast<int64_t>(static_cast<double>(rtt_ps) * 1e-12 *
                              (static_cast<double>(rate_bps) / 8.0));
}

}  // namespace

NsccParams nscc_params(int64_t network_rtt_ps, int64_t link_rate_bps, int mtu_bytes, bool trimming,
                       int header_bytes) {
  NsccParams p;
  p.network_rtt_ps = network_rtt_ps;
  p.link_rate_bps = link_rate_bps;
  p.mtu_bytes = mtu_bytes;
  p.mss_bytes = mtu_bytes - header_bytes;
  p.min_cwnd_bytes = mtu_bytes;
  // initNsccParams: target 0.75 x RTT with trimming (a trim signals loss early, so the queue
  // can be kept shorter), 1.0 x RTT without.
  p.target_delay_ps =
      trimming ? static_cast<int64_t>(static_cast<double>(network_rtt_ps) * 0.75) : network_rtt_ps;
  const double network_bdp = static_cast<double>(bdp_bytes(network_rtt_ps, link_rate_bps));
  const double reference_bdp = kReferenceRttPs * 1e-12 * (kReferenceRateBps / 8.0);
  p.scale_a = network_bdp / reference_bdp;
  p.scale_b = static_cast<double>(p.target_delay_ps) / kReferenceRttPs;
  const double mss = p.mss_bytes;
  p.alpha = 4.0 * mss * p.scale_a * p.scale_b / static_cast<double>(p.target_delay_ps);
  p.fi_bytes = 5.0 * mss * p.scale_a;
  p.eta_bytes = 0.15 * mss * p.scale_a;
  p.fi_scale = 0.25 * p.scale_a;
  p.gamma = 0.8;
  p.delay_ewma = 0.0125;
  p.qa_gate = 3;
  p.qa_delay_ps = 4 * p.target_delay_ps;
  p.adjust_period_ps = network_rtt_ps;
  p.adjust_bytes = 8 * static_cast<int64_t>(mtu_bytes);
  // initNscc with peer_rtt = network_rtt: maxwnd = initial cwnd = 1.5 x BDP.
  p.base_rtt_ps = network_rtt_ps;
  p.max_cwnd_bytes = static_cast<int64_t>(1.5 * network_bdp);
  return p;
}

Nscc::Nscc(const NsccParams& p)
    : p_(p),
      cwnd_bytes_(p.max_cwnd_bytes),
      max_cwnd_bytes_(p.max_cwnd_bytes),
      base_rtt_ps_(p.base_rtt_ps) {}

// update_base_rtt: a new minimum becomes the base RTT; with rescale_max_cwnd it also re-derives
// the BDP and maxwnd as htsim does (bdp = rtt_us x rate / 8e6).
void Nscc::update_base_rtt(int64_t rtt_ps) {
  if (rtt_ps >= base_rtt_ps_) return;
  base_rtt_ps_ = rtt_ps;
  if (!p_.rescale_max_cwnd) return;
  const int64_t bdp = static_cast<int64_t>(static_cast<double>(rtt_ps) / 1e6 *
                                           static_cast<double>(p_.link_rate_bps) / 8e6);
  max_cwnd_bytes_ = static_cast<int64_t>(1.5 * static_cast<double>(bdp));
}

// update_delay: an unmarked sample above target enters as base_rtt/4, not as its delay, so one
// slow path without marks cannot drive a decrease by itself.
void Nscc::update_delay(int64_t rtt_ps, bool marked) {
  const int64_t delay = rtt_ps - base_rtt_ps_;
  const double avg = static_cast<double>(avg_delay_ps_);
  const double sample = (!marked && delay > p_.target_delay_ps)
                            ? static_cast<double>(base_rtt_ps_) * 0.25
                            : static_cast<double>(delay);
  avg_delay_ps_ = static_cast<int64_t>(p_.delay_ewma * sample + (1.0 - p_.delay_ewma) * avg);
}

void Nscc::bound() {
  cwnd_bytes_ =
      std::clamp(cwnd_bytes_, p_.min_cwnd_bytes, std::max(max_cwnd_bytes_, p_.min_cwnd_bytes));
}

// quick_adapt: once per base_rtt + target, if there was loss or a very large delay and the bytes
// actually delivered in that period were under maxwnd/8, the window collapses to what was
// delivered. Afterwards ECN marks and NACKs are ignored until the bytes then in flight are
// accounted for (they were sent under the old window). Returns true when this event must not
// change the window any further.
bool Nscc::quick_adapt(int64_t now_ps, bool is_loss, bool skip, int64_t delay_ps,
                       int64_t in_flight_bytes) {
  bool done_or_ignore = false;
  if (bytes_ignored_ < bytes_to_ignore_ && skip) {
    done_or_ignore = true;
  } else if (now_ps > qa_end_ps_) {
    if (qa_end_ps_ != 0 && (trigger_qa_ || is_loss || delay_ps > p_.qa_delay_ps) &&
        achieved_bytes_ < (max_cwnd_bytes_ >> p_.qa_gate)) {
      cwnd_bytes_ = std::max(achieved_bytes_, p_.min_cwnd_bytes);
      bytes_to_ignore_ = in_flight_bytes;
      bytes_ignored_ = 0;
      trigger_qa_ = false;
      done_or_ignore = true;
      ++quick_adapts_;
    }
    achieved_bytes_ = 0;
    qa_end_ps_ = now_ps + base_rtt_ps_ + p_.target_delay_ps;
  }
  if (done_or_ignore) {
    inc_bytes_ = 0;
    received_bytes_ = 0;
  }
  return done_or_ignore;
}

// fast_increase: after more than a window of bytes acked at < 1 us of delay, the window grows by
// fi_scale per acked byte on every ACK (about x(1 + fi_scale) per RTT) until the delay rises.
bool Nscc::fast_increase(int64_t acked_bytes, int64_t delay_ps) {
  if (delay_ps < p_.fast_increase_delay_ps) {
    fi_count_bytes_ += acked_bytes;
    if (fi_count_bytes_ > cwnd_bytes_ || fast_) {
      cwnd_bytes_ += static_cast<int64_t>(static_cast<double>(acked_bytes) * p_.fi_scale);
      fast_ = true;
      return true;
    }
  } else {
    fi_count_bytes_ = 0;
  }
  fast_ = false;
  return false;
}

// proportional_increase: below target, the increase is proportional to the headroom left.
void Nscc::proportional_increase(int64_t acked_bytes, int64_t delay_ps) {
  if (fast_increase(acked_bytes, delay_ps)) return;
  inc_bytes_ += p_.alpha * static_cast<double>(acked_bytes) *
                static_cast<double>(p_.target_delay_ps - delay_ps);
}

// multiplicative_decrease: at most once per base RTT, by gamma x the fraction of the average
// delay that is above target, never below half.
void Nscc::multiplicative_decrease(int64_t now_ps) {
  fast_ = false;
  fi_count_bytes_ = 0;
  const int64_t avg = avg_delay_ps_;
  if (avg > p_.target_delay_ps && now_ps - last_decrease_ps_ > base_rtt_ps_) {
    const double factor = std::max(
        1.0 - p_.gamma * static_cast<double>(avg - p_.target_delay_ps) / static_cast<double>(avg),
        0.5);
    cwnd_bytes_ = static_cast<int64_t>(static_cast<double>(cwnd_bytes_) * factor);
    cwnd_bytes_ = std::max(cwnd_bytes_, p_.min_cwnd_bytes);
    last_decrease_ps_ = now_ps;
    ++decreases_;
  }
}

// fulfill_adjustment: the accumulated increase (bytes x bytes) divided by the window, i.e.
// fi per window of acked bytes; plus eta once per adjust period.
void Nscc::fulfill(int64_t now_ps) {
  cwnd_bytes_ += static_cast<int64_t>(inc_bytes_ / static_cast<double>(cwnd_bytes_));
  if (now_ps - last_adjust_ps_ >= p_.adjust_period_ps) {
    cwnd_bytes_ += static_cast<int64_t>(p_.eta_bytes);
    last_adjust_ps_ = now_ps;
  }
  inc_bytes_ = 0;
  received_bytes_ = 0;
}

// processAck + updateCwndOnAck_NSCC.
void Nscc::on_ack(int64_t now_ps, int64_t acked_bytes, int64_t rtt_ps, bool ecn,
                  int64_t in_flight_bytes) {
  achieved_bytes_ += acked_bytes;
  received_bytes_ += acked_bytes;
  bytes_ignored_ += acked_bytes;
  int64_t delay = avg_delay_ps_;
  if (rtt_ps >= 0) {
    update_base_rtt(rtt_ps);
    if (rtt_ps >= base_rtt_ps_) {
      update_delay(rtt_ps, ecn);
      delay = rtt_ps - base_rtt_ps_;
    }
  }
  if (quick_adapt(now_ps, false, ecn, delay, in_flight_bytes)) return;
  if (!ecn && delay >= p_.target_delay_ps) {
    inc_bytes_ += p_.fi_bytes * static_cast<double>(acked_bytes);  // fair increase
  } else if (!ecn) {
    proportional_increase(acked_bytes, delay);
  } else if (delay >= p_.target_delay_ps) {
    multiplicative_decrease(now_ps);
  }  // marked but below target: no window change (the load balancer moves the path)
  bound();
  if (received_bytes_ > p_.adjust_bytes || now_ps - last_adjust_ps_ > p_.adjust_period_ps) {
    fulfill(now_ps);
  }
  bound();
}

// processNack + updateCwndOnNack_NSCC.
void Nscc::on_nack(int64_t now_ps, int64_t bytes, bool last_hop, int64_t in_flight_bytes,
                   int64_t rtt_ps) {
  if (rtt_ps >= 0) update_base_rtt(rtt_ps);  // update_base_rtt_on_nack defaults to true
  bytes_ignored_ += bytes;
  // A trim means the queue was full: the average takes a marked sample of one network RTT
  // (htsim's estimate of the trimming threshold).
  update_delay(base_rtt_ps_ + p_.network_rtt_ps, true);
  trigger_qa_ = true;
  if (quick_adapt(now_ps, true, true, 0, in_flight_bytes)) return;
  if (!p_.receiver_cc || !last_hop) {
    cwnd_bytes_ -= bytes;
    bound();
  }
}

// mark_packet_for_retransmission (RTO): one packet's worth off the window, floor 1 MTU.
void Nscc::on_timeout(int64_t bytes) {
  cwnd_bytes_ = std::max(cwnd_bytes_ - bytes, p_.mtu_bytes > 0 ? int64_t{p_.mtu_bytes} : 1);
}

}  // namespace fabricsim::transport
