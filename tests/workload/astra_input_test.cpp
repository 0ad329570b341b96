// The ASTRA-sim 1.0 / SimAI importer (workload/astra_import.h): which text it accepts (whitespace
// variants give the same DAG, the same file the same DAG) and which it refuses, every refusal
// naming its line. The DAGs built from the published files are checked in astra_import_test.cpp.
#include "workload/astra_import.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/error.h"

#include "astra_dag.h"

namespace fabricsim::workload::astra_test {
namespace astra_input_test {

// --- what is accepted ---------------------------------------------------------------------------

TEST(AstraImport, AcceptsWhitespaceVariantsAndGivesTheSameDag) {
  const std::vector<std::string> layers = {"L0 -1 10 ALLGATHER 100 20 ALLREDUCE 200 30 NONE 0 1",
                                           "L1 -1 40 ALLGATHER 100 50 ALLREDUCE 200 60 NONE 0 1"};
  const std::string clean = "MODEL\n2\n" + layers[0] + "\n" + layers[1] + "\n";
  // Tabs and runs of separators, trailing whitespace, CRLF, blank lines anywhere.
  std::string messy = "\r\nMODEL\t\t \r\n2\t\t\t\r\n\r\n";
  for (const std::string& l : layers) {
    for (char c : l) messy += (c == ' ') ? std::string(" \t ") : std::string(1, c);
    messy += " \t\r\n\n";
  }
  const Dag a = import_astra(write_temp("clean", clean), options(8));
  const Dag b = import_astra(write_temp("messy", messy), options(8));
  ASSERT_EQ(a.ops.size(), b.ops.size());
  EXPECT_EQ(a.deps, b.deps);
  EXPECT_EQ(collectives(a).size(), 2u + 1u);
  EXPECT_EQ(collectives(b).size(), 2u + 1u);
  EXPECT_EQ(compute_ps(b, 3, Phase::kInputGrad), (20 + 50) * 1000);
}

TEST(AstraImport, SameFileSameDag) {
  const std::string path = kData + "Resnet50_DataParallel.txt";
  const Dag a = import_astra(path, options(32));
  const Dag b = import_astra(path, options(32));
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].kind, b.ops[i].kind);
    EXPECT_EQ(a.ops[i].rank, b.ops[i].rank);
    EXPECT_EQ(a.ops[i].duration_ps, b.ops[i].duration_ps);
    EXPECT_EQ(a.ops[i].first_dep, b.ops[i].first_dep);
    EXPECT_EQ(a.ops[i].num_deps, b.ops[i].num_deps);
  }
  EXPECT_EQ(a.deps, b.deps);
  EXPECT_EQ(a.groups, b.groups);
  EXPECT_EQ(a.name, "Resnet50_DataParallel.txt");
}

// --- what is refused, with its line
// ---------------------------------------------------------------

struct Refusal {
  const char* what;
  std::string text;
  int line;
  const char* message_part;
  AstraOptions opt = options(16);
};

TEST(AstraImport, RefusalsNameTheLine) {
  const std::string ok_layer = "L -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 1\n";
  const std::vector<Refusal> cases = {
      {"unknown policy", "PIPELINE\n1\n" + ok_layer, 1, "unknown parallelism policy"},
      {"unsupported policy", "HYBRID_CUSTOMIZED\n1\n" + ok_layer, 1, "not supported"},
      {"unknown key", "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 tp: 2\n1\n" + ok_layer, 1,
       "unknown header key"},
      {"key without colon glued", "HYBRID_TRANSFORMER model_parallel_NPU_group:8\n1\n" + ok_layer,
       1, "unknown header key"},
      {"key value not integer",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: eight\n1\n" + ok_layer, 1,
       "not a non-negative integer"},
      {"key without value", "HYBRID_TRANSFORMER model_parallel_NPU_group:\n1\n" + ok_layer, 1,
       "has no value"},
      {"key twice",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 model_parallel_NPU_group: 8\n1\n" + ok_layer,
       1, "twice"},
      {"key for another policy", "DATA ep: 2\n1\n" + ok_layer, 1, "applies to"},
      {"checkpoints without recomputation",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 checkpoints: 1 0\n1\n" + ok_layer, 1,
       "FWD_IN_BCKWD"},
      {"inference mode key",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 mode: 1\n1\n" + ok_layer, 1,
       "unknown header key"},
      {"transformer without group", "HYBRID_TRANSFORMER\n1\n" + ok_layer, 1,
       "model_parallel_NPU_group"},
      {"count not integer", "DATA\n1x\n" + ok_layer, 2, "number of layer lines"},
      {"count negative", "DATA\n-1\n" + ok_layer, 2, "number of layer lines"},
      {"count zero", "DATA\n0\n", 2, "no layers"},
      {"fewer layers", "DATA\n3\n" + ok_layer + ok_layer, 2, "announces 3 layers"},
      {"more layers", "DATA\n1\n" + ok_layer + "\n" + ok_layer, 5, "more layer lines"},
      {"11 fields", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64\n", 3, "12 fields"},
      {"13 fields", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 1 x\n", 3, "12 fields"},
      {"fractional cycles", "DATA\n1\nL -1 10.5 NONE 0 10 NONE 0 10 ALLREDUCE 64 1\n", 3,
       "field 3"},
      {"negative cycles", "DATA\n1\nL -1 10 NONE 0 -10 NONE 0 10 ALLREDUCE 64 1\n", 3, "field 6"},
      {"negative size", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE -64 1\n", 3, "field 11"},
      {"size with unit", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64KB 1\n", 3, "field 11"},
      {"negative delay", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 -1\n", 3, "field 12"},
      {"reserved not integer", "DATA\n1\nL x 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 1\n", 3,
       "field 2"},
      {"unknown comm type", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 BROADCAST 64 1\n", 3,
       "unknown comm type"},
      {"NONE with a suffix", "DATA\n1\nL -1 10 NONE_EP 0 10 NONE 0 10 ALLREDUCE 64 1\n", 3,
       "unknown comm type"},
      {"mixed collective", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCEALLTOALL 64 1\n", 3,
       "ALLREDUCEALLTOALL"},
      {"NONE with bytes", "DATA\n2\n" + ok_layer + "L -1 10 NONE 0 10 NONE 0 10 NONE 64 1\n", 4,
       "NONE"},
      {"DATA with forward comm",
       "DATA\n2\n" + ok_layer + "L -1 10 ALLREDUCE 8 10 NONE 0 10 NONE 0 1\n", 4, "never runs"},
      {"MODEL with weight-grad comm", "MODEL\n1\n" + ok_layer, 3, "never runs"},
      {"MICRO with two layers", "MICRO\n2\n" + ok_layer + ok_layer, 2, "exactly 1 layer"},
      {"all_gpus mismatch", "DATA all_gpus: 8\n1\n" + ok_layer, 1, "all_gpus"},
      {"group does not divide", "HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\n" + ok_layer, 1,
       "does not divide"},
      {"group larger than the job",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 32\n1\n" + ok_layer, 1, "does not divide"},
      {"pipeline without its message size",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 pp: 2\n1\n" + ok_layer, 1, "pp_comm"},
      {"pipeline stages that do not divide the GPUs",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 1 pp: 3 pp_comm: 1024\n1\n" + ok_layer, 1,
       "pp: 3"},
      {"interleaving with ga not a multiple of pp",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 pp: 2 vpp: 2 ga: 3 pp_comm: 1024\n1\n" +
           ok_layer,
       1, "ga: 3"},
      {"ga micro-batches not in the records",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 pp: 2 ga: 2 pp_comm: 1024\n2\n" +
           ok_layer + "M -1 10 NONE 0 10 NONE 0 10 ALLREDUCE 64 1\n",
       2, "repeated runs"},
      {"pipeline bytes without stages",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 8 pp: 1 pp_comm 1024\n1\n" + ok_layer, 1,
       "pp_comm"},
      {"ep does not divide DP",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 4 ep: 3\n1\n" + ok_layer, 1, "ep: 3"},
      {"EP type without ep",
       "HYBRID_TRANSFORMER model_parallel_NPU_group: 4\n2\n" + ok_layer +
           "L -1 10 ALLTOALL_EP 64 10 NONE 0 10 NONE 0 1\n",
       4, "ep: N"},
      {"EP type outside transformer", "DATA\n1\nL -1 10 NONE 0 10 NONE 0 10 ALLREDUCE_DP_EP 64 1\n",
       3, "_EP"},
      {"checkpoint past the end",
       "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 checkpoints: 1 5\n1\n" +
           ok_layer,
       1, "past the last layer"},
      {"initiator without checkpoint",
       "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 checkpoint_initiates: 1 "
       "1\n2\n" +
           ok_layer + ok_layer,
       1, "no checkpoint"},
      {"DLRM without bottom layer", "HYBRID_DLRM\n3\n" + ok_layer + ok_layer + ok_layer, 1,
       "last bottom"},
      {"empty file", "", 1, "empty"},
      {"no clock", "DATA\n1\n" + ok_layer, 1, "clock", options(16, 8, 0)},
  };
  for (const Refusal& c : cases) {
    const std::string path = write_temp("refuse", c.text);
    try {
      import_astra(path, c.opt);
      ADD_FAILURE() << c.what << ": accepted";
    } catch (const ImportError& e) {
      EXPECT_EQ(e.line(), c.line) << c.what << ": " << e.what();
      EXPECT_EQ(e.file(), path) << c.what;
      EXPECT_EQ(e.key_path(), "training.file") << c.what;
      EXPECT_NE(std::string(e.what()).find(c.message_part), std::string::npos)
          << c.what << ": " << e.what();
    }
  }
}

TEST(AstraImport, MissingFileIsLineZero) {
  try {
    import_astra(testing::TempDir() + "no_such_workload.txt", options(8));
    FAIL() << "accepted";
  } catch (const ImportError& e) {
    EXPECT_EQ(e.line(), 0);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos);
  }
}

}  // namespace astra_input_test
}  // namespace fabricsim::workload::astra_test
