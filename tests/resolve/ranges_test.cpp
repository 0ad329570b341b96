// Time and size arithmetic that cannot overflow silently (issue 9 item 4): every scenario either
// is refused before simulating, naming the key, or runs correctly. The limits are the integers
// the simulator keeps (int64 ps bounded by the 10^6 s horizon, uint32 PSNs and message ids);
// each expectation below is derived by hand from the workload's definition.
#include "resolve/resolve.h"
#include "resolve/ranges.h"

#include <gtest/gtest.h>

#include <string>

#include "core/checked.h"
#include "core/error.h"
#include "spec/load.h"
#include "engine/run.h"

namespace fabricsim::scenario {
namespace ranges_test {

// "key: message" of resolve()'s InputError, "" when the scenario passes.
std::string refusal(const std::string& yaml) {
  const LoadedScenario loaded = load_scenario_string(yaml, "s.yaml");
  try {
    (void)resolve(loaded.scenario);
  } catch (const InputError& e) {
    return e.key_path() + ": " + e.what();
  }
  return "";
}

TEST(Ranges, CollectiveTimeBeyondTheHorizonNamesTheSize) {
  // Ring all-reduce of S on n ranks: each rank sends 2(n-1) x S/n. 1 TiB on 16 ranks at
  // 1 Mb/s: 30 x 2^36 B x 8 / 1e6 = 1.65e7 s > 1e6 s.
  const std::string yaml = "hosts: {count: 16}\nworkload: {size: 1024GiB}\n";
  EXPECT_EQ(refusal(yaml + "fabric: {link: {rate: 1Mbps}}\n"),
            "workload.size: needs at least 1.65e+07 s of simulated time (2061584302080 B through "
            "one NIC at 1.000 Mbps); the simulator's horizon is 1000000s (int64 picoseconds)");
  // At 400 Gb/s the same bytes take 41 s, and a QP carries 2.06e12 / 4096 = 5.0e8 packets.
  EXPECT_EQ(refusal(yaml), "") << "the same size at 400 Gb/s is within every limit";
}

TEST(Ranges, PacketsOfOneQpMustFitIn32BitPsns) {
  // 2 ranks: the QP 0->1 carries 2 steps x 2^39 B; at MTU 256 B that is 2 x 2^31 packets plus
  // one rounding packet per 512 KiB slice (2 x 2^20), above 2^32 - 1. At MTU 512 B it is half.
  const std::string yaml = "hosts: {count: 2}\nworkload: {size: 1024GiB}\n";
  EXPECT_EQ(refusal(yaml + "fabric: {roce: {mtu: 256B}}\n"),
            "workload.size: 4297064448 packets of 256 B between one pair of NICs are too many; "
            "a QP numbers its packets in 32 bits (at most 4294967295)");
  EXPECT_EQ(refusal(yaml + "fabric: {roce: {mtu: 512B}}\n"), "");
}

TEST(Ranges, MessageIdsMustFitIn32Bits) {
  // 1-byte slices: 128 ranks x 254 steps x 524288 slices (512 KiB chunks) = 1.7e10 messages.
  EXPECT_EQ(refusal("workload: {size: 64MiB, slice: 1B}\n"),
            "workload.slice: the workload posts 17045651456 messages; message ids are 32-bit "
            "(at most 4294967295)");
  // All-to-all posts n(n-1): 65536 x 65535 = 4294901760 fits, 65537 x 65536 does not.
  const std::string a2a =
      "topology: {tiers: 3, radix: 66}\nworkload: {kind: pattern, pattern: all_to_all, "
      "flow_size: 4KiB}\n";
  EXPECT_EQ(refusal(a2a + "hosts: {count: 65536}\n"), "");
  EXPECT_EQ(refusal(a2a + "hosts: {count: 65537}\n"),
            "hosts.count: the workload posts 4295032832 messages; message ids are 32-bit (at "
            "most 4294967295)");
}

TEST(Ranges, PoissonCountAndDuration) {
  // 16 NICs offering 400 Gb/s of 64-byte flows for 1 s: 16 x 5e10 / 64 = 1.25e10 flows.
  const std::string poisson =
      "hosts: {count: 16}\nworkload: {kind: pattern, pattern: poisson, load: 1, flow_size: 64B, ";
  EXPECT_EQ(refusal(poisson + "duration: 1s}\n"),
            "workload.duration: the workload posts an expected 12500000000 messages; message ids "
            "are 32-bit (at most 4294967295)");
  EXPECT_EQ(refusal(poisson + "duration: 1ms}\n"), "") << "1.25e7 flows";
  // Arrivals up to the horizon, then the last flow's bytes: past it.
  EXPECT_EQ(refusal("hosts: {count: 16}\nworkload: {kind: pattern, pattern: poisson, load: "
                    "1e-9, flow_size: 1MiB, duration: 1000000s}\n")
                .rfind("workload.duration: needs at least 1e+06 s", 0),
            0u);
}

TEST(Ranges, IncastAndFlowListTimes) {
  // 15 senders x 1 GiB into one receiver at 1 Mb/s: 15 x 2^30 x 8 / 1e6 = 1.29e5 s, fine;
  // 15 x 100 GiB = 1.29e7 s, refused.
  const std::string incast =
      "hosts: {count: 16}\nfabric: {link: {rate: 1Mbps}}\nworkload: {kind: pattern, pattern: "
      "incast, senders: 15, flow_size: ";
  EXPECT_EQ(refusal(incast + "1GiB}\n"), "");
  EXPECT_EQ(refusal(incast + "100GiB}\n").rfind("workload.flow_size: needs at least 1.29e+07 s", 0),
            0u);
  // A 1 GB flow at 1 Mb/s lasts 8000 s; started at 999999 s it ends past the horizon.
  const std::string flows =
      "hosts: {count: 16}\nfabric: {link: {rate: 1Mbps}}\nworkload: {kind: pattern, pattern: "
      "flows, flows: [[0, 1, 1KB, 0s], [2, 3, 1GB, ";
  EXPECT_EQ(refusal(flows + "999999s]]}\n"),
            "workload.flows[1]: this flow cannot end before 1.01e+06 s (its start plus its size "
            "at 1.000 Mbps); the simulator's horizon is 1000000s (int64 picoseconds)");
  EXPECT_EQ(refusal(flows + "990000s]]}\n"), "");
}

TEST(Ranges, KeysAreBoundedByTheRegistry) {
  auto load_error = [](const std::string& yaml) {
    try {
      load_scenario_string(yaml, "s.yaml");
    } catch (const LoadError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(load_error("fabric: {link: {rate: 1bps}}\n"),
            "s.yaml:1: fabric.link.rate: must be between 1Mbps and 100Tbps")
      << "issue 9 item 4: 1 bps made a PAUSE last 3.4e19 ps, past int64";
  EXPECT_EQ(load_error("stop_time: 1000001s\n"),
            "s.yaml:1: stop_time: must be between 0 and 1000000s");
  EXPECT_EQ(load_error("workload: {size: 1025GiB}\n"),
            "s.yaml:1: workload.size: must be in (0, 1024GiB]");
  EXPECT_EQ(load_error("fabric: {nic: {doorbell: 1001ms}}\n"),
            "s.yaml:1: fabric.nic.doorbell: must be between 0 and 1s")
      << "a dozen per-hop latencies are summed into an ideal FCT";
  EXPECT_EQ(load_error("fabric: {ib: {hoq_lifetime: 3s}}\n"),
            "s.yaml:1: fabric.ib.hoq_lifetime: must be in (0, 2.147483648s]")
      << "4.096 us x 2^19, the largest finite HOQLife";
  EXPECT_EQ(load_error("fabric: {link: {cable: 20001km}}\n"),
            "s.yaml:1: fabric.link.cable: must be between 0 and 20000km");
}

}  // namespace ranges_test
}  // namespace fabricsim::scenario
