#include "workload/ping_pong.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "core/scheduler.h"
#include "transport/transport.h"

namespace fabricsim::workload {

namespace {

// The message tag: pair index in the high 32 bits, leg (0 = ping A -> B, 1 = pong B -> A) in
// the lowest bit.
constexpr uint64_t tag_of(uint32_t pair, uint32_t leg) {
  return (static_cast<uint64_t>(pair) << 32) | leg;
}

// Nearest rank: the value at ceil(p x n) in the sorted list (1-based), p in (0, 1].
double nearest_rank(const std::vector<int64_t>& sorted, double p) {
  const size_t n = sorted.size();
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(n)));
  rank = std::clamp<size_t>(rank, 1, n);
  return static_cast<double>(sorted[rank - 1]);
}

}  // namespace

void check_ping_pong(const PingPongSpec& spec, int num_nics) {
  const std::vector<int>& p = spec.pairs;
  if (p.empty() || p.size() % 2 != 0) {
    throw InputError("workload.ping_pong.pairs",
                     "needs NIC indices in pairs [a0, b0, a1, b1, ...] (an even count >= 2)");
  }
  for (size_t i = 0; i < p.size(); i += 2) {
    if (p[i] < 0 || p[i + 1] < 0 || p[i] >= num_nics || p[i + 1] >= num_nics ||
        p[i] == p[i + 1]) {
      throw InputError("workload.ping_pong.pairs",
                       "each pair needs two different NIC indices below " +
                           std::to_string(num_nics) + " (pair " + std::to_string(i / 2) + ": " +
                           std::to_string(p[i]) + ", " + std::to_string(p[i + 1]) + ")");
    }
  }
  if (spec.size_bytes < 1) throw InputError("workload.ping_pong.size", "must be > 0");
  if (spec.iterations < 1) throw InputError("workload.ping_pong.iterations", "must be >= 1");
  if (spec.warmup < 0) throw InputError("workload.ping_pong.warmup", "must be >= 0");
}

PingPong::PingPong(const PingPongSpec& spec, transport::Transport& transport, Scheduler& sched)
    : spec_(spec), transport_(transport), sched_(sched) {
  for (size_t i = 0; i + 1 < spec_.pairs.size(); i += 2) {
    Pair p;
    p.a = static_cast<uint32_t>(spec_.pairs[i]);
    p.b = static_cast<uint32_t>(spec_.pairs[i + 1]);
    p.rtt_ps.reserve(static_cast<size_t>(spec_.iterations));
    pairs_.push_back(std::move(p));
  }
}

uint64_t PingPong::total_messages() const {
  return 2ull * pairs_.size() *
         (static_cast<uint64_t>(spec_.iterations) + static_cast<uint64_t>(spec_.warmup));
}

void PingPong::start() {
  for (uint32_t i = 0; i < pairs_.size(); ++i) post_ping(i);
}

void PingPong::post_ping(uint32_t pair) {
  Pair& p = pairs_[pair];
  ++p.round;
  p.ping_post_ps = sched_.now();
  transport_.post(p.a, p.b, spec_.size_bytes, tag_of(pair, 0));
}

void PingPong::on_delivered(uint32_t msg) {
  const transport::MessageRecord& m = transport_.message(msg);
  const uint32_t pair = static_cast<uint32_t>(m.tag >> 32);
  Pair& p = pairs_[pair];
  if ((m.tag & 1) == 0) {
    // B's application has seen the ping: it answers at once (perftest's responder posts its
    // write as soon as the polled byte changes).
    transport_.post(p.b, p.a, spec_.size_bytes, tag_of(pair, 1));
    return;
  }
  if (p.round > spec_.warmup) p.rtt_ps.push_back(sched_.now() - p.ping_post_ps);
  if (static_cast<int64_t>(p.round) < static_cast<int64_t>(spec_.iterations) + spec_.warmup) {
    post_ping(pair);
  } else {
    ++pairs_done_;
  }
}

PingPongStats summarize_round_trips(std::vector<int64_t> rtt_ps) {
  PingPongStats s;
  s.iterations = static_cast<int>(rtt_ps.size());
  s.rtt_ps = rtt_ps;
  if (rtt_ps.empty()) return s;
  std::vector<int64_t>& sorted = rtt_ps;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (int64_t v : sorted) sum += static_cast<double>(v);
  const double mean_rtt = sum / static_cast<double>(sorted.size());
  s.one_way_min_ps = static_cast<double>(sorted.front()) / 2;
  s.one_way_max_ps = static_cast<double>(sorted.back()) / 2;
  // perftest's get_median: the middle value, or the mean of the two middle values.
  const size_t n = sorted.size();
  const double median = n % 2 ? static_cast<double>(sorted[n / 2])
                              : 0.5 * static_cast<double>(sorted[n / 2 - 1] + sorted[n / 2]);
  s.one_way_typical_ps = median / 2;
  s.one_way_p99_ps = nearest_rank(sorted, 0.99) / 2;
  s.one_way_p999_ps = nearest_rank(sorted, 0.999) / 2;
  s.one_way_avg_ps = mean_rtt / 2;
  s.transactions_per_s = mean_rtt > 0 ? 1e12 / mean_rtt : 0;
  return s;
}

std::vector<PingPongStats> PingPong::stats() const {
  std::vector<PingPongStats> out;
  for (const Pair& p : pairs_) {
    PingPongStats s = summarize_round_trips(p.rtt_ps);
    s.a = static_cast<int>(p.a);
    s.b = static_cast<int>(p.b);
    s.size_bytes = spec_.size_bytes;
    s.warmup = spec_.warmup;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace fabricsim::workload
