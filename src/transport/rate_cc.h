// The congestion-control interface of the RDMA transport (RoCEv2 and InfiniBand RC/UC/UD;
// docs/cc.md walks through adding a scheme).
//
// A scheme is the sender side of one connection (QP). It receives signals and sets a rate:
//   on_cnp(now)                       a congestion notification for the QP arrived: a RoCEv2 CNP
//                                     (DCQCN's notification point) or an InfiniBand BECN
//   on_ack(acked_bytes, rtt, ece, now) the QP's snd_una advanced by acked_bytes; rtt_ps is one
//                                     round-trip sample (the time since the oldest newly
//                                     acknowledged timed PSN was first sent, -1 when the ACK
//                                     carries none); ece: it acknowledges a CE-marked packet
//   on_bytes_sent(bytes, now)         the QP put a frame of `bytes` on the wire
//   on_timer(now)                     next_timer_ps() is due
// and the transport reads rate_bps() after every call: the QP's next packet starts one
// serialization time of the last frame at that rate after the last one started (pacing).
//
// Built-in schemes are concrete classes called directly (a switch on the kind, no virtual call
// per packet): DCQCN (transport/dcqcn.h), InfiniBand CC (transport/ib_cc.h), TIMELY
// (transport/timely.h), HPCC (transport/hpcc.h, which also sets a window) and Swift
// (transport/swift.h, a window, and below one packet a rate), and DCTCP as the HPCC authors'
// simulator runs it on RDMA (transport/dctcp_rdma.h, a rate and a window). A scheme
// written outside src/ derives from RateCcScheme, registers a factory under a name
// (register_rate_cc) and is selected with fabric.roce.cc_scheme; its calls go through the
// vtable, which only its runs pay for.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "transport/dcqcn.h"
#include "transport/dctcp_rdma.h"
#include "transport/hpcc.h"
#include "transport/ib_cc.h"
#include "transport/swift.h"
#include "transport/timely.h"
#include "transport/transport.h"  // kNoTimer

namespace fabricsim::transport {

// A scheme added through the interface. Every signal has a do-nothing default; rate_bps() is
// the one thing a scheme must say. Calls for one QP come in non-decreasing now_ps.
class RateCcScheme {
 public:
  virtual ~RateCcScheme() = default;
  virtual int64_t rate_bps() const = 0;
  virtual void on_cnp(int64_t /*now_ps*/) {}
  virtual void on_ack(int64_t /*acked_bytes*/, int64_t /*rtt_ps*/, bool /*ece*/,
                      int64_t /*now_ps*/) {}
  virtual void on_bytes_sent(int64_t /*bytes*/, int64_t /*now_ps*/) {}
  virtual int64_t next_timer_ps() const { return kNoTimer; }
  virtual void on_timer(int64_t /*now_ps*/) {}
};

// What a factory knows of the QP it makes a scheme for.
struct RateCcContext {
  uint32_t qp = 0;
  uint32_t src_nic = 0;
  uint32_t dst_nic = 0;
  int64_t line_rate_bps = 0;  // the source NIC port's rate
  int mtu_bytes = 0;
};
using RateCcFactory = std::function<std::unique_ptr<RateCcScheme>(const RateCcContext&)>;

// Registers a scheme under `name`. Throws std::invalid_argument if the name is empty, is a
// built-in's ("none", "dcqcn", "ib", "timely", "hpcc", "swift", "dctcp") or is registered
// already.
void register_rate_cc(std::string name, RateCcFactory factory);
// nullptr when no scheme of that name is registered.
const RateCcFactory* find_rate_cc(std::string_view name);
std::vector<std::string> registered_rate_cc_names();  // sorted

// One QP's scheme: a built-in held by value, or a registered one.
class RateCc {
  // The kinds, in the variant's order. visit calls f on the scheme held: a switch on the kind,
  // no vtable for the built-ins; static so that one body serves const and non-const callers.
  static constexpr size_t kDcqcn = 0, kIb = 1, kTimely = 2, kHpcc = 3, kSwift = 4, kDctcp = 5,
                          kPlugin = 6;
  template <class Self, class F>
  static decltype(auto) visit(Self& self, F&& f) {
    switch (self.v_.index()) {
      case kDcqcn:
        return f(*std::get_if<kDcqcn>(&self.v_));
      case kIb:
        return f(*std::get_if<kIb>(&self.v_));
      case kTimely:
        return f(*std::get_if<kTimely>(&self.v_));
      case kHpcc:
        return f(*std::get_if<kHpcc>(&self.v_));
      case kSwift:
        return f(*std::get_if<kSwift>(&self.v_));
      case kDctcp:
        return f(*std::get_if<kDctcp>(&self.v_));
      default:
        return f(**std::get_if<kPlugin>(&self.v_));
    }
  }

 public:
  explicit RateCc(DcqcnRp rp) : v_(std::move(rp)) {}
  explicit RateCc(IbCcRp rp) : v_(std::move(rp)) {}
  explicit RateCc(TimelyRp rp) : v_(std::move(rp)) {}
  explicit RateCc(HpccCc cc) : v_(std::move(cc)) {}
  explicit RateCc(SwiftCc cc) : v_(std::move(cc)) {}
  explicit RateCc(DctcpRdma cc) : v_(std::move(cc)) {}
  explicit RateCc(std::unique_ptr<RateCcScheme> s) : v_(std::move(s)) {}

  int64_t rate_bps() const {
    return visit(*this, [](const auto& s) { return s.rate_bps(); });
  }
  int64_t next_timer_ps() const {
    return visit(*this, [](const auto& s) { return s.next_timer_ps(); });
  }
  void on_cnp(int64_t now_ps) {
    visit(*this, [&](auto& s) { s.on_cnp(now_ps); });
  }
  void on_bytes_sent(int64_t bytes, int64_t now_ps) {
    visit(*this, [&](auto& s) { s.on_bytes_sent(bytes, now_ps); });
  }
  void on_timer(int64_t now_ps) {
    visit(*this, [&](auto& s) { s.on_timer(now_ps); });
  }
  // TIMELY and registered schemes listen to ACKs; DCQCN and IB CC react to notifications alone,
  // so the transport skips the call (and the RTT sampling) for them.
  void on_ack(int64_t acked_bytes, int64_t rtt_ps, bool ece, int64_t now_ps) {
    if (auto* t = std::get_if<kTimely>(&v_)) {
      t->on_ack(acked_bytes, rtt_ps, ece, now_ps);
    } else if (auto* s = std::get_if<kPlugin>(&v_)) {
      (*s)->on_ack(acked_bytes, rtt_ps, ece, now_ps);
    }
  }
  // HPCC reads its INT records, Swift its per-ACK delay and DCTCP the ECN echo against the
  // QP's PSNs on the transport's own ACK path (rc_hpcc.cpp, rc_swift.cpp, rc_dctcp.cpp) instead.
  bool wants_acks() const { return v_.index() == kTimely || v_.index() == kPlugin; }
  // The most bytes in flight (sent, unacknowledged) the QP may have; 0 = no window (rate-only
  // schemes: DCQCN, IB CC, TIMELY, registered ones). A test of the kind, no call, for those.
  int64_t window_bytes() const {
    if (const HpccCc* h = std::get_if<kHpcc>(&v_)) return h->window_bytes();
    if (const SwiftCc* w = std::get_if<kSwift>(&v_)) return w->window_bytes();
    if (const DctcpRdma* d = std::get_if<kDctcp>(&v_)) return d->window_bytes();
    return 0;
  }

  const DcqcnRp* dcqcn() const { return std::get_if<kDcqcn>(&v_); }
  const IbCcRp* ib() const { return std::get_if<kIb>(&v_); }
  const TimelyRp* timely() const { return std::get_if<kTimely>(&v_); }
  const HpccCc* hpcc() const { return std::get_if<kHpcc>(&v_); }
  HpccCc* hpcc() { return std::get_if<kHpcc>(&v_); }
  const SwiftCc* swift() const { return std::get_if<kSwift>(&v_); }
  SwiftCc* swift() { return std::get_if<kSwift>(&v_); }
  DctcpRdma* dctcp() { return std::get_if<kDctcp>(&v_); }
  const DctcpRdma* dctcp() const { return std::get_if<kDctcp>(&v_); }

 private:
  std::variant<DcqcnRp, IbCcRp, TimelyRp, HpccCc, SwiftCc, DctcpRdma,
               std::unique_ptr<RateCcScheme>>
      v_;
};

}  // namespace fabricsim::transport
