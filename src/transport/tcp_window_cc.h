// The TCP transport's congestion-control rules behind one interface (docs/cc.md "TCP"): the
// part of a scheme that differs between NewReno, DCTCP and CUBIC, while the transport keeps
// what they share (slow start, RFC 6675 SACK loss recovery with its RFC 6582 recovery point,
// the RFC 6298 timer). A rule is called:
//   on_ack(w, ack)        every ACK, before the shared growth: it may react to the ECN echo and
//                         return true to end the ACK's window processing (DCTCP's cut)
//   grow(w, ack)          in congestion avoidance (cwnd >= ssthresh, not in recovery)
//   loss_ssthresh(w, ..)  a loss event (fast recovery or the retransmission timeout): the new
//                         ssthresh (the transport then sets cwnd: ssthresh, or one segment)
// Built-in rules are held by value in a std::variant per connection and called through a switch
// (no virtual call per ACK); a rule registered by name (register_tcp_cc, fabric.tcp.cc_scheme)
// is a TcpCcScheme behind a unique_ptr, which only its runs pay for.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fabricsim::transport {

// One connection's window as the rules see it, in TCP payload bytes.
struct TcpWindow {
  int64_t cwnd = 0;
  int64_t ssthresh = 0;
  int64_t acked_accum = 0;  // congestion avoidance byte counter (RFC 3465)
  uint32_t cwr_end = 0;     // no further ECN reduction before this segment is acknowledged
};

// What an ACK tells a rule.
struct TcpAck {
  int64_t acked_bytes = 0;  // newly acknowledged (cumulatively), TCP payload bytes
  bool ece = false;         // it echoes a CE mark
  bool in_recovery = false;
  uint32_t snd_una = 0;     // after this ACK
  uint32_t snd_nxt = 0;
  int64_t srtt_ps = -1;     // RFC 6298 smoothed RTT (-1: no sample yet)
  int64_t now_ps = 0;
  int64_t mss_bytes = 0;
};

// RFC 5681 congestion avoidance: one MSS per cwnd of acknowledged bytes (RFC 3465 §2.1); on a
// loss, ssthresh = max(cwnd / 2, 2 MSS) (Linux tcp_reno_ssthresh). Ignores ECN (its data is
// not ECN-capable: resolve/tcp_setup.cpp).
class TcpNewReno {
 public:
  bool on_ack(TcpWindow&, const TcpAck&) { return false; }
  void grow(TcpWindow& w, const TcpAck& a);
  int64_t loss_ssthresh(const TcpWindow& w, int64_t mss_bytes, int64_t /*now_ps*/) {
    return std::max<int64_t>(w.cwnd / 2, 2 * mss_bytes);
  }
};

// DCTCP (RFC 8257 §3.3): per window of data alpha = (1 - g) alpha + g x marked / acked bytes;
// an echoed mark cuts cwnd x (1 - alpha / 2) (at least 2 MSS) once per window; growth and losses
// as NewReno (dctcp_react_to_loss: cwnd / 2).
class TcpDctcp {
 public:
  TcpDctcp(double g, double initial_alpha) : g_(g), alpha_(initial_alpha) {}
  double alpha() const { return alpha_; }
  bool on_ack(TcpWindow& w, const TcpAck& a);
  void grow(TcpWindow& w, const TcpAck& a) { reno_.grow(w, a); }
  int64_t loss_ssthresh(const TcpWindow& w, int64_t mss_bytes, int64_t now_ps) {
    return reno_.loss_ssthresh(w, mss_bytes, now_ps);
  }

 private:
  TcpNewReno reno_;
  double g_;
  double alpha_;
  int64_t acked_ = 0;
  int64_t marked_ = 0;
  uint32_t window_end_ = 0;
};

// CUBIC (RFC 9438): W_cubic(t) = C (t - K)^3 + W_max with C 0.4, the Reno-friendly estimate with
// alpha_cubic = 3 (1 - beta) / (1 + beta), the target one RTT ahead capped at 1.5 cwnd; on a
// loss W_max (with fast convergence) and ssthresh = beta cwnd, beta 0.7.
class TcpCubic {
 public:
  bool on_ack(TcpWindow&, const TcpAck&) { return false; }
  void grow(TcpWindow& w, const TcpAck& a);
  int64_t loss_ssthresh(const TcpWindow& w, int64_t mss_bytes, int64_t now_ps);

 private:
  double w_max_ = 0;         // segments: the window before the last reduction
  double k_s_ = 0;           // seconds to grow back to it
  double w_est_ = 0;         // Reno-friendly estimate (§4.3)
  int64_t epoch_ps_ = -1;    // start of the current congestion-avoidance epoch
};

// A rule added through the interface: grow() and loss_ssthresh() must be given; on_ack()
// defaults to ignoring ECN.
class TcpCcScheme {
 public:
  virtual ~TcpCcScheme() = default;
  virtual bool on_ack(TcpWindow& /*w*/, const TcpAck& /*a*/) { return false; }
  virtual void grow(TcpWindow& w, const TcpAck& a) = 0;
  virtual int64_t loss_ssthresh(const TcpWindow& w, int64_t mss_bytes, int64_t now_ps) = 0;
};
using TcpCcFactory = std::function<std::unique_ptr<TcpCcScheme>(uint32_t connection)>;
// Registers a rule under `name`. Throws std::invalid_argument if the name is empty, a built-in's
// ("newreno", "dctcp", "cubic") or registered already.
void register_tcp_cc(std::string name, TcpCcFactory factory);
const TcpCcFactory* find_tcp_cc(std::string_view name);  // nullptr: none of that name
std::vector<std::string> registered_tcp_cc_names();      // sorted

// One connection's rule.
class TcpWindowCc {
  template <class F>
  decltype(auto) visit(F&& f) {
    switch (v_.index()) {
      case 0: return f(*std::get_if<0>(&v_));
      case 1: return f(*std::get_if<1>(&v_));
      case 2: return f(*std::get_if<2>(&v_));
      default: return f(**std::get_if<3>(&v_));
    }
  }

 public:
  TcpWindowCc() : v_(TcpNewReno{}) {}
  explicit TcpWindowCc(TcpNewReno r) : v_(r) {}
  explicit TcpWindowCc(TcpDctcp r) : v_(r) {}
  explicit TcpWindowCc(TcpCubic r) : v_(r) {}
  explicit TcpWindowCc(std::unique_ptr<TcpCcScheme> s) : v_(std::move(s)) {}
  bool on_ack(TcpWindow& w, const TcpAck& a) {
    return visit([&](auto& r) { return r.on_ack(w, a); });
  }
  void grow(TcpWindow& w, const TcpAck& a) {
    visit([&](auto& r) { r.grow(w, a); });
  }
  int64_t loss_ssthresh(const TcpWindow& w, int64_t mss_bytes, int64_t now_ps) {
    return visit([&](auto& r) { return r.loss_ssthresh(w, mss_bytes, now_ps); });
  }
  const TcpDctcp* dctcp() const { return std::get_if<1>(&v_); }

 private:
  std::variant<TcpNewReno, TcpDctcp, TcpCubic, std::unique_ptr<TcpCcScheme>> v_;
};

}  // namespace fabricsim::transport
