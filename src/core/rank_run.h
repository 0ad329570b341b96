// The window loop of a partitioned run whose partitions are spread over ranks (processes,
// core/rank_exchange.h; issue 26 item 2): run_windows (core/partition_run.h) with every
// decision of its serial phase taken from all ranks' state, so that every rank takes it alike.
//
// Each rank builds the whole model and runs only the partitions it owns (Partitions::owned),
// on its own threads; every rank runs the serial phase (the workload's events, the time limit)
// in full, so the serial state is the same everywhere. What one rank's partitions do to
// another's crosses at the barrier, in one exchange (RankExchange::exchange) per serial phase:
//   - the mailboxes' events for the other rank's partitions (and for the serial list, to all),
//   - the model's own items (cut-cable frames; drop reports for a sender's NIC),
//   - the sender's status: its partitions' parking, last events, pending items and events run.
// The receiver holds mail and frames per sending partition until the window's join and then
// pushes them in sending-partition order, which is the order one process joins them in: the
// lists, and so the run, are the same as on one process with as many partitions.
// The statuses also bound the partitions' next event from below (each rank's lists and what it
// sent since the last join), which is all most windows' bounds need: one collective per window.
// A bound that needs the exact earliest event (an idle stretch, a serial event near), or one
// chosen after a serial event ran (its posts may push earlier events anywhere), takes one
// all_gather of every rank's earliest owned event; the end test, when every partition has
// parked, one more with their quiet test. The rules (the bound, the end test, parking) are
// run_windows's, applied to the combined state; partition_run.h explains them.
//
// Model (duck-typed) as run_windows's, with join() and crossing() replaced by:
//   int64_t pack_crossing(std::vector<std::vector<char>>& out)  the model's items produced by
//                              the owned partitions, appended to out[rank] for the rank they go
//                              to; returns the earliest time an event their join pushes can have
//   void unpack_crossing(ByteReader&)  one rank's items, held until join_crossing()
//   bool crossing_pending() const      owned partitions' items not yet sent, or items held
//   void join_crossing()               the held items into their partitions (serial phase)
//   void stopped_elsewhere()           another rank's check_in() stopped the run
// A partition's exception ends the run on every rank (its rank reports it in its status);
// an exception in the serial phase ends this rank's run only (the launcher ends the others).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <thread>
#include <vector>

#include "core/partition_run.h"
#include "core/partitions.h"
#include "core/rank_exchange.h"
#include "core/spin_barrier.h"

namespace fabricsim {

// Partition p's rank when `count` partitions are dealt to `ranks` ranks in contiguous runs
// (neighbouring leaves share a rank, so fewer cut cables cross ranks).
inline uint32_t rank_of_partition(uint32_t p, uint32_t count, uint32_t ranks) {
  return static_cast<uint32_t>(static_cast<uint64_t>(p) * ranks / count);
}

template <class Model>
WindowsResult run_windows_ranks(Partitions& parts, Scheduler& sched, Model& model,
                                uint32_t threads, RankExchange& ranks) {
  const uint32_t n = parts.count();
  const uint32_t nranks = ranks.size();
  const uint32_t first = parts.owned_first(), end = parts.owned_end();
  threads = std::max<uint32_t>(1, std::min(threads, end - first));
  std::vector<uint32_t> rank_of(n);
  for (uint32_t p = 0; p < n; ++p) rank_of[p] = rank_of_partition(p, n, nranks);

  enum class Phase { kRun, kExit };
  Phase phase = Phase::kRun;
  bool park_mode = false;
  std::vector<uint8_t> parked(n, 0);
  std::vector<EventKey> last_key(n, EventKey{-1, 0});
  EventKey last_serial{-1, 0};
  std::atomic<bool> abort{false};
  std::exception_ptr serial_error;
  WindowsResult result;
  bool first_window = true;
  int64_t ran_before = -1;
  std::vector<double> busy(n, 0.0);

  auto run_part = [&](uint32_t p, bool allow_park, EventKey bound) {
    Partitions::Part& part = parts.part(p);
    set_current_partition(p);
    bool park = false;
    const auto t0 = std::chrono::steady_clock::now();
    try {
      run_below(
          part.queue, part.now_ps, bound, part.events,
          [&](const Event& ev) {
            last_key[p] = key_of(ev);
            model.handle(ev);
          },
          [&] {
            if (abort.load(std::memory_order_relaxed)) return true;
            if (allow_park && model.quiet(p)) {
              park = true;
              return true;
            }
            return false;
          });
    } catch (...) {
      if (!part.error) part.error = std::current_exception();
      abort.store(true);
    }
    parked[p] = park ? 1 : 0;
    busy[p] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };

  // What a rank tells the others at each barrier (plain data: it travels as bytes).
  struct Status {
    uint8_t abort = 0;
    uint8_t any_parked = 0;
    uint8_t all_parked = 1;
    uint8_t pending = 0;       // mail or model items not yet joined (sent now, or held)
    uint8_t stop = 0;          // check_in() said stop
    uint32_t last_part = 0;    // whose event last_key is (n: none)
    EventKey last_key{-1, 0};  // the latest last event of the owned partitions
    int64_t events = 0;        // events the owned partitions ran
    // No event of the owned partitions' lists is earlier than this, nor of what this rank sent
    // since the last join (which the next join pushes): with the others', a lower bound of the
    // partitions' next event after the join, known without another collective.
    int64_t lower_bound_ps = std::numeric_limits<int64_t>::max();
    int64_t last_ps = -1;  // the last event run on this rank's partitions
  };
  // The earliest time sent since the last join (the held items' on their receivers).
  int64_t sent_since_join_ps = std::numeric_limits<int64_t>::max();
  // Each time a bound is chosen.
  // When a bound needs the partitions' exact earliest event (or the end test's quiet test).
  struct Next {
    uint8_t abort = 0;
    uint8_t quiet = 1;
    uint8_t pending = 0;
    int64_t lower_bound_ps = std::numeric_limits<int64_t>::max();
    EventKey earliest = kNoEventKey;
  };
  std::vector<std::vector<char>> out(nranks), in(nranks);
  std::vector<char> gathered;
  auto gather_next = [&](const Next& mine) {
    ranks.all_gather(&mine, sizeof(Next), gathered);
    Next all;
    all.quiet = 1;
    for (uint32_t r = 0; r < nranks; ++r) {
      Next o;
      std::memcpy(&o, gathered.data() + r * sizeof(Next), sizeof(Next));
      all.abort |= o.abort;
      all.quiet &= o.quiet;
      all.pending |= o.pending;
      all.lower_bound_ps = std::min(all.lower_bound_ps, o.lower_bound_ps);
      all.earliest = std::min(all.earliest, o.earliest);
    }
    return all;
  };
  auto own_last_ps = [&] {
    int64_t t = -1;
    for (uint32_t p = first; p < end; ++p) t = std::max(t, last_key[p].time_ps);
    return t;
  };

  double serial_seconds = 0;
  int64_t windows = 0;
  auto serial_phase = [&]() noexcept {
    const auto t0 = std::chrono::steady_clock::now();
    struct Timed {
      double& total;
      std::chrono::steady_clock::time_point t0;
      ~Timed() {
        total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
    } timed{serial_seconds, t0};
    ++windows;
    struct Serial {
      uint32_t saved = current_partition();
      explicit Serial(uint32_t serial) { set_current_partition(serial); }
      ~Serial() { set_current_partition(saved); }
    } serial_scope{parts.serial()};
    auto finish = [&](WindowsEnd e, int64_t end_ps) {
      result.end = e;
      result.end_ps = end_ps;
      phase = Phase::kExit;
    };
    try {
      // The barrier's exchange: this rank's status, mail and items to every rank.
      Status st;
      st.abort = abort.load() ? 1 : 0;
      st.last_part = n;
      for (uint32_t p = first; p < end; ++p) {
        st.any_parked |= parked[p];
        st.all_parked &= parked[p];
        if (st.last_key < last_key[p]) {
          st.last_key = last_key[p];
          st.last_part = p;
        }
      }
      st.pending = parts.mail_pending() || model.crossing_pending();
      st.events = parts.events();
      // Once per serial phase, as run_windows's once per window; the stop is agreed below and
      // takes effect at the join.
      st.stop = model.check_in() ? 0 : 1;
      st.last_ps = own_last_ps();
      // The status goes first in every block: the items are packed after it, so their earliest
      // time is patched in once known.
      for (uint32_t r = 0; r < nranks; ++r) {
        out[r].clear();
        ByteWriter(out[r]).put(st);
      }
      sent_since_join_ps =
          std::min({sent_since_join_ps, parts.pack_mail(out, [&](uint32_t p) { return rank_of[p]; }),
                    model.pack_crossing(out)});
      st.lower_bound_ps = std::min(parts.partition_time_lower_bound(), sent_since_join_ps);
      for (uint32_t r = 0; r < nranks; ++r) std::memcpy(out[r].data(), &st, sizeof(st));
      ranks.exchange(out, in);
      Status all;
      all.last_part = n;
      all.last_key = last_serial;
      for (uint32_t r = 0; r < nranks; ++r) {
        ByteReader rd(in[r]);
        const auto o = rd.get<Status>();
        parts.unpack_mail(rd);
        model.unpack_crossing(rd);
        all.abort |= o.abort;
        all.any_parked |= o.any_parked;
        all.all_parked &= o.all_parked;
        all.pending |= o.pending;
        all.stop |= o.stop;
        all.events += o.events;
        all.lower_bound_ps = std::min(all.lower_bound_ps, o.lower_bound_ps);
        all.last_ps = std::max(all.last_ps, o.last_ps);
        if (o.last_part < n && all.last_key < o.last_key) {
          all.last_key = o.last_key;
          all.last_part = o.last_part;
        }
      }
      if (all.abort) {
        phase = Phase::kExit;
        return;
      }
      model.settle();
      if (!first_window && park_mode) {
        if (all.all_parked && !all.pending) {
          // As run_windows: every partition but the one whose event was last runs its events
          // before that event; the run ends there if all are then quiet and nothing crosses.
          const EventKey t = all.last_key;
          const uint32_t t_part = all.last_part;
          Next mine;
          for (uint32_t p = first; p < end; ++p) {
            if (p != t_part) run_part(p, false, t);
            set_current_partition(parts.serial());
            mine.quiet &= model.quiet(p) ? 1 : 0;
          }
          mine.abort = abort.load() ? 1 : 0;
          mine.pending = parts.mail_pending() || model.crossing_pending();
          const Next g = gather_next(mine);
          if (g.abort) {
            phase = Phase::kExit;
          } else if (g.quiet && !g.pending) {
            finish(WindowsEnd::kDone, t.time_ps);
          } else {
            phase = Phase::kRun;
          }
          return;
        }
        if (all.any_parked) {
          park_mode = false;
          phase = Phase::kRun;
          return;
        }
      }
      first_window = false;
      parts.join_inboxes();
      model.join_crossing();
      sent_since_join_ps = std::numeric_limits<int64_t>::max();
      if (all.stop) {
        if (!st.stop) model.stopped_elsewhere();
        finish(WindowsEnd::kInterrupted, std::max(sched.now_ps, all.last_ps));
        return;
      }
      const int64_t ran = all.events;
      // The next bound, as run_windows chooses it. The lower bound from the statuses serves
      // until a serial event runs (its posts may push earlier events on any rank); the exact
      // earliest event, and the lower bound after a serial event, take one all_gather.
      bool statuses_hold = true;
      for (;;) {
        const EventKey s = peek_key(sched.queue);
        int64_t lb = all.lower_bound_ps;
        Next g;
        bool gathered = false;
        auto gather = [&] {
          if (gathered) return;
          Next mine;
          mine.lower_bound_ps = parts.partition_time_lower_bound();
          mine.earliest = parts.earliest_partition_key();
          g = gather_next(mine);
          gathered = true;
        };
        if (!statuses_hold) {
          gather();
          lb = g.lower_bound_ps;
        }
        if (parts.bound() != kNoEventKey) lb = std::max(lb, parts.bound().time_ps);
        const bool exact = ran == ran_before || s.time_ps <= lb ||
                           s.time_ps - lb <= parts.lookahead_ps() ||
                           lb == std::numeric_limits<int64_t>::max();
        ran_before = ran;
        if (exact) gather();
        const EventKey e = exact ? g.earliest : EventKey{lb, 0};
        if (s == kNoEventKey && e == kNoEventKey) {
          finish(WindowsEnd::kDrained, std::max(sched.now_ps, all.last_ps));
          return;
        }
        if (s < e) {
          const Event ev = sched.queue.pop();
          sched.now_ps = ev.time_ps;
          last_serial = key_of(ev);
          if (!model.serial(ev)) {
            finish(WindowsEnd::kStopped, ev.time_ps);
            return;
          }
          statuses_hold = false;
          continue;
        }
        parts.set_bound(parts.window_bound(e, s));
        break;
      }
      park_mode = model.serial_quiet();
      phase = Phase::kRun;
    } catch (...) {
      serial_error = std::current_exception();
      abort.store(true);
      phase = Phase::kExit;
    }
  };

  // Spinning only while every thread of the machine's ranks has a core of its own.
  SpinBarrier sync(threads, threads * ranks.local_size());
  auto worker = [&](uint32_t w) {
    for (;;) {
      sync.arrive_and_wait(serial_phase);
      if (phase == Phase::kExit) break;
      const bool allow_park = park_mode;
      const EventKey bound = parts.bound();
      for (uint32_t p = first + w; p < end; p += threads) run_part(p, allow_park, bound);
    }
    set_current_partition(0);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (uint32_t w = 1; w < threads; ++w) pool.emplace_back(worker, w);
  worker(0);
  for (std::thread& t : pool) t.join();
  set_current_partition(0);
  result.windows = windows;
  result.busy_seconds = busy;
  result.serial_seconds = serial_seconds;
  if (serial_error) std::rethrow_exception(serial_error);
  for (uint32_t p = first; p < end; ++p) {
    if (parts.part(p).error) std::rethrow_exception(parts.part(p).error);
  }
  return result;
}

}  // namespace fabricsim
