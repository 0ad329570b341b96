// UET's sender congestion control behind one interface (docs/cc.md "UET's window"): what holds a
// PDC's bytes in flight. Built in: NSCC (transport/uet_nscc.h, fabric.uet.nscc) and the fixed
// window of maxwnd that htsim uses without it; a rule registered by name (register_uet_cc,
// fabric.uet.cc_scheme) replaces NSCC. The signals are NSCC's:
//   on_ack(now, acked, rtt, ecn, in_flight)         bytes newly acknowledged, with the ACK's RTT
//                                                   sample (-1: none) and ECN echo; in_flight
//                                                   after removing them
//   on_nack(now, bytes, last_hop, in_flight, rtt)   a trimmed packet of `bytes` was NACKed
//                                                   (last_hop: trimmed at the last switch)
//   on_timeout(bytes)                               a retransmission timeout
// and the transport reads cwnd_bytes() before each send (wire bytes in flight it allows).
// RCCC's receiver credit (transport/uet_rccc.h) is a second gate beside this window, not a rule.
// Built-ins are held per PDC in a std::variant and called through a switch; a registered rule
// goes through its vtable, which only its runs pay for.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "transport/uet_nscc.h"

namespace fabricsim::transport {

class UetCcScheme {
 public:
  virtual ~UetCcScheme() = default;
  virtual int64_t cwnd_bytes() const = 0;
  virtual void on_ack(int64_t /*now_ps*/, int64_t /*acked_bytes*/, int64_t /*rtt_ps*/,
                      bool /*ecn*/, int64_t /*in_flight_bytes*/) {}
  virtual void on_nack(int64_t /*now_ps*/, int64_t /*bytes*/, bool /*last_hop*/,
                       int64_t /*in_flight_bytes*/, int64_t /*rtt_ps*/) {}
  virtual void on_timeout(int64_t /*bytes*/) {}
};

// What a factory knows of the PDC it makes a rule for.
struct UetCcContext {
  uint32_t pdc = 0;
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  int64_t line_rate_bps = 0;   // the NICs' link rate
  int64_t network_rtt_ps = 0;  // the fabric's diameter RTT (NSCC's reference)
  int64_t max_wnd_bytes = 0;   // maxwnd: 1.5 x BDP (what the fixed window holds)
  int mtu_frame_bytes = 0;     // a full data packet on the wire
};
using UetCcFactory = std::function<std::unique_ptr<UetCcScheme>(const UetCcContext&)>;
// Throws std::invalid_argument if the name is empty, a built-in's ("nscc", "fixed") or
// registered already.
void register_uet_cc(std::string name, UetCcFactory factory);
const UetCcFactory* find_uet_cc(std::string_view name);  // nullptr: none of that name
std::vector<std::string> registered_uet_cc_names();      // sorted

// htsim without NSCC: the window is maxwnd for the connection's life.
struct UetFixedWindow {
  int64_t bytes = 0;
  int64_t cwnd_bytes() const { return bytes; }
  void on_ack(int64_t, int64_t, int64_t, bool, int64_t) {}
  void on_nack(int64_t, int64_t, bool, int64_t, int64_t) {}
  void on_timeout(int64_t) {}
};

class UetWindowCc {
  template <class Self, class F>
  static decltype(auto) visit(Self& self, F&& f) {
    switch (self.v_.index()) {
      case 0: return f(*std::get_if<0>(&self.v_));
      case 1: return f(**std::get_if<1>(&self.v_));
      default: return f(**std::get_if<2>(&self.v_));
    }
  }

 public:
  explicit UetWindowCc(UetFixedWindow w) : v_(w) {}
  // NSCC's state is a few hundred bytes: kept on the heap, as before the interface, so a
  // fixed-window PDC stays small.
  explicit UetWindowCc(std::unique_ptr<Nscc> n) : v_(std::move(n)) {}
  explicit UetWindowCc(std::unique_ptr<UetCcScheme> s) : v_(std::move(s)) {}

  int64_t cwnd_bytes() const {
    return visit(*this, [](const auto& r) { return r.cwnd_bytes(); });
  }
  void on_ack(int64_t now_ps, int64_t acked_bytes, int64_t rtt_ps, bool ecn,
              int64_t in_flight_bytes) {
    visit(*this, [&](auto& r) { r.on_ack(now_ps, acked_bytes, rtt_ps, ecn, in_flight_bytes); });
  }
  void on_nack(int64_t now_ps, int64_t bytes, bool last_hop, int64_t in_flight_bytes,
               int64_t rtt_ps) {
    visit(*this, [&](auto& r) { r.on_nack(now_ps, bytes, last_hop, in_flight_bytes, rtt_ps); });
  }
  void on_timeout(int64_t bytes) {
    visit(*this, [&](auto& r) { r.on_timeout(bytes); });
  }
  const Nscc* nscc() const {
    const auto* n = std::get_if<1>(&v_);
    return n == nullptr ? nullptr : n->get();
  }

 private:
  std::variant<UetFixedWindow, std::unique_ptr<Nscc>, std::unique_ptr<UetCcScheme>> v_;
};

}  // namespace fabricsim::transport
