// The Chakra importer (workload/chakra_import.h): ASTRA-sim's published traces become the DAG
// their nodes describe (counts and sizes as decoded byte by byte, tests/workload/data/chakra), a
// two-rank trace written out here by hand checks dependencies, durations and send/receive
// pairing, and every node the importer cannot represent is refused naming its file and node.
#include "workload/chakra_import.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "chakra_trace_bytes.h"
#include "core/error.h"

namespace fabricsim::workload {
namespace chakra_import_test {

using chakra_bytes::int32_attr;
using chakra_bytes::kMeta;
using chakra_bytes::kSize4096;
using chakra_bytes::rec;

const std::string kDir = std::string(FABRICSIM_SOURCE_DIR) + "/tests/workload/data/chakra/";

ChakraOptions opts(uint32_t gpus) {
  ChakraOptions o;
  o.gpus = gpus;
  return o;
}

std::vector<uint32_t> deps_of(const Dag& d, uint32_t op) {
  const DagOp& o = d.ops.at(op);
  return {d.deps.begin() + o.first_dep, d.deps.begin() + o.first_dep + o.num_deps};
}

TEST(ChakraImport, AllReduceMicrobenchmarkIsOneAllReduceOfOneMiBOverEightRanks) {
  const Dag d = import_chakra(kDir + "all_reduce", opts(8));
  EXPECT_EQ(d.name, "all_reduce");
  EXPECT_EQ(d.ranks, 8u);
  ASSERT_EQ(d.ops.size(), 1u) << "the eight ranks' nodes are one collective";
  ASSERT_EQ(d.collectives.size(), 1u);
  EXPECT_EQ(d.ops[0].kind, DagOp::Kind::kCollective);
  EXPECT_EQ(d.ops[0].num_deps, 0u);
  const DagCollective& c = d.collectives[0];
  EXPECT_EQ(c.op, CollOp::kAllReduce);
  EXPECT_EQ(c.size_bytes, 1'048'576) << "comm_size: each rank's 1 MiB buffer";
  EXPECT_EQ(d.groups.at(c.group), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(ChakraImport, AllToAllMicrobenchmarkIsOneAllToAll) {
  const Dag d = import_chakra(kDir + "all_to_all", opts(8));
  ASSERT_EQ(d.collectives.size(), 1u);
  EXPECT_EQ(d.collectives[0].op, CollOp::kAllToAll);
  EXPECT_EQ(d.collectives[0].size_bytes, 1'048'576);
}

// The MSCCL ring as point-to-point messages: per rank 14 sends of 131,072 B to rank+1 and 7
// reductions of 7 us; every receive pairs with its neighbour's send, so 8 x 14 messages.
TEST(ChakraImport, CustomRingAllReduceBecomesItsMessagesAndReductions) {
  const Dag d = import_chakra(kDir + "custom_allreduce", opts(8));
  int sends = 0, computes = 0;
  for (uint32_t i = 0; i < d.ops.size(); ++i) {
    const DagOp& op = d.ops[i];
    if (op.kind == DagOp::Kind::kCompute) {
      ++computes;
      EXPECT_EQ(op.duration_ps, 7'000'000);
      continue;
    }
    ++sends;
    const DagCollective& c = d.collectives[op.collective];
    EXPECT_EQ(c.op, CollOp::kSend);
    EXPECT_EQ(c.size_bytes, 131'072);
    const std::vector<uint32_t>& g = d.groups[c.group];
    ASSERT_EQ(g.size(), 2u);
    EXPECT_EQ(g[1], (g[0] + 1) % 8) << "each rank sends to the next";
  }
  EXPECT_EQ(sends, 8 * 14);
  EXPECT_EQ(computes, 8 * 7);
  for (uint32_t i = 0; i < d.ops.size(); ++i)
    for (uint32_t dep : deps_of(d, i)) EXPECT_LT(dep, i);
}

// Two ranks, written out byte by byte:
//   rank 0: node 1 "a" COMP 5 us; node 2 "b" COMP 3 us, ctrl_deps [1];
//           node 3 "s" SEND to rank 1, 4096 B, tag 7, data_deps [2]
//   rank 1: node 1 "c" COMP 2 us; node 2 "r" RECV from rank 0, 4096 B, tag 7 (no deps);
//           node 3 "d" COMP 4 us, data_deps [2], ctrl_deps [1]
// Rank 1's file lists the receive before rank 0's send exists: pairing must not depend on order.
const std::string kRank0 = kMeta +
                           rec("\x08\x01\x12\x01"
                               "a"
                               "\x18\x04\x38\x05") +
                           rec("\x08\x02\x12\x01"
                               "b"
                               "\x18\x04\x22\x01\x01\x38\x03") +
                           rec("\x08\x03\x12\x01"
                               "s"
                               "\x18\x05\x2a\x01\x02" +
                               kSize4096 + int32_attr("comm_dst", 1) + int32_attr("comm_tag", 7));
const std::string kRank1 = kMeta +
                           rec("\x08\x01\x12\x01"
                               "c"
                               "\x18\x04\x38\x02") +
                           rec("\x08\x02\x12\x01"
                               "r"
                               "\x18\x06" +
                               kSize4096 + int32_attr("comm_src", 0) + int32_attr("comm_tag", 7)) +
                           rec("\x08\x03\x12\x01"
                               "d"
                               "\x18\x04\x22\x01\x01\x2a\x01\x02\x38\x04");

Dag build(const std::string& r0, const std::string& r1) {
  return build_chakra_dag({chakra_bytes::trace(r0, "t.0.et"), chakra_bytes::trace(r1, "t.1.et")},
                          opts(2), "t");
}

TEST(ChakraImport, HandWrittenTraceDependenciesDurationsAndPairing) {
  const Dag d = build(kRank0, kRank1);
  ASSERT_EQ(d.ops.size(), 5u) << "four computes and one message; the receive is no op";
  auto find_compute = [&](uint32_t rank, int64_t ps) {
    for (uint32_t i = 0; i < d.ops.size(); ++i)
      if (d.ops[i].kind == DagOp::Kind::kCompute && d.ops[i].rank == rank &&
          d.ops[i].duration_ps == ps)
        return i;
    ADD_FAILURE() << "no " << ps << " ps compute on rank " << rank;
    return 0u;
  };
  const uint32_t a = find_compute(0, 5'000'000), b = find_compute(0, 3'000'000);
  const uint32_t c = find_compute(1, 2'000'000), dd = find_compute(1, 4'000'000);
  uint32_t msg = 0;
  for (uint32_t i = 0; i < d.ops.size(); ++i)
    if (d.ops[i].kind == DagOp::Kind::kCollective) msg = i;
  const DagCollective& m = d.collectives.at(d.ops[msg].collective);
  EXPECT_EQ(m.op, CollOp::kSend);
  EXPECT_EQ(m.size_bytes, 4096);
  EXPECT_EQ(d.groups.at(m.group), (std::vector<uint32_t>{0, 1})) << "rank 0 -> rank 1";
  EXPECT_TRUE(deps_of(d, a).empty());
  EXPECT_EQ(deps_of(d, b), std::vector<uint32_t>{a}) << "ctrl_deps order b after a";
  EXPECT_EQ(deps_of(d, msg), std::vector<uint32_t>{b}) << "data_deps: the send waits for b only";
  const std::vector<uint32_t> want_d = {std::min(c, msg), std::max(c, msg)};
  EXPECT_EQ(deps_of(d, dd), want_d) << "d waits for the message (via the receive) and for c";
}

std::string refusal(const std::string& r0, const std::string& r1) {
  try {
    build(r0, r1);
  } catch (const ImportError& e) {
    EXPECT_EQ(e.key_path(), "training.file");
    return e.file() + ": " + e.what();
  }
  return "accepted";
}

TEST(ChakraImport, WhatCannotBeMappedIsRefusedNamingTheNode) {
  const std::string comp1 =
      rec("\x08\x01\x12\x01"
          "c"
          "\x18\x04\x38\x02");
  // node type 42
  EXPECT_EQ(refusal(kMeta + rec("\x08\x09\x12\x01"
                                "x"
                                "\x18\x2a"),
                    kMeta),
            "t.0.et: node 9 (x): node type 42 (an unknown node type) is not simulated (ASTRA-sim "
            "runs compute, communication, memory and metadata nodes only)");
  // MEM_LOAD_NODE: no memory model
  EXPECT_NE(refusal(kMeta, kMeta + rec("\x08\x04\x12\x01"
                                       "m"
                                       "\x18\x02"))
                .find("t.1.et: node 4 (m): MEM_LOAD_NODE: ASTRA-sim hands tensor_size bytes"),
            std::string::npos);
  // a send without comm_size
  EXPECT_EQ(refusal(kMeta + rec("\x08\x03\x12\x01"
                                "s"
                                "\x18\x05" +
                                int32_attr("comm_dst", 1)),
                    kMeta),
            "t.0.et: node 3 (s): no comm_size attribute");
  // a dependency on a node the trace does not have
  EXPECT_EQ(refusal(kMeta + rec("\x08\x01\x12\x01"
                                "a"
                                "\x18\x04\x2a\x01\x09"),
                    kMeta),
            "t.0.et: node 1 (a): depends on node 9, which the trace does not have");
  // a cycle: 1 after 2, 2 after 1
  EXPECT_EQ(refusal(kMeta, kMeta +
                               rec("\x08\x01\x12\x01"
                                   "a"
                                   "\x18\x04\x2a\x01\x02") +
                               rec("\x08\x02\x12\x01"
                                   "b"
                                   "\x18\x04\x22\x01\x01")),
            "t.1.et: node 1 (a): lies on a dependency cycle");
  // a receive nobody sends
  EXPECT_EQ(refusal(kMeta, kMeta + comp1 +
                               rec("\x08\x02\x12\x01"
                                   "r"
                                   "\x18\x06" +
                                   kSize4096 + int32_attr("comm_src", 0))),
            "t.1.et: node 2 (r): a receive from rank 0 (tag 0) that no send of that rank's "
            "trace matches");
  // a send nobody receives
  EXPECT_EQ(refusal(kRank0, kMeta + comp1),
            "t.0.et: node 3 (s): a send to rank 1 (tag 7) that rank's trace never receives");
  // a CPU compute operator (is_cpu_op bool_val, field 27: key d8 01)
  EXPECT_NE(refusal(kMeta + rec("\x08\x01\x12\x01"
                                "a"
                                "\x18\x04\x38\x01"
                                "\x52\x0e\x0a\x09"
                                "is_cpu_op"
                                "\xd8\x01\x01"),
                    kMeta)
                .find("t.0.et: node 1 (a): a CPU operator"),
            std::string::npos);
}

// Collectives: each rank's node 1 is an ALL_GATHER of comm_size 4096 (each rank's input,
// ASTRA-sim's reading) in process group "5"; node 2 a METADATA_NODE after it; node 3 a 1 us
// COMP_NODE after the metadata node. comm_type int64_val 2 is 48 02; pg_name string_val
// (field 29) is key ea 01.
const std::string kAllGather =
    "\x52\x0d\x0a\x09"
    "comm_type"
    "\x48\x02";
// Its value 0 is a NUL byte: the length is given so the literal is not cut there.
const std::string kAllReduce(
    "\x52\x0d\x0a\x09"
    "comm_type"
    "\x48\x00",
    15);
const std::string kPg5 =
    "\x52\x0d\x0a\x07"
    "pg_name"
    "\xea\x01\x01"
    "5";
std::string coll_rank(const std::string& type, const std::string& pg) {
  return kMeta +
         rec("\x08\x01\x12\x01"
             "g"
             "\x18\x07" +
             kSize4096 + type + pg) +
         rec("\x08\x02\x12\x01"
             "m"
             "\x18\x01\x2a\x01\x01") +
         rec("\x08\x03\x12\x01"
             "c"
             "\x18\x04\x2a\x01\x02\x38\x01");
}

TEST(ChakraImport, CollectivesJoinTheRanksAndMetadataNodesPassDependenciesOn) {
  const Dag d = build(coll_rank(kAllGather, kPg5), coll_rank(kAllGather, kPg5));
  ASSERT_EQ(d.ops.size(), 3u) << "one all-gather, one compute per rank; metadata is no op";
  ASSERT_EQ(d.collectives.size(), 1u);
  const DagCollective& c = d.collectives[0];
  EXPECT_EQ(c.op, CollOp::kAllGather);
  EXPECT_EQ(c.size_bytes, 2 * 4096) << "the DAG's all-gather size is the gathered total";
  EXPECT_EQ(d.groups.at(c.group), (std::vector<uint32_t>{0, 1})) << "pg '5': the ranks using it";
  for (uint32_t i = 0; i < d.ops.size(); ++i) {
    if (d.ops[i].kind != DagOp::Kind::kCompute) continue;
    EXPECT_EQ(d.ops[i].duration_ps, 1'000'000);
    ASSERT_EQ(deps_of(d, i).size(), 1u);
    EXPECT_EQ(d.ops[deps_of(d, i)[0]].kind, DagOp::Kind::kCollective)
        << "the compute waits for the all-gather through the metadata node";
  }
  EXPECT_EQ(refusal(coll_rank(kAllGather, kPg5), coll_rank(kAllReduce, kPg5)),
            "t.1.et: node 1 (g): collective #0 of its group is ALL_REDUCE of 4096 B, but rank "
            "0's node 1 (g) is ALL_GATHER of 4096 B");
  EXPECT_EQ(refusal(coll_rank(kAllGather, ""), kMeta),
            "t.0.et: node 1 (g): collective #0 of process group '' waits for rank 1, which never "
            "issues its match (its trace has fewer, or they wait on each other)");
  EXPECT_EQ(refusal(coll_rank(kAllGather, kPg5), kMeta),
            "t.0.et: node 1 (g): a collective over one rank");
}

TEST(ChakraImport, RankFilesMustMatchTheScenarioGpus) {
  try {
    import_chakra(kDir + "all_reduce", opts(16));
    ADD_FAILURE() << "16 GPUs accepted for an 8-rank trace";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.file(), kDir + "all_reduce.8.et");
    EXPECT_NE(std::string(e.what()).find("missing: the scenario has 16 GPUs"), std::string::npos)
        << e.what();
  }
  try {
    import_chakra(kDir + "all_reduce", opts(4));
    ADD_FAILURE() << "4 GPUs accepted for an 8-rank trace";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.file(), kDir + "all_reduce.4.et");
    EXPECT_EQ(std::string(e.what()), "the trace has more ranks than the scenario's 4 GPUs");
  }
}

}  // namespace chakra_import_test
}  // namespace fabricsim::workload
