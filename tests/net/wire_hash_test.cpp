// Frame sizes against SPEC §8 and the ECMP hash functions.
#include <gtest/gtest.h>

#include <set>

#include "net/hash.h"
#include "net/wire.h"

namespace fabricsim::net {
namespace wire_hash_test {

TEST(Wire, RoceDataOverheadIs82BytesPlusRethOnFirst) {
  EXPECT_EQ(roce_data_frame_bytes(4096, false, false) + kWireOnlyBytes, 4096u + 82u)
      << "8+12 preamble/IFG, 14 Eth, 20 IPv4, 8 UDP, 12 BTH, 4 ICRC, 4 FCS";
  EXPECT_EQ(roce_data_frame_bytes(4096, true, false), 4096u + 62u + 16u) << "RETH is 16 bytes";
  EXPECT_EQ(roce_data_frame_bytes(4096, false, true), 4096u + 62u + 4u) << "802.1Q adds 4";
  EXPECT_EQ(roce_ack_frame_bytes(false), 66u) << "BTH + AETH";
  EXPECT_EQ(roce_data_frame_bytes(1, false, false), 66u)
      << "1 payload byte + 3 BTH pad bytes: 62 + 4 = 66, above the 64-byte minimum";
  EXPECT_EQ(roce_frame_bytes(0, false), 64u) << "a BTH-only frame (62) is padded to 64";
}

TEST(Wire, GoodputAt400GMatchesSpec) {
  // SPEC §8: at 400 Gb/s with 4 KiB payloads goodput is capped near 49 GB/s.
  const double gbytes = 400e9 / 8 * 4096.0 / (4096 + 82) * 1e-9;
  EXPECT_NEAR(gbytes, 49.0, 0.1);
}

TEST(Hash, Crc32WithZeroSeedIsTheIeeeCrcOfTheTupleBytes) {
  // Reference values from zlib.crc32 over the big-endian bytes src_ip, dst_ip, protocol,
  // src_port, dst_port (Python: zlib.crc32(struct.pack('>IIBHH', ...))).
  EXPECT_EQ(crc32_tuple(FiveTuple{0, 0, 0, 0, 0}, 0), 0x0F744682u) << "13 zero bytes";
  EXPECT_EQ(crc32_tuple(FiveTuple{0x0A000001, 0x0A000002, 0xC123, 4791, 17}, 0), 0x8684F91Bu);
}

TEST(Hash, Crc32WithASeedIsZlibsCrcStartedFromThatValue) {
  // A seed is the CRC's starting value as zlib.crc32(data, seed) takes it (register ~seed, result
  // inverted). Random tuples and seeds (Python random.Random(7)), reference values from
  // zlib.crc32(struct.pack('>IIBHH', src_ip, dst_ip, protocol, src_port, dst_port), seed): every
  // byte position of the slicing-by-4 tables is exercised.
  struct Case {
    FiveTuple t;
    uint32_t seed, crc;
  };
  const Case cases[] = {
      {{0x52e6b438, 0xf2a74de4, 0x269e, 25875, 6}, 0x128b2f33, 0x23d08d3b},
      {{0xd23f0824, 0x892f902b, 0x1818, 23965, 6}, 0xe8e25d94, 0x901c1eb0},
      {{0x81e74ef5, 0x36f675cc, 0x0999, 5632, 17}, 0x6b0d549b, 0x60138818},
      {{0x11e20b8f, 0x3d9c1724, 0x1738, 36113, 17}, 0x0f21ddb6, 0x4226998c},
      {{0xd3ac94af, 0x90c192cf, 0x1fb1, 62092, 6}, 0xa170b338, 0xd4df30ea},
      {{0xa09f76b5, 0x953f48f1, 0xf29d, 4054, 17}, 0x0cb1e29c, 0xcbea9cdd},
  };
  for (const Case& c : cases) EXPECT_EQ(crc32_tuple(c.t, c.seed), c.crc) << std::hex << c.seed;
}

TEST(Hash, SeedsChangeTheSpreadAndSameSeedRepeats) {
  std::set<uint32_t> buckets_a, buckets_b;
  for (uint16_t sport = 0xC000; sport < 0xC000 + 64; ++sport) {
    const FiveTuple t{0x0A000001, 0x0A000002, sport, 4791, 17};
    EXPECT_EQ(crc32_tuple(t, 5), crc32_tuple(t, 5));
    buckets_a.insert(crc32_tuple(t, 1) % 4);
    buckets_b.insert(xor_fold_tuple(t, 1) % 4);
  }
  EXPECT_EQ(buckets_a.size(), 4u) << "64 source ports must reach all 4 CRC buckets";
  EXPECT_EQ(buckets_b.size(), 4u) << "and all 4 XOR-fold buckets";
  const FiveTuple t{0x0A000001, 0x0A000002, 0xC123, 4791, 17};
  EXPECT_NE(crc32_tuple(t, 1), crc32_tuple(t, 2)) << "the seed must matter";
}

}  // namespace wire_hash_test
}  // namespace fabricsim::net
