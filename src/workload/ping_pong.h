// pattern: ping_pong — perftest's latency tests (ib_write_lat, ib_send_lat) and netperf's TCP_RR
// as a workload: per pair, A posts `size` bytes to B; as soon as B's application sees the last
// byte (Transport::on_delivered) B posts `size` bytes back; when A sees them the round trip is
// over and A posts the next. Only one message per pair is ever in flight, so on an idle fabric
// every round trip is the same and half of it is the one-way latency perftest reports
// (linux-rdma/perftest: run_iter_lat_write spins on the buffer's last byte, then writes back;
// the report divides each iteration's cycles by 2). netperf TCP_RR reports transactions per
// second, i.e. 1 / RTT.
//
// Per message, not per packet: on_delivered runs once per message.
#pragma once

#include <cstdint>
#include <vector>

#include "workload/workload_spec.h"

namespace fabricsim {
struct Scheduler;
namespace transport {
class Transport;
}
}  // namespace fabricsim

namespace fabricsim::workload {

// One pair's statistics over its measured round trips (warm-up left out). Percentiles are
// taken over the sorted values, as perftest's report sorts its per-iteration deltas: typical =
// the median (perftest "t_typical"), p99 / p99.9 = nearest rank, the value at ceil(p x n).
struct PingPongStats {
  int a = 0;
  int b = 0;
  int64_t size_bytes = 0;
  int iterations = 0;  // measured round trips
  int warmup = 0;
  // One way = RTT / 2, in picoseconds (RTT in integer ps, so halves are exact in a double).
  double one_way_min_ps = 0;
  double one_way_typical_ps = 0;
  double one_way_avg_ps = 0;
  double one_way_p99_ps = 0;
  double one_way_p999_ps = 0;
  double one_way_max_ps = 0;
  double transactions_per_s = 0;  // netperf TCP_RR: round trips per second = 1 / mean RTT
  std::vector<int64_t> rtt_ps;    // per measured iteration, in order (ping_pong.csv)
};

// The statistics of a list of round trips (the a, b, size and warm-up fields left at 0).
PingPongStats summarize_round_trips(std::vector<int64_t> rtt_ps);

class PingPong {
 public:
  PingPong(const PingPongSpec& spec, transport::Transport& transport, Scheduler& sched);

  // Posts every pair's first ping (now).
  void start();
  // A message of this workload was seen by its receiving application.
  void on_delivered(uint32_t msg);
  // Every round trip of every pair has completed.
  bool done() const { return pairs_done_ == pairs_.size(); }
  uint64_t total_messages() const;
  std::vector<PingPongStats> stats() const;

 private:
  struct Pair {
    uint32_t a = 0;
    uint32_t b = 0;
    int64_t round = 0;         // round trips started (warm-up included)
    int64_t ping_post_ps = 0;  // when the current round's ping was posted
    std::vector<int64_t> rtt_ps;
  };
  void post_ping(uint32_t pair);

  PingPongSpec spec_;
  transport::Transport& transport_;
  Scheduler& sched_;
  std::vector<Pair> pairs_;
  size_t pairs_done_ = 0;
};

// Throws InputError naming workload.ping_pong.* when the spec cannot run on `num_nics` NICs.
void check_ping_pong(const PingPongSpec& spec, int num_nics);

}  // namespace fabricsim::workload
