// Resolution of an InfiniBand scenario: link generations, SL2VL and arbitration tables, and the
// Ethernet mechanisms an IB fabric refuses.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "resolve/infiniband.h"

namespace fabricsim::scenario {
namespace infiniband_test {

// 4x data rate from the per-lane signalling rate and the encoding (SPEC §8): EDR 64b/66b; HDR,
// NDR, XDR 256b/257b transcoding with RS(544,514) FEC.
double data_rate_gbps(double lane_gbps, bool pam4_fec) {
  return 4 * (pam4_fec ? lane_gbps * 514 / 544 * 256 / 257 : lane_gbps * 64 / 66);
}

TEST(IbGenerations, SetTheLinkRateToTheFourLaneDataRate) {
  const struct {
    IbGeneration g;
    double lane_gbps;
    bool pam4;
  } cases[] = {{IbGeneration::kEdr, 25.78125, false},
               {IbGeneration::kHdr, 53.125, true},
               {IbGeneration::kNdr, 106.25, true},
               {IbGeneration::kXdr, 212.5, true}};
  for (const auto& c : cases) {
    Scenario sc;
    sc.technology = Technology::kInfiniband;
    sc.ib.generation = c.g;
    apply_infiniband(sc);
    EXPECT_NEAR(static_cast<double>(sc.link.rate_bps), data_rate_gbps(c.lane_gbps, c.pam4) * 1e9,
                1e6)
        << ib_generation_info(c.g).name << " from " << c.lane_gbps << " Gb/s lanes";
  }
  Scenario roce;
  roce.ib.generation = IbGeneration::kNdr;
  const int64_t before = roce.link.rate_bps;
  apply_infiniband(roce);
  EXPECT_EQ(roce.link.rate_bps, before) << "a RoCE run ignores the IB generation";
}

TEST(IbTables, OpenSmDefaultsFoldOntoTheOperationalVls) {
  IbSpec ib;
  ib.link.data_vls = 2;
  const net::IbLinkConfig link = resolve_ib_link(ib);
  for (int sl = 0; sl < 16; ++sl) {
    EXPECT_EQ(link.sl_to_vl[sl], (sl == 15 ? 7 : sl) % 2) << "SL " << sl << ": 0,1,..,14,7 mod 2";
  }
  ASSERT_EQ(link.vlarb_high_count, 1) << "vlarb_high 0:4";
  EXPECT_EQ(link.vlarb_high[0].vl, 0);
  EXPECT_EQ(link.vlarb_high[0].weight, 4);
  ASSERT_EQ(link.vlarb_low_count, 1) << "vlarb_low 1:4 (VL 0 has weight 0 there)";
  EXPECT_EQ(link.vlarb_low[0].vl, 1);
}

TEST(IbTables, MalformedOrUnsendableTablesAreRefusedWithTheirKey) {
  auto key_of = [](IbSpec ib) {
    try {
      resolve_ib_link(ib);
    } catch (const InputError& e) {
      return e.key_path();
    }
    return std::string("(accepted)");
  };
  IbSpec ib;
  ib.link.data_vls = 2;
  ib.sl2vl = "0,1";
  EXPECT_EQ(key_of(ib), "fabric.ib.sl2vl") << "16 entries needed";
  ib.sl2vl = "0,1,2,0,0,0,0,0,0,0,0,0,0,0,0,0";
  EXPECT_EQ(key_of(ib), "fabric.ib.sl2vl") << "VL 2 is not operational with 2 data VLs";
  ib.sl2vl = "";
  ib.vlarb_high = "0:4;1:4";
  EXPECT_EQ(key_of(ib), "fabric.ib.vlarb_high") << "pairs are comma-separated";
  ib.vlarb_high = "0:4";
  ib.vlarb_low = "1:0";
  EXPECT_EQ(key_of(ib), "fabric.ib.vlarb_low") << "VL 1 is used by SL 1 but has no weight";
}

TEST(IbFabric, EthernetMechanismsAreRefused) {
  Scenario sc;
  sc.technology = Technology::kInfiniband;
  sc.switch_config.pfc.enabled = true;
  try {
    apply_infiniband(sc);
    FAIL() << "PFC on an IB fabric must be refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key_path(), "fabric.pfc.enabled") << e.what();
  }
}

}  // namespace infiniband_test
}  // namespace fabricsim::scenario
