// Decoding Chakra execution traces (workload/chakra_format.h): ASTRA-sim's published .et files
// (tests/workload/data/chakra/README.md) decode to what was read from them byte by byte (hexdump
// and a throwaway script, recorded in docs/workloads.md), and damaged files are refused naming
// the file, the record and the byte.
#include "workload/chakra_format.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "chakra_trace_bytes.h"
#include "core/error.h"

namespace fabricsim::workload::chakra {
namespace chakra_format_test {

const std::string kDir = std::string(FABRICSIM_SOURCE_DIR) + "/tests/workload/data/chakra/";

TEST(ChakraFormat, AstraSimAllReduceMicrobenchmarkDecodes) {
  for (int r : {0, 1, 7}) {
    const Trace t = read_trace(kDir + "all_reduce." + std::to_string(r) + ".et", "training.file");
    EXPECT_EQ(t.version, "0.0.4");
    ASSERT_EQ(t.nodes.size(), 1u);
    const Node& n = t.nodes[0];
    // Rank 0's file leaves id out (proto3 does not write a zero); the others write their rank.
    EXPECT_EQ(n.id, static_cast<uint64_t>(r));
    EXPECT_EQ(n.name, "all_reduce_8npus_1MB");
    EXPECT_EQ(n.type, kCommCollNode);
    EXPECT_EQ(n.int_attr("comm_type", t.path, "k"), std::optional<int64_t>(kAllReduce));
    EXPECT_EQ(n.int_attr("comm_size", t.path, "k"), std::optional<int64_t>(1 << 20));
    EXPECT_EQ(n.int_attr("is_cpu_op", t.path, "k"), std::optional<int64_t>(0));
    ASSERT_NE(n.attr("is_cpu_op"), nullptr);
    EXPECT_EQ(n.attr("is_cpu_op")->field, 27u) << "bool_val";
    EXPECT_EQ(n.attr("comm_size")->field, 9u) << "int64_val";
    EXPECT_TRUE(n.data_deps.empty());
    EXPECT_TRUE(n.ctrl_deps.empty());
  }
  const Trace a2a = read_trace(kDir + "all_to_all.3.et", "training.file");
  ASSERT_EQ(a2a.nodes.size(), 1u);
  EXPECT_EQ(a2a.nodes[0].int_attr("comm_type", a2a.path, "k"), std::optional<int64_t>(kAllToAll));
}

TEST(ChakraFormat, AstraSimCustomRingAllReduceDecodes) {
  const Trace t = read_trace(kDir + "custom_allreduce.0.et", "training.file");
  EXPECT_TRUE(t.version.empty()) << "this converter writes the version as an attribute";
  ASSERT_EQ(t.metadata.size(), 3u);
  EXPECT_EQ(t.metadata[0].name, "schema");
  EXPECT_EQ(t.metadata[0].string_value, "1.0.2-chakra.0.0.4");
  std::map<int64_t, int> types;
  for (const Node& n : t.nodes) ++types[n.type];
  EXPECT_EQ(t.nodes.size(), 35u);
  EXPECT_EQ(types[kCommSendNode], 14);
  EXPECT_EQ(types[kCommRecvNode], 14);
  EXPECT_EQ(types[kCompNode], 7);
  // The chain starts: send to rank 1, receive from rank 7, reduce for 7 us.
  EXPECT_EQ(t.nodes[0].name, "COMM_SEND_NODE_tb0_step0");
  EXPECT_EQ(t.nodes[0].int_attr("comm_dst", t.path, "k"), std::optional<int64_t>(1));
  EXPECT_EQ(t.nodes[0].int_attr("comm_size", t.path, "k"), std::optional<int64_t>(131072));
  EXPECT_EQ(t.nodes[1].int_attr("comm_src", t.path, "k"), std::optional<int64_t>(7));
  EXPECT_EQ(t.nodes[1].data_deps, (std::vector<uint64_t>{0}));
  EXPECT_EQ(t.nodes[2].type, kCompNode);
  EXPECT_EQ(t.nodes[2].duration_micros, 7u);
}

std::string error_of(const std::string& bytes) {
  try {
    chakra_bytes::trace(bytes, "t.3.et");
  } catch (const ImportError& e) {
    EXPECT_EQ(e.file(), "t.3.et");
    EXPECT_EQ(e.key_path(), "training.file");
    return e.what();
  }
  return "accepted";
}

TEST(ChakraFormat, DamagedFilesAreRefusedNamingRecordAndByte) {
  using chakra_bytes::kMeta;
  EXPECT_EQ(error_of(""),
            "the GlobalMetadata record: byte 0: the file is empty (no GlobalMetadata record)");
  // Record 1 at byte 8: its id's varint 0x80 has its continuation bit set and the file ends.
  EXPECT_EQ(error_of(kMeta + "\x02\x08\x80"),
            "node record 1 (at byte 8): byte 10: truncated varint");
  // Record 2 claims 80 bytes; 3 are there.
  EXPECT_EQ(error_of(kMeta + chakra_bytes::rec("\x08\x01") + "\x50\x08\x02\x18"),
            "node record 2 (at byte 11): byte 12: a length of 80 bytes runs past the end (3 bytes "
            "left)");
  // Node.type (field 3) as a string: a known field on the wrong wire type.
  EXPECT_EQ(error_of(kMeta + chakra_bytes::rec("\x08\x01\x1a\x01x")),
            "node record 1 (at byte 8): byte 11: Node.type (field 3) has the wrong wire type 2");
  // An unknown field (15, varint) is skipped, as protobuf readers must.
  const Trace t = chakra_bytes::trace(kMeta + chakra_bytes::rec("\x08\x05\x78\x01\x18\x04"), "t");
  ASSERT_EQ(t.nodes.size(), 1u);
  EXPECT_EQ(t.nodes[0].id, 5u);
  EXPECT_EQ(t.nodes[0].type, kCompNode);
}

}  // namespace chakra_format_test
}  // namespace fabricsim::workload::chakra
