// The PLB-against-ECMP permutation shared by tests/validation/plb_test.cpp (one seed: PLB moves
// colliding flows, stays lossless, conserves bytes) and tests/calibration/plb_test.cpp (the tail
// and throughput over several seeds).
//
// 3-tier k=8 fat-tree, 128 NICs, each sends 20 MB to one other (a random single cycle), DCQCN
// and PFC on. Per-flow ECMP leaves some uplinks carrying two or more flows (SPEC §8: a fraction
// (1 - 1/n)^n of n paths stays idle), so those flows run at half rate or less for their whole
// life and set the tail. PLB moves a flow after 12 consecutive congested rounds (at least half
// of a round's packets CE-echoed, or a CNP in the round: docs/load-balancing.md "PLB"); a moved
// flow is likely to land on a less loaded path, so the slowest flow must finish sooner and the
// fabric must carry more.
//
// Switches mark as PLB's deployments do, DCTCP-style: every packet that finds the queue above
// K = 20 KiB (Alizadeh et al., SIGCOMM 2010, K > C x RTT / 7: about 9 KB at 100 Gb/s and a 5 us
// RTT). Under the NVIDIA RoCE defaults (RED from 150 KB to 1.5 MB, DCQCN byte counter 2 MB) no
// round of a colliding flow is half-marked (the queue would have to stay above ~825 KB); since
// issue 22 a CNP makes a round congested too, which is what `polarized` below tests.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/run.h"

namespace fabricsim::plb_scenario {

inline scenario::Scenario permutation(bool plb, uint64_t seed = 1) {
  scenario::Scenario sc;
  sc.seed = seed;
  sc.topology.tiers = 3;
  sc.topology.radix = 8;
  sc.topology.hosts = 128;
  sc.link.rate_bps = 100'000'000'000;
  sc.switch_config.pfc.enabled = true;
  sc.roce.cc = transport::CongestionControl::kDcqcn;
  sc.roce.plb.enabled = plb;
  sc.ecn.kmin_bytes = 20 << 10;  // step marking at K (kmin = kmax, pmax 1)
  sc.ecn.kmax_bytes = 20 << 10;
  sc.ecn.pmax = 1.0;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = 20'000'000;
  return sc;
}

// The polarized permutation of tests/validation/plb_test.cpp (issue 22 item 5): the same k=8
// fat-tree and 128-flow permutation (2 MB each), DCQCN with its default profile and marking
// (nvidia-default: RED from 150 KB to 1.5 MB), PFC, and every switch hashing with the same seed
// (routing.ecmp.seed: same, examples/ecmp-polarization.yaml): an edge switch sends agg j only
// the flows whose hash is j (mod 4) and agg j puts them all on its core uplink j, so 3 of every
// 4 agg->core links stay idle and the flows crossing pods share the fourth. A repath gives a
// flow a new hash, hence another (agg, core) pair: it cannot undo the polarization, but it can
// move a flow off the most crowded of the used links, which set the slowest flow.
inline scenario::Scenario polarized(bool plb, uint64_t seed = 1) {
  scenario::Scenario sc = permutation(plb, seed);
  sc.ecn = {};  // DCQCN's own marking (RED 150 KB - 1.5 MB)
  sc.ecmp.seed_mode = routing::EcmpSeedMode::kSame;
  sc.workload.flow_size_bytes = 2'000'000;
  sc.flow_paths = true;
  return sc;
}

inline int64_t max_fct(const scenario::RunResult& r) {
  int64_t worst = 0;
  for (const scenario::FlowRecord& f : r.flows) worst = std::max(worst, f.fct_ps());
  return worst;
}

}  // namespace fabricsim::plb_scenario
