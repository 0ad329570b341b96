// DCTCP on the RDMA transport (transport/dctcp_rdma.h; docs/cc.md "DCTCP"): every ACK's ECN echo,
// against the QP's PSNs, moves the rate and with it the window.
#include "transport/rc.h"

namespace fabricsim::transport {

void RoceTransport::on_dctcp_ack(uint32_t qp_id, bool ece) {
  const Qp& q = qps_[qp_id];
  rps_[qp_id].dctcp()->on_ack(q.snd_una, q.snd_nxt, ece);
  repace(qp_id);
  activate(qp_id);  // the window may have room again (activate ignores an active QP)
}

}  // namespace fabricsim::transport
