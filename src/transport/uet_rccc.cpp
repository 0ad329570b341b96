// RCCC (transport/uet_rccc.h): the receiver's pull pacer and the sender's credit.
#include <algorithm>

#include "core/time.h"
#include "transport/uet.h"

namespace fabricsim::transport {

using net::Packet;

void UetTransport::note_target(uint32_t id, int64_t target) {
  UetPdc& q = pdcs_[id];
  UetRx& r = q.rx;
  r.pull_target = std::max(r.pull_target, target);
  if (r.pull_target <= r.granted || r.in_pacer) return;
  r.in_pacer = true;
  UetPacer& pc = pacers_[q.dst_nic];
  pc.waiting.push_back(id);
  if (!pc.scheduled) {
    pc.scheduled = true;
    sched_.at(std::max(sched_.now(), pc.next_ps), kCcTimer, q.dst_nic);
  }
}

void UetTransport::on_pacer(uint32_t nic) {
  UetPacer& pc = pacers_[nic];
  pc.scheduled = false;
  while (!pc.waiting.empty()) {
    const uint32_t id = pc.waiting.pop_front();
    UetRx& r = pdcs_[id].rx;
    r.in_pacer = false;
    const int64_t need = r.pull_target - r.granted;
    if (need <= 0) continue;
    // One pull per turn, round-robin, capped at what the sender asked for (htsim
    // UecPullPacer::doNextEvent).
    const int64_t grant = std::min(need, kRcccCreditPerPullBytes);
    r.granted += grant;
    ++ctr(counters_).credits_sent;
    send_control(nic, pdcs_[id].src_nic, id, kCtlCredit, static_cast<uint32_t>(grant));
    if (r.granted < r.pull_target) {
      r.in_pacer = true;
      pc.waiting.push_back(id);
    }
    // The pacer runs at 0.99 x line rate: the next grant after this one's bytes at that rate.
    const int64_t rate = net_.port(net_.nic_port(nic)).rate_bps;
    pc.next_ps = sched_.now() + serialization_ps(grant * 100, rate * kRcccPacerRatePercent);
    if (!pc.waiting.empty()) {
      pc.scheduled = true;
      sched_.at(pc.next_ps, kCcTimer, nic);
    }
    return;
  }
}

void UetTransport::on_credit(const Packet& p) {
  UetPdc& q = pdcs_[p.qp];
  if (p.msg == kCtlCreditReq) {
    // The sender's RTS at the receiver: it asks for credit for what it must resend. The
    // receiver forgets grants the sender never saw (a lost CREDIT) and queues it again.
    UetRx& r = q.rx;
    r.granted = std::min(r.granted, q.credit.granted_seen);
    note_target(p.qp, pull_target(q, p.qp));
    return;
  }
  stop_speculating(q);
  q.credit.credit_bytes += p.psn;
  q.credit.granted_seen += p.psn;
  activate(p.qp);
}

}  // namespace fabricsim::transport
