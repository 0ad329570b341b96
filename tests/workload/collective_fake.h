// A closed-form RankTransport for the collective engine's tests: G GPUs per node; each GPU has
// one egress and one ingress FIFO serializer per link class (intra-node NVLink-like, inter-node
// NIC-like), each class with its own rate and one-way latency. A message waits `delay_ps`, then
// for its sender's egress serializer, serializes at the class rate, travels the class latency,
// and is delivered once the receiver's ingress serializer (served in order of first-byte
// arrival, cut-through) has taken all its bytes. Its own tiny event
// loop (a priority queue ordered by time, then insertion) drives the engine.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "node/rank_transport.h"
#include "workload/collective.h"
#include "workload/collective_engine.h"

namespace fabricsim::workload::test {

struct FakeParams {
  uint32_t nodes = 1;
  uint32_t gpus_per_node = 8;
  double intra_bytes_per_s = 360e9;
  int64_t intra_latency_ps = 500'000;  // 0.5 us
  double inter_bytes_per_s = 50e9;
  int64_t inter_latency_ps = 2'000'000;  // 2 us
};

class FakeMachine final : public node::RankTransport {
 public:
  explicit FakeMachine(const FakeParams& p)
      : p_(p),
        egress_free_(2, std::vector<int64_t>(p.nodes * p.gpus_per_node, 0)),
        ingress_free_(egress_free_),
        rx_bytes_(p.nodes * p.gpus_per_node, 0) {}

  void send(uint32_t src, uint32_t dst, int64_t bytes, uint64_t cookie, int64_t delay_ps,
            uint64_t /*connection*/, int32_t weight, uint32_t /*channel*/,
            node::FoldedStream /*stream*/) override {
    // weighted_sends() is false here: the engine never folds channels on this machine.
    if (weight != 1) throw std::logic_error("FakeRankTransport: weighted send");
    push(now_ + delay_ps, kPost, cookie, src, dst, bytes);
  }
  void timer(int64_t delay_ps, uint64_t cookie) override {
    push(now_ + delay_ps, kTimer, cookie, 0, 0, 0);
  }
  int64_t now_ps() const override { return now_; }
  uint32_t gpus() const override { return p_.nodes * p_.gpus_per_node; }
  uint32_t gpus_per_node() const override { return p_.gpus_per_node; }
  int64_t idle_transfer_ps(uint32_t src, uint32_t dst, int64_t bytes) const override {
    return latency(src, dst) + ser(src, dst, bytes);
  }
  double path_rate_bytes_per_s(uint32_t src, uint32_t dst) const override { return rate(src, dst); }

  double rate(uint32_t a, uint32_t b) const {
    return inter(a, b) ? p_.inter_bytes_per_s : p_.intra_bytes_per_s;
  }
  int64_t latency(uint32_t a, uint32_t b) const {
    return inter(a, b) ? p_.inter_latency_ps : p_.intra_latency_ps;
  }
  int64_t ser(uint32_t a, uint32_t b, int64_t bytes) const {
    return static_cast<int64_t>(std::ceil(static_cast<double>(bytes) * 1e12 / rate(a, b)));
  }
  bool inter(uint32_t a, uint32_t b) const { return node_of(a) != node_of(b); }

  // Runs until no event is left; returns the time of the last event.
  int64_t run() {
    while (!q_.empty()) {
      const Ev ev = q_.top();
      q_.pop();
      now_ = ev.t;
      if (ev.kind == kPost) {
        // Egress: FIFO in posting order; the first byte reaches the receiver `latency` later.
        const int cls = inter(ev.src, ev.dst) ? 1 : 0;
        const int64_t start = std::max(now_, egress_free_[cls][ev.src]);
        egress_free_[cls][ev.src] = start + ser(ev.src, ev.dst, ev.bytes);
        push(start + latency(ev.src, ev.dst), kHead, ev.cookie, ev.src, ev.dst, ev.bytes,
             egress_free_[cls][ev.src] + latency(ev.src, ev.dst));
      } else if (ev.kind == kHead) {
        // Ingress: FIFO in order of first-byte arrival (cut-through: it overlaps the sender's
        // serialization), never finishing before the last byte has crossed.
        const int cls = inter(ev.src, ev.dst) ? 1 : 0;
        const int64_t end = std::max(
            std::max(now_, ingress_free_[cls][ev.dst]) + ser(ev.src, ev.dst, ev.bytes), ev.tail);
        ingress_free_[cls][ev.dst] = end;
        rx_bytes_[ev.dst] += ev.bytes;
        ++messages_;
        push(end, kArrive, ev.cookie, ev.src, ev.dst, ev.bytes);
      } else if (ev.kind == kArrive) {
        on_arrived(ev.cookie);
      } else {
        on_timer(ev.cookie);
      }
    }
    return now_;
  }
  const std::vector<int64_t>& rx_bytes() const { return rx_bytes_; }
  int64_t messages() const { return messages_; }

 private:
  enum Kind { kPost, kHead, kArrive, kTimer };
  struct Ev {
    int64_t t;
    uint64_t seq;
    Kind kind;
    uint64_t cookie;
    uint32_t src, dst;
    int64_t bytes;
    int64_t tail;  // kHead: when the last byte reaches the receiver
    bool operator>(const Ev& o) const { return std::tie(t, seq) > std::tie(o.t, o.seq); }
  };
  void push(int64_t t, Kind k, uint64_t cookie, uint32_t src, uint32_t dst, int64_t bytes,
            int64_t tail = 0) {
    q_.push(Ev{t, seq_++, k, cookie, src, dst, bytes, tail});
  }
  FakeParams p_;
  int64_t now_ = 0;
  uint64_t seq_ = 0;
  int64_t messages_ = 0;
  std::vector<std::vector<int64_t>> egress_free_, ingress_free_;
  std::vector<int64_t> rx_bytes_;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<>> q_;
};

// A fake machine with an engine wired to it, the way the owner (GpuNet's user) wires them.
struct Bench {
  explicit Bench(const FakeParams& p, const CollectiveConfig& cfg = {})
      : machine(p), engine(machine, cfg) {
    machine.on_arrived = [this](uint64_t c) { engine.on_arrived(c); };
    machine.on_timer = [this](uint64_t c) { engine.on_timer(c); };
  }
  // Runs one collective alone on the idle machine; returns its record.
  CollectiveRecord run(const CollectiveSpec& spec) {
    bool done = false;
    const uint32_t id = engine.start(spec, [&done](uint32_t) { done = true; });
    machine.run();
    EXPECT_TRUE(done) << name(spec.op) << " did not complete";
    return engine.record(id);
  }
  FakeMachine machine;
  CollectiveEngine engine;
};

inline std::vector<uint32_t> first_ranks(uint32_t n) {
  std::vector<uint32_t> r(n);
  for (uint32_t i = 0; i < n; ++i) r[i] = i;
  return r;
}

inline CollectiveSpec make_spec(CollOp op, CollAlgorithm a, Protocol p, int64_t size,
                                std::vector<uint32_t> ranks, int channels = 1) {
  CollectiveSpec s;
  s.op = op;
  s.algorithm = a;
  s.protocol = p;
  s.size_bytes = size;
  s.ranks = std::move(ranks);
  s.channels = channels;
  return s;
}

}  // namespace fabricsim::workload::test
