// The partitioned window loop (core/partition_run.h) against a plain sequential loop, on a
// model built to expose every way partitions could disagree with it: tokens hop between
// stations over links whose delays are above and below the lookahead, stations placed in
// partitions at random, simultaneous arrivals, local timers that only change state (a run that
// went past the sequential run's end would show in the stations' hashes) and serial injections.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/partition_run.h"
#include "core/partitions.h"
#include "core/rng.h"
#include "core/scheduler.h"

namespace fabricsim {
namespace {

struct Station {
  uint64_t hash = 0;
  int64_t arrivals = 0;
  int64_t timers = 0;
  int budget = 0;
};

// Station s has two outgoing links, ports 2s and 2s+1, to next[2s], next[2s+1].
struct TokenModel {
  static constexpr int kStations = 24;
  std::vector<uint32_t> next;
  std::vector<int64_t> delay_ps;  // per port
  std::vector<uint16_t> part_of;  // per station
  std::vector<int64_t> inject_ps;  // serial injections, into station i % kStations
  std::vector<Station> st;
  Scheduler& sched;
  Partitions* parts = nullptr;
  // Tokens on their way into each partition (slot `count` is the sequential run's only one).
  std::vector<int64_t> in_flight;
  struct Crossing {
    int64_t time_ps;
    uint32_t port;
  };
  std::vector<std::vector<Crossing>> out;  // per sending partition: tokens to other partitions
  size_t injected = 0;
  int64_t serial_events = 0;

  TokenModel(Scheduler& s, uint64_t seed, uint32_t partitions) : sched(s) {
    Rng rng(seed, 7);
    st.resize(kStations);
    for (int i = 0; i < kStations; ++i) st[i].budget = 40 + static_cast<int>(rng.uniform() * 40);
    for (int p = 0; p < 2 * kStations; ++p) {
      next.push_back(static_cast<uint32_t>(rng.uniform() * kStations) % kStations);
      // 0.5-3 us: some below the 1 us lookahead (those stay inside one partition).
      delay_ps.push_back(500'000 + static_cast<int64_t>(rng.uniform() * 2'500'000));
    }
    for (int i = 0; i < kStations; ++i) {
      part_of.push_back(static_cast<uint16_t>(static_cast<uint32_t>(rng.uniform() * partitions) %
                                              partitions));
    }
    // A link shorter than the lookahead must not cross: keep it, move its far station home.
    for (int p = 0; p < 2 * kStations; ++p) {
      if (delay_ps[p] < 1'000'000) part_of[next[p]] = part_of[p / 2];
    }
    for (int p = 0; p < 2 * kStations; ++p) {  // re-check after the moves: lengthen what crosses
      if (part_of[next[p]] != part_of[p / 2] && delay_ps[p] < 1'000'000) delay_ps[p] = 1'000'000;
    }
    for (int i = 0; i < 30; ++i) inject_ps.push_back(static_cast<int64_t>(i) * 700'000);
    in_flight.assign(partitions + 1, 0);
    out.resize(partitions + 1);
  }

  Partitions::Tables tables() const {
    Partitions::Tables t;
    for (int p = 0; p < 2 * kStations; ++p) {
      t.port.push_back(part_of[p / 2]);
      t.far_port.push_back(part_of[next[p]]);
    }
    return t;
  }
  uint32_t slot() const { return parts ? current_partition() : 0; }

  void send(uint32_t from_station, int64_t now) {
    Station& x = st[from_station];
    if (x.budget <= 0) return;
    --x.budget;
    const uint32_t port = 2 * from_station + static_cast<uint32_t>(x.arrivals & 1);
    const int64_t at = now + delay_ps[port];
    if (parts != nullptr && part_of[next[port]] != part_of[from_station] &&
        current_partition() != parts->serial()) {
      out[current_partition()].push_back(Crossing{at, port});  // joins at the barrier
      return;
    }
    ++in_flight[parts ? part_of[next[port]] : 0];
    sched.at(at, kLinkArrive, port);
  }
  void handle(const Event& ev) {
    const int64_t now = ev.time_ps;
    if (ev.kind() == kLinkArrive) {
      const uint32_t x = next[ev.target];
      --in_flight[slot()];
      Station& s = st[x];
      s.hash = (s.hash ^ (static_cast<uint64_t>(now) * 0x9E3779B97F4A7C15ull) ^ ev.target) *
               0xBF58476D1CE4E5B9ull;
      ++s.arrivals;
      send(x, now);
      // A timer that only changes state, sometimes at the same instant as arrivals.
      sched.at(now + (s.arrivals % 3) * 250'000, kPortTxDone, 2 * x);
    } else {  // kPortTxDone: a local timer
      Station& s = st[ev.target / 2];
      ++s.timers;
      s.hash = (s.hash + static_cast<uint64_t>(now)) * 0x94D049BB133111EBull;
    }
  }
  bool serial(const Event& ev) {
    ++serial_events;
    const auto station = static_cast<uint32_t>(injected++ % kStations);
    ++st[station].budget;
    send(station, ev.time_ps);
    return true;
  }
  size_t crossing() const {
    size_t n = 0;
    for (const auto& o : out) n += o.size();
    return n;
  }
  size_t join() {
    size_t n = 0;
    for (auto& o : out) {
      for (const Crossing& c : o) {
        ++in_flight[part_of[next[c.port]]];
        sched.at(c.time_ps, kLinkArrive, c.port);
      }
      n += o.size();
      o.clear();
    }
    return n;
  }
  bool quiet(uint32_t p) const { return in_flight[p] == 0; }
  void settle() {}
  bool serial_quiet() const { return injected == inject_ps.size(); }
  bool check_in() { return true; }
  void start() {
    for (int64_t t : inject_ps) sched.at(t, kFlowStart, 0);
  }
};

struct Outcome {
  std::vector<uint64_t> hashes;
  std::vector<int64_t> arrivals, timers;
  int64_t end_ps = 0;
  int64_t events = 0;
};

Outcome sequential(uint64_t seed, uint32_t placement_parts) {
  Scheduler sched;
  TokenModel m(sched, seed, placement_parts);
  m.start();
  Outcome o;
  while (!sched.queue.empty()) {
    const Event ev = sched.queue.pop();
    sched.now_ps = ev.time_ps;
    ++o.events;
    if (ev.kind() == kFlowStart) {
      m.serial(ev);
    } else {
      m.handle(ev);
    }
    if (m.serial_quiet() && m.in_flight[0] == 0) break;  // the packet engine's end test
  }
  o.end_ps = sched.now_ps;
  for (const Station& s : m.st) {
    o.hashes.push_back(s.hash);
    o.arrivals.push_back(s.arrivals);
    o.timers.push_back(s.timers);
  }
  return o;
}

Outcome partitioned(uint64_t seed, uint32_t n, uint32_t threads) {
  Scheduler sched;
  TokenModel m(sched, seed, n);
  m.start();
  Partitions parts(sched, n, m.tables(), 1'000'000);
  m.parts = &parts;
  sched.parts = &parts;
  parts.scatter();
  const WindowsResult r = run_windows(parts, sched, m, threads);
  parts.gather(r.end_ps);
  sched.parts = nullptr;
  EXPECT_EQ(r.end, WindowsEnd::kDone);
  Outcome o;
  o.end_ps = r.end_ps;
  o.events = parts.events() + m.serial_events;
  for (const Station& s : m.st) {
    o.hashes.push_back(s.hash);
    o.arrivals.push_back(s.arrivals);
    o.timers.push_back(s.timers);
  }
  return o;
}

TEST(Partitions, WindowsGiveTheSequentialRunAtAnyCount) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    for (uint32_t n : {1u, 2u, 3u, 4u, 8u}) {
      const Outcome want = sequential(seed, n);  // the same placement, run in one list
      ASSERT_GT(want.events, 500) << "the model must do some work";
      for (uint32_t threads : {1u, 2u, n}) {
        const Outcome got = partitioned(seed, n, threads);
        SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << n << " partitions, "
                                        << threads << " threads");
        EXPECT_EQ(got.end_ps, want.end_ps);
        EXPECT_EQ(got.events, want.events);
        EXPECT_EQ(got.arrivals, want.arrivals);
        EXPECT_EQ(got.timers, want.timers);
        EXPECT_EQ(got.hashes, want.hashes);
      }
    }
  }
}

TEST(Partitions, PeekFindsTheEarliestKeyWithoutMovingAnything) {
  EventQueue q;
  q.push(5'000, kQpTimer, 1, 1);
  q.push(70'000, kPortTxDone, 2, 2);
  q.push(5'000, kPortTxDone, 3, 3);
  const EventKey k = peek_key(q);
  EXPECT_EQ(k.time_ps, 5'000);
  EXPECT_EQ(k.order >> 24, static_cast<uint32_t>(kPortTxDone));
  EXPECT_TRUE(q.next_below(5'001, 0));
  EXPECT_FALSE(q.next_below(5'000, k.order));
  EXPECT_TRUE(q.next_below(5'000, k.order + 1));
  q.push(1'000, kQpTimer, 4, 4);  // still allowed: nothing was redistributed
  EXPECT_EQ(peek_key(q).time_ps, 1'000);
  EXPECT_EQ(q.pop().time_ps, 1'000);
  EXPECT_EQ(q.pop().target, 3u);  // kind 1 before kind 30 at one instant
}

TEST(Partitions, ACrossingBeforeTheBoundIsAModelError) {
  Scheduler sched;
  Partitions::Tables t;
  t.port = {0, 1};
  t.far_port = {1, 0};
  Partitions parts(sched, 2, t, 1'000);
  EXPECT_EQ(parts.route(kLinkArrive, 0), 1u);
  EXPECT_EQ(parts.route(kPortTxDone, 1), 1u);
  EXPECT_EQ(parts.route(kFlowStart, 0), parts.serial());
  EXPECT_THROW(Partitions(sched, 2, Partitions::Tables{{0, 2}, {}, {}, {}}, 1'000),
               std::invalid_argument);
  EXPECT_THROW(Partitions(sched, 2, t, 0), std::invalid_argument);
}

}  // namespace
}  // namespace fabricsim
