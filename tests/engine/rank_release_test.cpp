// What a rank of an MPI run holds of the model (net/rank_release.cpp, docs/parallel.md "What
// each rank builds"): a rank keeps forwarding tables for the switches its partitions own and no
// others, and the pages of the per-port queue state (PortQueues) that neither its partitions
// nor its serial phase touch are not resident. Checked against the partition map (which
// partition each port is in, and the documented deal of partitions to ranks: rank r runs
// [r x T, (r + 1) x T)) and against the kernel's own count of resident pages (mincore), not
// against an earlier run's output. Construction only: a rank builds without talking to the
// others, so a stand-in RankExchange that is never called is enough.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>

#include <stdexcept>
#include <vector>

#include "core/rank_run.h"
#include "core/resident_pages.h"
#include "engine/packet/simulation.h"
#include "resolve/resolve.h"
#include "spec/load.h"

namespace fabricsim::rank_release_test {

// Rank `rank` of `size`, for construction: any collective fails the test.
class StandInRanks final : public RankExchange {
 public:
  StandInRanks(uint32_t rank, uint32_t size) : rank_(rank), size_(size) {}
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  uint32_t local_size() const override { return size_; }
  void exchange(const std::vector<std::vector<char>>&, std::vector<std::vector<char>>&) override {
    throw std::logic_error("construction made a collective call");
  }
  void all_gather(const void*, size_t, std::vector<char>&) override {
    throw std::logic_error("construction made a collective call");
  }

 private:
  uint32_t rank_, size_;
};

// A 3-tier k=16 fat-tree (1,024 hosts, 6,144 ports, 5.5 MB of PortQueues): big enough that a
// rank's share is many pages, with PFC (control frames cross cut cables).
constexpr const char* kYaml =
    "name: r\nseed: 1\nfabric: {technology: roce, link: {rate: 100Gbps, cable: 3m}, "
    "switch: {latency: 450ns, buffer: 8MiB}, pfc: {enabled: true}, roce: {mtu: 4000B}}\n"
    "topology: {kind: fat_tree, tiers: 3, radix: 16}\nhosts: {count: 1024}\n"
    "workload: {kind: pattern, pattern: permutation, flow_size: 100000B}\n";

scenario::Resolved resolved(int threads) {
  scenario::Scenario sc = scenario::load_scenario_string(kYaml, "r.yaml").scenario;
  sc.threads = threads;
  return scenario::resolve(sc);
}

size_t queue_array_bytes(const net::Network& net) {
  return net.num_ports() * sizeof(net::PortQueues);
}

TEST(RankRelease, OneProcessHoldsEveryTableAndEveryQueuePage) {
  scenario::Simulation sim(resolved(2));  // --threads 2, one process: nothing given back
  const net::Network& net = sim.network();
  ASSERT_EQ(sim.partitions(), 2u) << sim.partition_note();
  for (uint32_t sw = 0; sw < net.num_switches(); ++sw) {
    EXPECT_FALSE(net.switch_at(sw).group_ports.empty()) << "switch " << sw;
  }
  EXPECT_GE(resident_bytes(&net.queues(0), queue_array_bytes(net)), queue_array_bytes(net))
      << "every page of the queue state is resident";
  EXPECT_EQ(sim.released().queue_bytes, 0u);
}

struct Shape {
  uint32_t ranks, rank, threads;
};

class RankRelease : public testing::TestWithParam<Shape> {};

TEST_P(RankRelease, ARankHoldsOnlyWhatItsPartitionsTouch) {
  const Shape s = GetParam();
  StandInRanks ranks(s.rank, s.ranks);
  scenario::Simulation sim(resolved(static_cast<int>(s.threads)), &ranks);
  const net::Network& net = sim.network();
  const uint32_t n = s.ranks * s.threads;
  ASSERT_EQ(sim.partitions(), n) << sim.partition_note();
  const std::vector<uint16_t>& part = sim.port_partitions();
  ASSERT_EQ(part.size(), net.num_ports());
  auto owned = [&](uint32_t port) { return rank_of_partition(part[port], n, s.ranks) == s.rank; };

  // Forwarding state: exactly the owned switches'.
  uint32_t owned_switches = 0;
  for (uint32_t sw = 0; sw < net.num_switches(); ++sw) {
    const net::Switch& x = net.switch_at(sw);
    const bool mine = owned(x.first_port);
    owned_switches += mine;
    EXPECT_EQ(!x.group_ports.empty(), mine) << "switch " << sw << " (owned: " << mine << ")";
    EXPECT_EQ(!x.group_of_key.empty(), mine) << "switch " << sw;
  }
  EXPECT_GT(owned_switches, 0u);
  EXPECT_LT(owned_switches, net.num_switches());
  EXPECT_EQ(sim.released().switches, net.num_switches() - owned_switches);

  // Queue state: a port's entry must stay when it is a NIC's (the serial phase posts on every
  // NIC) or either end of its cable is owned. From the map alone: the pages an entry to keep
  // overlaps (and the array's partial first and last pages, shared with other allocations)
  // may be resident; every other page of the array, covered only by entries no one here
  // touches, must not be (mincore, page by page).
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto base = reinterpret_cast<uintptr_t>(&net.queues(0));
  const size_t entry = sizeof(net::PortQueues);
  const size_t total = queue_array_bytes(net);
  const uintptr_t first_page = base / page, end_page = (base + total + page - 1) / page;
  std::vector<uint8_t> may_stay(end_page - first_page, 0);
  may_stay.front() = may_stay.back() = 1;
  for (uint32_t p = 0; p < net.num_ports(); ++p) {
    if (!(net.port(p).is_nic || owned(p) || owned(net.port(p).peer))) continue;
    const uintptr_t a = base + p * entry;
    for (uintptr_t pg = a / page; pg <= (a + entry - 1) / page; ++pg) may_stay[pg - first_page] = 1;
  }
  size_t must_go = 0, still_resident = 0;
  for (uintptr_t pg = first_page; pg < end_page; ++pg) {
    if (may_stay[pg - first_page]) continue;
    ++must_go;
    still_resident += resident_bytes(reinterpret_cast<const void*>(pg * page), page) != 0;
  }
  EXPECT_GT(must_go * page, total / 8) << "a real share of the array can be given back";
  EXPECT_EQ(still_resident, 0u) << "of " << must_go << " pages no partition here touches";
  const size_t resident = resident_bytes(&net.queues(0), total);
  size_t may = 0;
  for (uint8_t m : may_stay) may += m;
  EXPECT_LE(resident, may * page);
  EXPECT_EQ(sim.released().queue_bytes, must_go * page) << "what it says it gave back";
}

INSTANTIATE_TEST_SUITE_P(Shapes, RankRelease,
                         testing::Values(Shape{2, 0, 1}, Shape{2, 1, 1}, Shape{3, 1, 1}, Shape{3, 2, 2}),
                         [](const testing::TestParamInfo<Shape>& info) {
                           return "ranks" + std::to_string(info.param.ranks) + "_rank" +
                                  std::to_string(info.param.rank) + "_threads" +
                                  std::to_string(info.param.threads);
                         });

}  // namespace fabricsim::rank_release_test
