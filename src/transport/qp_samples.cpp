// Transport::sample_qps for the three transports (engine/packet/telemetry.h reads it once per
// telemetry sample, never per packet): each connection's congestion-control state as it stands.
//   RoCE/IB QP with DCQCN: the reaction point's current rate Rc (transport/dcqcn.h); without
//     congestion control a QP sends at line rate with no limiter: no rate, no window.
//   UET PDC: NSCC's cwnd in wire bytes (transport/uet_nscc.h), or the fixed maxwnd when NSCC is
//     off ("fixed").
//   TCP/iWARP connection: cwnd in TCP payload bytes (transport/tcp.h TcpConn::cwnd).
#include "transport/rc.h"
#include "transport/tcp.h"
#include "transport/uet.h"

namespace fabricsim::transport {

namespace {

// Payload sent over a connection's messages (retransmissions included).
template <typename Ids, typename Messages>
int64_t sent_over(const Ids& ids, const Messages& msgs) {
  int64_t sum = 0;
  for (const uint32_t id : ids) sum += msgs[id].sent_bytes;
  return sum;
}

}  // namespace

void RoceTransport::sample_qps(std::vector<QpSample>& out, bool with_bytes) const {
  const bool paced = cc_enabled();
  const char* cc = cfg_.cc == CongestionControl::kDcqcn  ? "dcqcn"
                   : cfg_.cc == CongestionControl::kIbCc ? "ib"
                   : cfg_.cc == CongestionControl::kTimely ? "timely"
                   : cfg_.cc == CongestionControl::kHpcc ? "hpcc"
                   : cfg_.cc == CongestionControl::kSwift ? "swift"
                   : cfg_.cc == CongestionControl::kDctcp ? "dctcp"
                                                         : cfg_.cc_scheme.c_str();
  for (uint32_t i = 0; i < qps_.size(); ++i) {
    const Qp& q = qps_[i];
    QpSample s;
    s.qp = i;
    s.src_nic = q.src_nic;
    s.dst_nic = q.dst_nic;
    if (paced && i < rps_.size()) {
      s.cc = cc;
      s.rate_bps = rps_[i].rate_bps();
      // HPCC's, Swift's and DCTCP's window (the others have none: -1, written as empty).
      if (const int64_t w = rps_[i].window_bytes(); w > 0) s.window_bytes = w;
    }
    // Its retired messages' bytes, then the live ones' (issue 24 item 1).
    if (with_bytes) s.sent_bytes = q.retired_sent_bytes + sent_over(q.msgs, msgs_);
    out.push_back(s);
  }
}

void UetTransport::sample_qps(std::vector<QpSample>& out, bool with_bytes) const {
  for (uint32_t i = 0; i < pdcs_.size(); ++i) {
    const UetPdc& q = pdcs_[i];
    QpSample s;
    s.qp = i;
    s.src_nic = q.src_nic;
    s.dst_nic = q.dst_nic;
    s.cc = !cfg_.cc_scheme.empty() ? cfg_.cc_scheme.c_str() : cfg_.nscc ? "nscc" : "fixed";
    s.window_bytes = cwnd_bytes(i);
    if (with_bytes) s.sent_bytes = q.retired_sent_bytes + sent_over(q.msgs, msgs_);
    out.push_back(s);
  }
}

void TcpTransport::sample_qps(std::vector<QpSample>& out, bool with_bytes) const {
  static constexpr const char* kCc[] = {"newreno", "dctcp", "cubic"};  // TcpCc order
  for (uint32_t i = 0; i < conns_.size(); ++i) {
    const TcpConn& c = conns_[i];
    QpSample s;
    s.qp = i;
    s.src_nic = c.src_nic;
    s.dst_nic = c.dst_nic;
    s.cc = cfg_.cc == TcpCc::kScheme ? cfg_.cc_scheme.c_str() : kCc[static_cast<int>(cfg_.cc)];
    s.window_bytes = c.win.cwnd;
    if (with_bytes) s.sent_bytes = c.retired_sent_bytes + sent_over(c.msgs, msgs_);
    out.push_back(s);
  }
}

}  // namespace fabricsim::transport
