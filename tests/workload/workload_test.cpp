// Traffic patterns (workload::plan_pattern) and the workload checks (workload::check): each
// pattern has the shape its name promises, Poisson arrivals offer the asked-for load, size_cdf
// sampling has the CDF's mean, bad specs are refused with the key at fault, and plans depend on
// the seed and on nothing else.
#include "workload/workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/time.h"

namespace fabricsim::workload {
namespace workload_test {

constexpr int64_t kRate = 100'000'000'000;  // 100 Gb/s

WorkloadSpec pattern(PatternKind kind) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kPattern;
  s.pattern = kind;
  s.flow_size_bytes = 1'000'000;
  return s;
}

WorkloadSpec poisson(double load, int64_t duration_ps) {
  WorkloadSpec s = pattern(PatternKind::kPoisson);
  s.load = load;
  s.duration_ps = duration_ps;
  return s;
}

bool same_flows(const std::vector<PlannedFlow>& a, const std::vector<PlannedFlow>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].start_ps != b[i].start_ps || a[i].src != b[i].src || a[i].dst != b[i].dst ||
        a[i].size_bytes != b[i].size_bytes) {
      return false;
    }
  }
  return true;
}

// The key path check() names, or "" if it accepts the spec.
std::string refused_key(const WorkloadSpec& spec, int nics) {
  try {
    check(spec, nics);
  } catch (const InputError& e) {
    return e.key_path();
  }
  return "";
}

// Offered load of a plan: its bits over duration x NICs x line rate.
double offered_load(const std::vector<PlannedFlow>& flows, int64_t duration_ps, int nics) {
  double bits = 0;
  for (const PlannedFlow& f : flows) bits += 8.0 * static_cast<double>(f.size_bytes);
  const double seconds = static_cast<double>(duration_ps) / kPsPerSecond;
  return bits / (seconds * nics * static_cast<double>(kRate));
}

// ---- permutation ----

TEST(Permutation, IsOneCycleThroughEveryNic) {
  for (int n : {2, 3, 16, 128, 1000}) {
    SCOPED_TRACE("nics = " + std::to_string(n));
    const WorkloadSpec spec = pattern(PatternKind::kPermutation);
    const std::vector<PlannedFlow> flows = plan_pattern(spec, n, kRate, 1);
    ASSERT_EQ(flows.size(), static_cast<size_t>(n)) << "one flow per NIC";
    std::vector<int> to(n, -1), sends(n, 0), receives(n, 0);
    for (const PlannedFlow& f : flows) {
      ASSERT_LT(f.src, static_cast<uint32_t>(n)) << "source is a NIC index";
      ASSERT_LT(f.dst, static_cast<uint32_t>(n)) << "destination is a NIC index";
      EXPECT_NE(f.src, f.dst) << "NIC " << f.src << " sends to itself (a fixed point)";
      EXPECT_EQ(f.size_bytes, spec.flow_size_bytes) << "every flow has flow_size bytes";
      EXPECT_EQ(f.start_ps, 0) << "a permutation starts all at once";
      ++sends[f.src];
      ++receives[f.dst];
      to[f.src] = static_cast<int>(f.dst);
    }
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(sends[i], 1) << "NIC " << i << " sends " << sends[i] << " flows, not one";
      EXPECT_EQ(receives[i], 1) << "NIC " << i << " receives " << receives[i] << " flows, not one";
    }
    // Following the destinations from NIC 0 visits every NIC before coming back: one cycle.
    int at = 0, steps = 0;
    do {
      at = to[at];
      ++steps;
    } while (at != 0 && at >= 0 && steps <= n);
    EXPECT_EQ(steps, n) << "the permutation is not a single cycle of length " << n;
  }
}

// ---- incast ----

TEST(Incast, DistinctSendersIntoOneReceiver) {
  struct Case {
    int nics, senders, receiver;
  };
  for (const Case c : {Case{64, 16, 0}, Case{64, 16, 37}, Case{64, 63, 63}, Case{2, 1, 1},
                       Case{1000, 1, 500}}) {
    SCOPED_TRACE("nics " + std::to_string(c.nics) + ", senders " + std::to_string(c.senders) +
                 ", receiver " + std::to_string(c.receiver));
    WorkloadSpec spec = pattern(PatternKind::kIncast);
    spec.incast_senders = c.senders;
    spec.incast_receiver = c.receiver;
    ASSERT_EQ(refused_key(spec, c.nics), "") << "check() accepts this incast";
    const std::vector<PlannedFlow> flows = plan_pattern(spec, c.nics, kRate, 3);
    EXPECT_EQ(flows.size(), static_cast<size_t>(c.senders)) << "one flow per sender";
    std::set<uint32_t> senders;
    for (const PlannedFlow& f : flows) {
      EXPECT_EQ(f.dst, static_cast<uint32_t>(c.receiver)) << "every flow goes to the receiver";
      EXPECT_NE(f.src, static_cast<uint32_t>(c.receiver)) << "the receiver is not a sender";
      EXPECT_LT(f.src, static_cast<uint32_t>(c.nics)) << "sender is a NIC index";
      EXPECT_EQ(f.size_bytes, spec.flow_size_bytes) << "every flow has flow_size bytes";
      EXPECT_EQ(f.start_ps, 0) << "an incast starts all at once";
      EXPECT_TRUE(senders.insert(f.src).second) << "NIC " << f.src << " sends twice";
    }
  }
}

// ---- all-to-all ----

TEST(AllToAll, EveryOrderedPairOnce) {
  for (int n : {2, 5, 32}) {
    SCOPED_TRACE("nics = " + std::to_string(n));
    const WorkloadSpec spec = pattern(PatternKind::kAllToAll);
    const std::vector<PlannedFlow> flows = plan_pattern(spec, n, kRate, 5);
    EXPECT_EQ(flows.size(), static_cast<size_t>(n) * (n - 1)) << "n(n-1) flows";
    std::set<std::pair<uint32_t, uint32_t>> pairs;
    for (const PlannedFlow& f : flows) {
      EXPECT_NE(f.src, f.dst) << "NIC " << f.src << " sends to itself";
      EXPECT_LT(f.src, static_cast<uint32_t>(n)) << "source is a NIC index";
      EXPECT_LT(f.dst, static_cast<uint32_t>(n)) << "destination is a NIC index";
      EXPECT_EQ(f.start_ps, 0) << "an all-to-all starts all at once";
      EXPECT_TRUE(pairs.insert({f.src, f.dst}).second)
          << "pair " << f.src << " -> " << f.dst << " appears twice";
    }
    EXPECT_EQ(pairs.size(), static_cast<size_t>(n) * (n - 1)) << "every ordered pair once";
  }
}

// ---- Poisson ----

TEST(Poisson, OffersTheLoadWithoutSelfTraffic) {
  constexpr int kNics = 16;
  constexpr int64_t kDuration = 100 * kPsPerMs;
  for (double load : {0.1, 0.5, 0.9}) {
    SCOPED_TRACE("load = " + std::to_string(load));
    WorkloadSpec spec = poisson(load, kDuration);
    spec.flow_size_bytes = 100'000;  // load 0.1: 12.5 k flows/s per NIC, ~1250 per NIC here
    ASSERT_EQ(refused_key(spec, kNics), "") << "check() accepts this Poisson workload";
    const std::vector<PlannedFlow> flows = plan_pattern(spec, kNics, kRate, 11);
    ASSERT_FALSE(flows.empty()) << "Poisson arrivals over 100 ms";
    EXPECT_NEAR(offered_load(flows, kDuration, kNics), load, 0.05 * load)
        << "offered bits / (duration x NICs x rate) is the load, within 5%";
    std::vector<int> per_nic(kNics, 0);
    for (size_t i = 0; i < flows.size(); ++i) {
      const PlannedFlow& f = flows[i];
      EXPECT_NE(f.src, f.dst) << "flow " << i << " from NIC " << f.src << " to itself";
      EXPECT_LT(f.dst, static_cast<uint32_t>(kNics)) << "destination is a NIC index";
      EXPECT_GE(f.start_ps, 0) << "flow " << i << " starts before 0";
      EXPECT_LT(f.start_ps, kDuration) << "flow " << i << " starts at or after the duration";
      EXPECT_EQ(f.size_bytes, spec.flow_size_bytes) << "no size_cdf: every flow is flow_size";
      if (i > 0) {
        EXPECT_LE(flows[i - 1].start_ps, f.start_ps) << "start times sorted at flow " << i;
      }
      ++per_nic[f.src];
    }
    for (int s = 0; s < kNics; ++s) {
      EXPECT_GT(per_nic[s], 0) << "NIC " << s << " never starts a flow";
    }
  }
}

// The CDF of the sampling test: a point mass of 0.5 at 1000 B, then linear pieces.
std::vector<SizeCdfPoint> heavy_tailed_cdf() {
  return {{1'000, 0.5}, {10'000, 0.8}, {100'000, 0.95}, {1'000'000, 1.0}};
}
// Its mean, by hand: the mass at the first point, then each linear piece's probability times
// the midpoint of its sizes.
//   0.5 x 1000 + 0.3 x (1000 + 10000)/2 + 0.15 x (10000 + 100000)/2 + 0.05 x (100000 + 1e6)/2
//   = 500 + 1650 + 8250 + 27500 = 37900 bytes
constexpr double kHeavyTailedMean = 37'900.0;

TEST(Poisson, SizeCdfSamplesHaveTheCdfMean) {
  constexpr int kNics = 16;
  constexpr int64_t kDuration = 200 * kPsPerMs;  // ~530 k flows at load 0.5
  WorkloadSpec spec = poisson(0.5, kDuration);
  spec.size_cdf = heavy_tailed_cdf();
  ASSERT_EQ(refused_key(spec, kNics), "") << "check() accepts this Poisson workload";
  const std::vector<PlannedFlow> flows = plan_pattern(spec, kNics, kRate, 17);
  ASSERT_GT(flows.size(), 100'000u) << "enough samples for a 3% mean";
  double sum = 0;
  int64_t at_first_point = 0;
  for (const PlannedFlow& f : flows) {
    ASSERT_GE(f.size_bytes, 1'000) << "a sample below the CDF's smallest size";
    ASSERT_LE(f.size_bytes, 1'000'000) << "a sample above the CDF's largest size";
    sum += static_cast<double>(f.size_bytes);
    at_first_point += f.size_bytes == 1'000;
  }
  const double n = static_cast<double>(flows.size());
  EXPECT_NEAR(sum / n, kHeavyTailedMean, 0.03 * kHeavyTailedMean)
      << "mean sampled size vs the piecewise-linear CDF's mean";
  EXPECT_NEAR(at_first_point / n, 0.5, 0.01) << "P(size = 1000 B) is the first point's 0.5";
  // The arrival rate follows the CDF's mean, so the load holds with sampled sizes too.
  EXPECT_NEAR(offered_load(flows, kDuration, kNics), 0.5, 0.05 * 0.5)
      << "offered load with size_cdf sizes, within 5%";
}

// ---- seeds ----

TEST(Plans, DeterministicForASeedAndDifferentForAnother) {
  WorkloadSpec incast = pattern(PatternKind::kIncast);
  incast.incast_senders = 8;
  WorkloadSpec sized = poisson(0.3, 2 * kPsPerMs);
  sized.size_cdf = heavy_tailed_cdf();
  const std::vector<std::pair<const char*, WorkloadSpec>> specs = {
      {"permutation", pattern(PatternKind::kPermutation)},
      {"incast", incast},
      {"poisson", poisson(0.3, 2 * kPsPerMs)},
      {"poisson with size_cdf", sized}};
  for (const auto& [label, spec] : specs) {
    SCOPED_TRACE(label);
    const auto a = plan_pattern(spec, 64, kRate, 42);
    const auto b = plan_pattern(spec, 64, kRate, 42);
    const auto c = plan_pattern(spec, 64, kRate, 43);
    EXPECT_TRUE(same_flows(a, b)) << label << ": two plans with seed 42 differ";
    EXPECT_FALSE(same_flows(a, c)) << label << ": seeds 42 and 43 give the same plan";
  }
  // All-to-all has no random choice: every seed gives the same flows.
  const WorkloadSpec all = pattern(PatternKind::kAllToAll);
  EXPECT_TRUE(same_flows(plan_pattern(all, 8, kRate, 1), plan_pattern(all, 8, kRate, 2)))
      << "all-to-all does not depend on the seed";
}

// ---- check() ----

TEST(Check, RefusesBadSpecsNamingTheKey) {
  constexpr int kNics = 64;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    const char* what;
    WorkloadSpec spec;
    const char* key;
  };
  std::vector<Case> cases;
  auto incast = [](int senders, int receiver) {
    WorkloadSpec s = pattern(PatternKind::kIncast);
    s.incast_senders = senders;
    s.incast_receiver = receiver;
    return s;
  };
  cases.push_back({"receiver below 0", incast(16, -1), "workload.receiver"});
  cases.push_back({"receiver past the last NIC", incast(16, kNics), "workload.receiver"});
  cases.push_back({"no senders", incast(0, 0), "workload.senders"});
  cases.push_back({"negative senders", incast(-3, 0), "workload.senders"});
  cases.push_back({"every NIC a sender", incast(kNics, 0), "workload.senders"});
  cases.push_back({"load 0", poisson(0, kPsPerMs), "workload.load"});
  cases.push_back({"negative load", poisson(-0.5, kPsPerMs), "workload.load"});
  cases.push_back({"load above 1", poisson(1.5, kPsPerMs), "workload.load"});
  cases.push_back({"load NaN", poisson(nan, kPsPerMs), "workload.load"});
  cases.push_back({"duration 0", poisson(0.5, 0), "workload.duration"});
  cases.push_back({"negative duration", poisson(0.5, -1), "workload.duration"});
  for (PatternKind p : {PatternKind::kPermutation, PatternKind::kIncast, PatternKind::kAllToAll}) {
    WorkloadSpec s = pattern(p);
    s.flow_size_bytes = 0;
    cases.push_back({"flow_size 0", s, "workload.flow_size"});
  }
  {
    WorkloadSpec s = poisson(0.5, kPsPerMs);
    s.flow_size_bytes = -1;
    cases.push_back({"poisson flow_size < 0 without size_cdf", s, "workload.flow_size"});
  }
  {
    WorkloadSpec s;  // collective
    s.size_bytes = kNics - 1;
    cases.push_back({"all-reduce size below one byte per rank", s, "workload.size"});
    s.size_bytes = 0;
    cases.push_back({"all-reduce size 0", s, "workload.size"});
  }
  {
    WorkloadSpec s;
    s.slice_bytes = 0;
    cases.push_back({"slice 0", s, "workload.slice"});
  }
  for (const Case& c : cases) {
    EXPECT_EQ(refused_key(c.spec, kNics), c.key) << c.what << ": wrong or no key refused";
  }
}

TEST(Check, AcceptsGoodSpecs) {
  constexpr int kNics = 64;
  WorkloadSpec edge_incast = pattern(PatternKind::kIncast);
  edge_incast.incast_senders = kNics - 1;
  edge_incast.incast_receiver = kNics - 1;
  WorkloadSpec sized = poisson(1.0, 1);
  sized.flow_size_bytes = 0;  // unused: the CDF gives the sizes
  sized.size_cdf = heavy_tailed_cdf();
  WorkloadSpec collective;
  collective.size_bytes = kNics;  // one byte per rank is the minimum
  collective.slice_bytes = 1;
  const std::vector<std::pair<const char*, WorkloadSpec>> good = {
      {"permutation", pattern(PatternKind::kPermutation)},
      {"all-to-all", pattern(PatternKind::kAllToAll)},
      {"incast from every other NIC into the last", edge_incast},
      {"poisson at load 1 with size_cdf", sized},
      {"smallest all-reduce", collective},
      {"default spec", WorkloadSpec{}}};
  for (const auto& [what, spec] : good) {
    EXPECT_EQ(refused_key(spec, kNics), "") << what << " is refused";
  }
}

}  // namespace workload_test
}  // namespace fabricsim::workload
