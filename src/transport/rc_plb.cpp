// PLB on the RDMA transport (transport/config.h PlbConfig; docs/load-balancing.md "PLB"): a
// requester's rounds of acknowledged data, and the repath after enough congested ones.
#include "core/rng.h"
#include "transport/rc.h"

namespace fabricsim::transport {

void RoceTransport::plb_round(uint32_t qp_id, uint32_t newly_acked, bool ece) {
  Qp& q = qps_[qp_id];
  q.round_acked += newly_acked;
  if (ece) q.round_marked += newly_acked;
  if (q.snd_una < q.round_end_psn) return;
  // A round (one window of data) ended: was it congested? (PLB, reference §5.) Either half its
  // packets came back CE-echoed (PLB's DCTCP signal), or a CNP arrived in it: DCQCN's requester
  // hears of marks through CNPs, and paces a colliding QP to 1-2 packets per round of which RED
  // marks a few, so the fraction alone never fires under DCQCN (docs/load-balancing.md "PLB").
  const PlbConfig& plb = cfg_.plb;
  const bool congested =
      q.round_cnps > 0 ||
      (q.round_acked > 0 && q.round_marked >= plb.congested_fraction * q.round_acked);
  q.congested_rounds = congested ? q.congested_rounds + 1 : 0;
  const bool idle = q.snd_nxt == q.snd_una;
  if (q.congested_rounds >= plb.rehash_rounds ||
      (idle && q.congested_rounds >= plb.idle_rehash_rounds)) {
    // Repath: a new UDP source port, hence a new ECMP hash (RoCE's flow label).
    uint64_t h = seed_ ^ (0x9E3779B97F4A7C15ull * (q.path_key + 1)) ^ (++q.repaths * 0xD6E8FEB86659FD93ull);
    q.entropy = static_cast<uint16_t>(0xC000 | (splitmix64(h) & 0x3FFF));
    q.congested_rounds = 0;
    ++ctr(counters_).plb_repaths;
  }
  q.round_end_psn = q.snd_nxt;
  q.round_acked = 0;
  q.round_marked = 0;
  q.round_cnps = 0;
}

}  // namespace fabricsim::transport
