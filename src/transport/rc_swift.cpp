// Swift on the RDMA transport (transport/swift.h; docs/cc.md "Swift"): the QP's scheme with its
// path's hop count, the delay sample of every ACK, and the losses that cut the window.
#include <stdexcept>

#include "core/error.h"
#include "transport/rc.h"

namespace fabricsim::transport {

void RoceTransport::enable_swift() {
  if (ib()) throw InputError("fabric.roce.cc", "Swift runs on RoCE (Ethernet), not InfiniBand");
  validate_swift_params(cfg_.swift_params);
}

RateCc RoceTransport::make_swift(uint32_t src_nic, uint32_t dst_nic, int64_t line_rate_bps) const {
  if (!path_hops_) throw std::logic_error("Swift needs the paths' hop counts (set_path_hops)");
  // Pacing below one packet spaces full data frames as the wire carries them.
  const int64_t wire_mtu_bytes =
      data_frame_bytes(cfg_, static_cast<uint32_t>(cfg_.mtu_bytes), false, false) +
      wire_only_bytes(cfg_);
  return RateCc(SwiftCc(cfg_.swift_params, path_hops_(src_nic, dst_nic), line_rate_bps,
                        cfg_.mtu_bytes, wire_mtu_bytes));
}

void RoceTransport::on_swift_ack(uint32_t qp_id, uint32_t psn, uint32_t acked_pkts) {
  rps_[qp_id].swift()->on_ack(psn, acked_pkts, sched_.now());
  repace(qp_id);
  activate(qp_id);  // the window may have room again (activate ignores an active QP)
}

void RoceTransport::on_swift_loss(uint32_t qp_id, bool timeout) {
  SwiftCc& w = *rps_[qp_id].swift();
  if (timeout) {
    w.on_timeout(sched_.now());
  } else {
    w.on_fast_recovery(sched_.now());
  }
  repace(qp_id);
}

}  // namespace fabricsim::transport
