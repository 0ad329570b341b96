// Recursive halving-doubling all-reduce (Thakur, Rabenseifner, Gropp, "Optimization of
// Collective Communication Operations in MPICH", IJHPCA 19(1), 2005, §4.4 Rabenseifner's
// algorithm): log2(n) reduce-scatter steps by recursive halving (step k exchanges half of the
// current range with the partner at distance n/2^(k+1)), then log2(n) all-gather steps by
// recursive doubling in reverse order. Power-of-two rank counts only (the engine refuses
// others); each step starts when the previous step's data from its partner is in.
#include "workload/collective_plan.h"

namespace fabricsim::workload::detail {

void build_halving_doubling(Plan& plan, const CollectiveSpec& spec, const BuildParams& bp) {
  const int n = static_cast<int>(spec.ranks.size());
  int levels = 0;
  while ((1 << levels) < n) ++levels;
  for (int c = 0; c < bp.channels; ++c) {
    plan.channel = static_cast<uint32_t>(c);
    const int64_t data = split_part(spec.size_bytes, bp.channels, c);
    // conn[s][i]: rank i's send at step s (s < levels: halving; s >= levels: doubling).
    std::vector<std::vector<uint32_t>> conn(2 * levels, std::vector<uint32_t>(n));
    std::vector<int64_t> kept(levels);  // bytes rank i keeps after halving step k
    for (int i = 0; i < n; ++i) {
      int64_t lo = 0, hi = data;
      for (int k = 0; k < levels; ++k) {  // keep one half, send the other
        const int dist = n >> (k + 1);
        const int64_t mid = lo + (hi - lo) / 2;
        const bool low_half = (i & dist) == 0;
        const int64_t bytes = low_half ? hi - mid : mid - lo;
        if (low_half)
          hi = mid;
        else
          lo = mid;
        kept[k] = hi - lo;
        conn[k][i] = plan.add_conn(spec.ranks[i], spec.ranks[i ^ dist],
                                   plan.add_stream(make_chunked_stream(bytes, bp.step_data_bytes)),
                                   bp.window);
      }
      // Doubling mirrors halving: the step of level k sends what halving step k kept, and the
      // partner's half rejoins it.
      for (int s = levels; s < 2 * levels; ++s) {
        const int k = 2 * levels - 1 - s;
        conn[s][i] = plan.add_conn(
            spec.ranks[i], spec.ranks[i ^ (n >> (k + 1))],
            plan.add_stream(make_chunked_stream(kept[k], bp.step_data_bytes)), bp.window);
      }
    }
    for (int s = 1; s < 2 * levels; ++s) {
      const int kp = s - 1 < levels ? s - 1 : 2 * levels - 1 - (s - 1);
      const int dist = n >> (kp + 1);
      for (int i = 0; i < n; ++i) plan.gate(conn[s - 1][i ^ dist], conn[s][i]);
    }
  }
}

}  // namespace fabricsim::workload::detail
