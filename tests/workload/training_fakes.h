// Closed-form stand-ins for the layers below the training engine (tests only): a RankTransport
// that only keeps timers (a tiny event loop ordered by time, then insertion), and a
// CollectiveRunner whose collectives take latency + size x ps_per_byte, each independently (the
// engine, not the runner, runs a communicator's collectives one at a time).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

#include "node/rank_transport.h"
#include "workload/collective.h"
#include "workload/training.h"
#include "workload/training_spec.h"

namespace fabricsim::workload::fakes {

class FakeTransport : public node::RankTransport {
 public:
  explicit FakeTransport(uint32_t gpus) : gpus_(gpus) {}
  void send(uint32_t, uint32_t, int64_t, uint64_t, int64_t, uint64_t, int32_t, uint32_t,
            node::FoldedStream) override {
    ADD_FAILURE() << "the training engine must not send";
  }
  void timer(int64_t delay_ps, uint64_t cookie) override {
    EXPECT_GE(delay_ps, 0);
    queue_.push({now_ps_ + delay_ps, seq_++, cookie});
  }
  int64_t now_ps() const override { return now_ps_; }
  uint32_t gpus() const override { return gpus_; }
  uint32_t gpus_per_node() const override { return 8; }
  int64_t idle_transfer_ps(uint32_t, uint32_t, int64_t) const override { return 0; }
  double path_rate_bytes_per_s(uint32_t, uint32_t) const override { return 0; }

  // Runs until no timer is left.
  void run() {
    while (!queue_.empty()) {
      const auto [t, seq, cookie] = queue_.top();
      queue_.pop();
      now_ps_ = t;
      on_timer(cookie);
    }
  }

 private:
  using Event = std::tuple<int64_t, uint64_t, uint64_t>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  int64_t now_ps_ = 0;
  uint64_t seq_ = 0;
  uint32_t gpus_;
};

class FakeRunner : public CollectiveRunner {
 public:
  FakeRunner(node::RankTransport& transport, int64_t latency_ps, int64_t ps_per_byte)
      : transport_(transport), latency_ps_(latency_ps), ps_per_byte_(ps_per_byte) {}
  uint32_t start(const CollectiveSpec& spec, std::function<void(uint32_t)> done) override {
    const auto id = static_cast<uint32_t>(records_.size());
    CollectiveRecord r;
    r.op = spec.op;
    r.algorithm = spec.algorithm;
    r.protocol = spec.protocol;
    r.ranks = static_cast<int>(spec.ranks.size());
    r.size_bytes = spec.size_bytes;
    r.start_ps = transport_.now_ps();
    records_.push_back(r);
    specs_.push_back(spec);
    done_.push_back(std::move(done));
    transport_.timer(latency_ps_ + spec.size_bytes * ps_per_byte_, id);
    return id;
  }
  const CollectiveRecord& record(uint32_t id) const override { return records_[id]; }
  void on_timer(uint64_t cookie) {
    records_[cookie].end_ps = transport_.now_ps();
    done_[cookie](static_cast<uint32_t>(cookie));
  }
  const std::vector<CollectiveSpec>& specs() const { return specs_; }

 private:
  node::RankTransport& transport_;
  int64_t latency_ps_;
  int64_t ps_per_byte_;
  std::vector<CollectiveRecord> records_;
  std::vector<CollectiveSpec> specs_;
  std::vector<std::function<void(uint32_t)>> done_;
};

// Runs `dag` on identity placement with the fakes; returns the result.
inline TrainingResult run_dag(Dag dag, int64_t latency_ps, int64_t ps_per_byte, int steps = 1) {
  FakeTransport transport(dag.ranks);
  FakeRunner runner(transport, latency_ps, ps_per_byte);
  std::vector<uint32_t> placement(dag.ranks);
  for (uint32_t r = 0; r < dag.ranks; ++r) placement[r] = r;
  TrainingEngine engine(std::move(dag), placement, runner, transport, 3, {}, steps);
  transport.on_timer = [&](uint64_t cookie) {
    if (TrainingEngine::owns_cookie(cookie)) {
      EXPECT_EQ(TrainingEngine::cookie_job(cookie), 3u);
      engine.on_timer(cookie);
    } else {
      runner.on_timer(cookie);
    }
  };
  engine.start();
  transport.run();
  EXPECT_TRUE(engine.done()) << "every op of the DAG ran";
  return engine.result();
}

// A scaled-down GPT-3-like model (GPT-3 shapes: h = 128 x heads' dim, s = 2048-class context,
// GPT-2 vocabulary) on tp 2 x pp 2 x dp 2 = 8 GPUs: the generator tests' common shape.
inline TransformerSpec gpt_like() {
  TransformerSpec s;
  s.layers = 8;
  s.hidden = 1024;
  s.heads = 16;
  s.seq_length = 512;
  s.vocab = 50257;
  s.micro_batch = 2;
  s.micro_batches = 4;
  s.tp = 2;
  s.pp = 2;
  s.dp = 2;
  return s;
}

}  // namespace fabricsim::workload::fakes
