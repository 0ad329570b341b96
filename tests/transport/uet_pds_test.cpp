// The UET receiver's PSN tracking (transport/uet_pds.h): cumulative point, bitmap window and the
// 64-bit SACK it reports (docs/reference/uet-sim.md §5; htsim UecSink::sackBitmapBase).
#include <gtest/gtest.h>

#include "transport/uet_pds.h"

namespace fabricsim {
namespace uet_pds_test {

using transport::UetRx;

TEST(UetRx, CumulativePointMovesOverEveryArrivedPsn) {
  UetRx r;
  r.mark(1, 128);
  r.mark(2, 128);
  EXPECT_EQ(r.cack, 0u) << "PSN 0 is missing";
  EXPECT_TRUE(r.has(2));
  EXPECT_FALSE(r.has(0));
  r.mark(0, 128);
  EXPECT_EQ(r.cack, 3u);
  EXPECT_EQ(r.high, 3u);
  EXPECT_TRUE(r.has(1)) << "below the cumulative point counts as arrived";
  // Far ahead within the window, around the bitmap's wrap.
  for (uint32_t p = 4; p < 130; ++p) r.mark(p, 128);
  EXPECT_EQ(r.cack, 3u);
  r.mark(3, 128);
  EXPECT_EQ(r.cack, 130u);
  EXPECT_FALSE(r.has(130));
}

TEST(UetRx, SackCoversTheSixtyFourPsnsEndingAtTheHighestArrival) {
  UetRx r;
  r.mark(5, 256);
  // Few arrivals: the bitmap starts at the cumulative point; bit i = PSN cack + i.
  EXPECT_EQ(r.sack_base(), 0u);
  EXPECT_EQ(r.sack_bits(0), 1ull << 5);
  // The highest arrival 100 PSNs ahead: base = high - 64 = 37, so PSN 100 is bit 63 and PSN 5
  // (arrived, but below the base) is not reported.
  r.mark(100, 256);
  EXPECT_EQ(r.sack_base(), 37u);
  EXPECT_EQ(r.sack_bits(37), 1ull << 63);
  r.mark(40, 256);
  EXPECT_EQ(r.sack_bits(37), (1ull << 63) | (1ull << 3));
}

}  // namespace uet_pds_test
}  // namespace fabricsim
