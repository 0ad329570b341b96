// Micro-benchmarks of the per-hop hot paths: the event list, the ECMP hash and a whole
// packet-hop through a switch (arrival, forwarding lookup, enqueue, transmit).
#include <benchmark/benchmark.h>

#include "core/event_queue.h"
#include "core/rng.h"
#include "net/hash.h"
#include "engine/packet/simulation.h"

namespace fabricsim {
namespace {

// Steady state of a queue holding `n` events: pop the earliest, push one a random delay later.
void BM_EventQueueHold(benchmark::State& state) {
  EventQueue q;
  Rng rng(1, 1);
  const int64_t n = state.range(0);
  for (int64_t i = 0; i < n; ++i) q.push(static_cast<int64_t>(rng.below(1'000'000)), 0, 0, 0);
  for (auto _ : state) {
    const Event e = q.pop();
    q.push(e.time_ps + static_cast<int64_t>(rng.below(1'000'000)), 0, e.target, e.owner());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHold)->Arg(1 << 10)->Arg(1 << 14)->Arg(1 << 17);

void BM_Crc32Tuple(benchmark::State& state) {
  net::FiveTuple t{0x0A000001, 0x0A000002, 0xC000, 4791, 17};
  for (auto _ : state) {
    ++t.src_port;
    benchmark::DoNotOptimize(net::ecmp_hash(net::EcmpHash::kCrc32, t, 0x12345678));
  }
}
BENCHMARK(BM_Crc32Tuple);

// A whole small scenario per iteration; items = data packet-hops.
void BM_PermutationK4(benchmark::State& state) {
  scenario::Scenario sc;
  sc.topology.tiers = 3;
  sc.topology.radix = 4;
  sc.topology.hosts = 16;
  sc.link.rate_bps = 100'000'000'000;
  sc.switch_config.buffer_bytes = 1ll << 30;
  sc.workload.kind = workload::WorkloadKind::kPattern;
  sc.workload.pattern = workload::PatternKind::kPermutation;
  sc.workload.flow_size_bytes = 1'000'000;
  int64_t hops = 0;
  for (auto _ : state) {
    scenario::Simulation sim(sc);
    sim.start_workload();
    sim.run();
    hops += sim.network().counters().data_packet_hops;
  }
  state.SetItemsProcessed(hops);
}
BENCHMARK(BM_PermutationK4)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fabricsim
