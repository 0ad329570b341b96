// TCP's congestion-control rules (transport/tcp_window_cc.h). Sources: RFC 5681 and RFC 3465
// (NewReno's growth), RFC 8257 (DCTCP), RFC 9438 (CUBIC), and Linux net/ipv4 where the RFCs
// leave a choice (named below).
#include "transport/tcp_window_cc.h"

#include <cmath>

#include "transport/scheme_registry.h"

namespace fabricsim::transport {

void TcpNewReno::grow(TcpWindow& w, const TcpAck& a) {
  // Congestion avoidance: one MSS per cwnd of acknowledged bytes (RFC 5681 §3.1 eq. 3
  // alternative, RFC 3465 §2.1).
  w.acked_accum += a.acked_bytes;
  while (w.acked_accum >= w.cwnd) {
    w.acked_accum -= w.cwnd;
    w.cwnd += a.mss_bytes;
  }
}

bool TcpDctcp::on_ack(TcpWindow& w, const TcpAck& a) {
  // RFC 8257 §3.3: per window of data, F = marked / acked bytes, alpha = (1 - g) alpha + g F.
  acked_ += a.acked_bytes;
  if (a.ece) marked_ += a.acked_bytes;
  if (a.snd_una > window_end_) {
    if (acked_ > 0) {
      const double f = static_cast<double>(marked_) / static_cast<double>(acked_);
      alpha_ = (1 - g_) * alpha_ + g_ * f;
    }
    acked_ = 0;
    marked_ = 0;
    window_end_ = a.snd_nxt;
  }
  // RFC 8257 §3.3: on ECE, cwnd x (1 - alpha / 2), at most once per window (Linux enters CWR
  // until the data outstanding at the reduction is acknowledged); floor 2 segments
  // (dctcp_ssthresh).
  if (a.ece && !a.in_recovery && a.snd_una >= w.cwr_end) {
    w.cwnd = std::max<int64_t>(static_cast<int64_t>(static_cast<double>(w.cwnd) * (1 - alpha_ / 2)),
                               2 * a.mss_bytes);
    w.ssthresh = w.cwnd;
    w.cwr_end = a.snd_nxt;
    w.acked_accum = 0;
    return true;
  }
  return false;
}

// RFC 9438 constants: C = 0.4 (§5.1), beta_cubic = 0.7 (§4.6), alpha_cubic = 3 (1 - beta) /
// (1 + beta) for the Reno-friendly region (§4.3); Linux tcp_cubic.c uses the same (beta 717/1024).
namespace {
constexpr double kCubicC = 0.4;
constexpr double kCubicBeta = 0.7;
constexpr double kCubicAlpha = 3 * (1 - kCubicBeta) / (1 + kCubicBeta);
}  // namespace

int64_t TcpCubic::loss_ssthresh(const TcpWindow& w, int64_t mss_bytes, int64_t /*now_ps*/) {
  const double mss = static_cast<double>(mss_bytes);
  const double cwnd = static_cast<double>(w.cwnd) / mss;
  // Fast convergence (§4.7): a flow whose window is below its last W_max releases more.
  w_max_ = cwnd < w_max_ ? cwnd * (1 + kCubicBeta) / 2 : cwnd;
  epoch_ps_ = -1;  // the next epoch starts at the first ACK in congestion avoidance
  return std::max<int64_t>(static_cast<int64_t>(cwnd * kCubicBeta * mss), 2 * mss_bytes);
}

void TcpCubic::grow(TcpWindow& w, const TcpAck& a) {
  const double mss = static_cast<double>(a.mss_bytes);
  const int64_t now = a.now_ps;
  double cwnd = static_cast<double>(w.cwnd) / mss;
  if (epoch_ps_ < 0) {
    epoch_ps_ = now;
    if (w_max_ < cwnd) w_max_ = cwnd;  // e.g. leaving slow start
    k_s_ = std::cbrt(w_max_ * (1 - kCubicBeta) / kCubicC);  // §4.2 eq. 2
    w_est_ = cwnd;
  }
  const double segs = static_cast<double>(a.acked_bytes) / mss;
  // Reno-friendly estimate (§4.3 eq. 4).
  w_est_ += kCubicAlpha * segs / cwnd;
  // Target one RTT ahead (§4.4): W_cubic(t + RTT).
  const double rtt_s = (a.srtt_ps > 0 ? a.srtt_ps : 0) * 1e-12;
  const double t = (now - epoch_ps_) * 1e-12 + rtt_s;
  const double w_cubic = kCubicC * (t - k_s_) * (t - k_s_) * (t - k_s_) + w_max_;
  if (w_cubic < w_est_) {
    cwnd = w_est_;  // Reno-friendly region (§4.3)
  } else {
    // Concave / convex region (§4.4-4.5): grow by (target - cwnd) / cwnd per acked segment,
    // the target capped at 1.5 x cwnd.
    const double target = std::min(w_cubic, 1.5 * cwnd);
    if (target > cwnd) cwnd += (target - cwnd) / cwnd * segs;
  }
  w.cwnd = std::max(w.cwnd, static_cast<int64_t>(cwnd * mss));
}

namespace {
SchemeRegistry<TcpCcFactory>& registry() {  // function-local: see rate_cc.cpp
  static SchemeRegistry<TcpCcFactory> r("TCP congestion-control rule",
                                        {"newreno", "dctcp", "cubic"});
  return r;
}
}  // namespace

void register_tcp_cc(std::string name, TcpCcFactory factory) {
  registry().add(std::move(name), std::move(factory));
}
const TcpCcFactory* find_tcp_cc(std::string_view name) { return registry().find(name); }
std::vector<std::string> registered_tcp_cc_names() { return registry().names(); }

}  // namespace fabricsim::transport
