#include "workload/workload.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "workload/size_distributions.h"

namespace fabricsim::workload {

namespace {

// Streams of the workload's random draws (see core/rng.h).
constexpr uint64_t kPatternStream = 0x574B4C44;  // "WKLD"

int64_t sample_size(const WorkloadSpec& spec, Rng& rng) {
  const std::vector<SizeCdfPoint>& cdf = effective_size_cdf(spec);
  if (cdf.empty()) return spec.flow_size_bytes;
  // Inverse-transform sampling of the piecewise-linear CDF.
  const double u = rng.uniform();
  double prev_p = 0.0;
  int64_t prev_size = cdf.front().size_bytes;
  for (const SizeCdfPoint& pt : cdf) {
    if (u <= pt.cumulative) {
      if (pt.cumulative <= prev_p) return std::max<int64_t>(1, pt.size_bytes);
      const double f = (u - prev_p) / (pt.cumulative - prev_p);
      return std::max<int64_t>(
          1, prev_size + static_cast<int64_t>(std::llround(f * (pt.size_bytes - prev_size))));
    }
    prev_p = pt.cumulative;
    prev_size = pt.size_bytes;
  }
  return cdf.back().size_bytes;
}

}  // namespace

double mean_size(const WorkloadSpec& spec) {
  const std::vector<SizeCdfPoint>& cdf = effective_size_cdf(spec);
  if (cdf.empty()) return static_cast<double>(spec.flow_size_bytes);
  double mean = 0, prev_p = 0;
  int64_t prev_size = cdf.front().size_bytes;
  for (const SizeCdfPoint& pt : cdf) {
    mean += (pt.cumulative - prev_p) * 0.5 * static_cast<double>(prev_size + pt.size_bytes);
    prev_p = pt.cumulative;
    prev_size = pt.size_bytes;
  }
  return mean;
}

void check(const WorkloadSpec& spec, int num_nics, bool gpu_ranks) {
  if (spec.kind == WorkloadKind::kTraining) {
    if (!gpu_ranks) {
      throw InputError("workload.kind", "training needs GPUs: set node.gpus_per_node");
    }
    return;
  }
  if (spec.kind == WorkloadKind::kCollective) {
    if (spec.max_size_bytes > 0 && spec.max_size_bytes < spec.size_bytes) {
      throw InputError("workload.max_size", "must be at least workload.size (the sweep's first "
                                            "size) or 0 for one size");
    }
    if (gpu_ranks) return;  // the collective engine checks the rest against its communicator
    // Without GPUs the NICs are the ranks and only the original NIC ring all-reduce runs.
    const char* needs = " needs GPUs (node.gpus_per_node > 0); without them the NICs run a "
                        "ring all_reduce only";
    if (spec.op != CollOp::kAllReduce) throw InputError("workload.op", std::string(name(spec.op)) + needs);
    if (spec.algorithm != CollAlgorithm::kAuto && spec.algorithm != CollAlgorithm::kRing) {
      throw InputError("workload.algorithm", std::string(name(spec.algorithm)) + needs);
    }
    if (spec.protocol != Protocol::kAuto) throw InputError("workload.protocol", std::string("a protocol") + needs);
    if (spec.channels != 0) throw InputError("workload.channels", std::string("channels") + needs);
    if (spec.max_size_bytes > 0) throw InputError("workload.max_size", std::string("a size sweep") + needs);
    if (spec.size_bytes < num_nics) {
      throw InputError("workload.size", "must be at least one byte per rank (" +
                                            std::to_string(num_nics) + " ranks)");
    }
    if (spec.slice_bytes < 1) throw InputError("workload.slice", "must be > 0");
    return;
  }
  if (spec.flow_size_bytes < 1 && spec.size_cdf.empty()) {
    throw InputError("workload.flow_size", "must be > 0");
  }
  // The loader checks size_cdf too; this guards library callers.
  for (size_t i = 0; i < spec.size_cdf.size(); ++i) {
    const SizeCdfPoint& p = spec.size_cdf[i];
    const bool ordered = i == 0 || (p.size_bytes > spec.size_cdf[i - 1].size_bytes &&
                                    p.cumulative >= spec.size_cdf[i - 1].cumulative);
    if (p.size_bytes < 1 || !(p.cumulative > 0 && p.cumulative <= 1) || !ordered) {
      throw InputError("workload.size_cdf",
                       "points need sizes > 0 and increasing, probabilities in (0, 1] and "
                       "non-decreasing");
    }
  }
  if (!spec.size_cdf.empty() && spec.size_cdf.back().cumulative != 1.0) {
    throw InputError("workload.size_cdf", "the last point's probability must be 1");
  }
  if (spec.pattern == PatternKind::kIncast) {
    if (spec.incast_receiver < 0 || spec.incast_receiver >= num_nics) {
      throw InputError("workload.receiver", "must be a NIC index in [0, " +
                                                std::to_string(num_nics - 1) + "]");
    }
    if (spec.incast_senders < 1 || spec.incast_senders > num_nics - 1) {
      throw InputError("workload.senders", "must be in [1, " + std::to_string(num_nics - 1) +
                                               "] for " + std::to_string(num_nics) + " NICs");
    }
  }
  if (spec.pattern == PatternKind::kFlows) {
    if (spec.flows.empty()) throw InputError("workload.flows", "must list at least one flow");
    for (const ExplicitFlow& f : spec.flows) {
      if (f.src < 0 || f.dst < 0 || f.src >= num_nics || f.dst >= num_nics || f.src == f.dst ||
          f.size_bytes < 1 || f.start_ps < 0) {
        throw InputError("workload.flows",
                         "each flow needs two different NIC indices below " +
                             std::to_string(num_nics) + ", a size > 0 and a start >= 0");
      }
    }
  }
  if (spec.pattern == PatternKind::kPingPong) check_ping_pong(spec.ping_pong, num_nics);
  if (spec.pattern == PatternKind::kGroupShift && spec.group_nics != 0 &&
      (spec.group_nics < 1 || num_nics % spec.group_nics != 0 || spec.group_nics >= num_nics)) {
    throw InputError("workload.group_size",
                     "must divide the " + std::to_string(num_nics) +
                         " NICs into at least 2 groups, got " + std::to_string(spec.group_nics));
  }
  if (spec.pattern == PatternKind::kPoisson) {
    if (!(spec.load > 0 && spec.load <= 1)) throw InputError("workload.load", "must be in (0, 1]");
    if (spec.size_distribution != SizeDistribution::kCustom && !spec.size_cdf.empty()) {
      throw InputError("workload.size_distribution",
                       "give a named distribution or workload.size_cdf, not both");
    }
    if (spec.duration_ps <= 0) throw InputError("workload.duration", "must be > 0");
  }
}

std::vector<PlannedFlow> plan_pattern(const WorkloadSpec& spec, int num_nics, int64_t nic_rate_bps,
                                      uint64_t seed) {
  Rng rng(seed, kPatternStream);
  const uint32_t n = static_cast<uint32_t>(num_nics);
  std::vector<PlannedFlow> flows;
  switch (spec.pattern) {
    case PatternKind::kPermutation: {
      // Sattolo's algorithm: a uniformly random single cycle, so nobody sends to itself and
      // every NIC sends to exactly one and receives from exactly one.
      std::vector<uint32_t> to(n);
      for (uint32_t i = 0; i < n; ++i) to[i] = i;
      for (uint32_t i = n - 1; i > 0; --i) std::swap(to[i], to[rng.below(i)]);
      for (uint32_t i = 0; i < n; ++i) flows.push_back({0, i, to[i], spec.flow_size_bytes});
      break;
    }
    case PatternKind::kIncast: {
      // Senders drawn at random (not neighbours of the receiver), so the incast crosses the
      // fabric as it does between racks.
      std::vector<uint32_t> others;
      for (uint32_t i = 0; i < n; ++i) {
        if (i != static_cast<uint32_t>(spec.incast_receiver)) others.push_back(i);
      }
      for (uint32_t i = 0; i < static_cast<uint32_t>(spec.incast_senders); ++i) {
        std::swap(others[i], others[i + rng.below(others.size() - i)]);
      }
      std::vector<uint32_t> senders(others.begin(), others.begin() + spec.incast_senders);
      std::sort(senders.begin(), senders.end());
      for (uint32_t s : senders) {
        flows.push_back({0, s, static_cast<uint32_t>(spec.incast_receiver), spec.flow_size_bytes});
      }
      break;
    }
    case PatternKind::kAllToAll:
      for (uint32_t s = 0; s < n; ++s) {
        for (uint32_t k = 1; k < n; ++k) {
          flows.push_back({0, s, (s + k) % n, spec.flow_size_bytes});  // staggered destinations
        }
      }
      break;
    case PatternKind::kFlows:
      for (const ExplicitFlow& f : spec.flows) {
        flows.push_back({f.start_ps, static_cast<uint32_t>(f.src), static_cast<uint32_t>(f.dst),
                         f.size_bytes, f.sl});
      }
      std::stable_sort(flows.begin(), flows.end(), [](const PlannedFlow& a, const PlannedFlow& b) {
        return a.start_ps < b.start_ps;
      });
      break;
    case PatternKind::kPingPong:
      break;  // nothing planned: workload/ping_pong.h posts as round trips complete
    case PatternKind::kGroupShift: {
      // Every NIC of group i to the same-index NIC of group i + 1: each group's traffic all
      // goes to one other group, which minimal Dragonfly routing puts on one global link.
      const uint32_t g = static_cast<uint32_t>(spec.group_nics);
      if (g == 0 || n % g != 0 || g >= n) {
        throw InputError("workload.group_size",
                         "group_shift needs the NICs per group: set it, or use "
                         "topology.kind: dragonfly (p·a)");
      }
      for (uint32_t i = 0; i < n; ++i) flows.push_back({0, i, (i + g) % n, spec.flow_size_bytes});
      break;
    }
    case PatternKind::kPoisson: {
      // Each NIC starts flows as a Poisson process whose rate makes the offered load
      // `load` x line rate: lambda = load x rate / (8 x mean size).
      const double lambda_per_ps =
          spec.load * static_cast<double>(nic_rate_bps) / (8.0 * mean_size(spec)) * 1e-12;
      for (uint32_t s = 0; s < n; ++s) {
        Rng nic_rng(seed, kPatternStream + 1 + s);
        double t = 0;
        for (;;) {
          t += -std::log(1.0 - nic_rng.uniform()) / lambda_per_ps;
          if (t >= static_cast<double>(spec.duration_ps)) break;
          uint32_t d = static_cast<uint32_t>(nic_rng.below(n - 1));
          if (d >= s) ++d;
          flows.push_back({static_cast<int64_t>(t), s, d, sample_size(spec, nic_rng)});
        }
      }
      std::stable_sort(flows.begin(), flows.end(), [](const PlannedFlow& a, const PlannedFlow& b) {
        return a.start_ps < b.start_ps;
      });
      break;
    }
  }
  return flows;
}

Workload::Workload(const WorkloadSpec& spec, int num_nics, int64_t nic_rate_bps, uint64_t seed,
                   transport::Transport& transport, Scheduler& sched)
    : spec_(spec), num_nics_(num_nics), transport_(transport), sched_(sched) {
  if (spec_.kind == WorkloadKind::kPattern) {
    planned_ = plan_pattern(spec_, num_nics, nic_rate_bps, seed);
    if (spec_.pattern == PatternKind::kPingPong) {
      ping_pong_ = std::make_unique<PingPong>(spec_.ping_pong, transport, sched);
    }
  }
}

uint64_t Workload::total_messages() const {
  if (ping_pong_) return ping_pong_->total_messages();
  if (!is_collective()) return planned_.size();
  return static_cast<uint64_t>(num_nics_) * ring_steps_ * ring_slices_;
}

int64_t Workload::total_pattern_bytes() const {
  if (ping_pong_ || is_collective()) return 0;
  int64_t sum = 0;
  for (const PlannedFlow& f : planned_) sum += f.size_bytes;
  return sum;
}

void Workload::start() {
  if (ping_pong_) {
    ping_pong_->start();
    return;
  }
  if (spec_.kind == WorkloadKind::kPattern) {
    on_flow_start();
    return;
  }
  // Ring all-reduce (NCCL): rank r sends to r+1; reduce-scatter then all-gather, 2(n-1) steps;
  // the chunk a rank receives at step s is the chunk it sends at step s+1.
  const uint32_t n = static_cast<uint32_t>(num_nics_);
  ring_steps_ = 2 * (n - 1);
  const int64_t chunk_max = (spec_.size_bytes + n - 1) / n;
  ring_slices_ = static_cast<uint32_t>((chunk_max + spec_.slice_bytes - 1) / spec_.slice_bytes);
  ring_remaining_ = static_cast<uint64_t>(n) * ring_steps_ * ring_slices_;
  for (uint32_t r = 0; r < n; ++r) {
    for (uint32_t j = 0; j < ring_slices_; ++j) post_ring_slice(r, 0, j);
  }
}

void Workload::post_ring_slice(uint32_t rank, uint32_t step, uint32_t slice) {
  const uint32_t n = static_cast<uint32_t>(num_nics_);
  // Chunk c holds S/n bytes, the first S mod n chunks one more; a chunk's slices split it
  // evenly the same way.
  const uint32_t chunk = (rank + n - step % n) % n;
  const int64_t chunk_bytes = spec_.size_bytes / n + (chunk < spec_.size_bytes % n ? 1 : 0);
  const int64_t slice_bytes =
      chunk_bytes / ring_slices_ + (slice < chunk_bytes % ring_slices_ ? 1 : 0);
  const uint64_t tag = (static_cast<uint64_t>(step) << 32) | slice;
  transport_.post(rank, (rank + 1) % n, slice_bytes, tag);
}

void Workload::on_flow_start() {
  while (next_planned_ < planned_.size() && planned_[next_planned_].start_ps <= sched_.now()) {
    const PlannedFlow& f = planned_[next_planned_++];
    transport_.post(f.src, f.dst, f.size_bytes, next_planned_ - 1, f.sl);
  }
  if (next_planned_ < planned_.size()) {
    sched_.at(planned_[next_planned_].start_ps, kFlowStart, 0);
  }
}

void Workload::on_delivered(uint32_t msg) {
  if (ping_pong_) {
    ping_pong_->on_delivered(msg);
    return;
  }
  if (spec_.kind != WorkloadKind::kCollective) return;
  const transport::MessageRecord& m = transport_.message(msg);
  const uint32_t step = static_cast<uint32_t>(m.tag >> 32);
  const uint32_t slice = static_cast<uint32_t>(m.tag & 0xFFFFFFFF);
  const uint32_t receiver = m.dst_nic;
  --ring_remaining_;
  if (step + 1 < ring_steps_) post_ring_slice(receiver, step + 1, slice);
  if (ring_remaining_ == 0) ring_end_ps_ = sched_.now();
}

}  // namespace fabricsim::workload
