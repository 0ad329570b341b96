// Bad training settings are refused with the training.* key at fault, before any DAG is built.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"
#include "workload/transformer.h"

namespace fabricsim::workload {
namespace transformer_errors_test {

std::string key_of(const TransformerSpec& spec, uint32_t gpus) {
  try {
    make_transformer_step(spec, gpus);
  } catch (const InputError& e) {
    return e.key_path();
  }
  return "(accepted)";
}

TransformerSpec base() {
  TransformerSpec s;
  s.layers = 4;
  s.hidden = 256;
  s.heads = 8;
  s.seq_length = 64;
  s.vocab = 1000;
  return s;
}

TEST(TransformerErrors, NamesTheKeyAtFault) {
  struct Case {
    const char* what;
    std::function<void(TransformerSpec&)> edit;
    uint32_t gpus;
    const char* key;
  };
  const Case cases[] = {
      {"valid", [](TransformerSpec&) {}, 8, "(accepted)"},
      {"tp does not divide the heads", [](TransformerSpec& s) { s.tp = 3; }, 6, "training.tp"},
      {"tp does not divide the GPUs", [](TransformerSpec& s) { s.tp = 4; }, 6, "training.tp"},
      {"pp does not divide the layers", [](TransformerSpec& s) { s.pp = 3; }, 6, "training.pp"},
      {"tp x pp does not divide the GPUs",
       [](TransformerSpec& s) {
         s.tp = 2;
         s.pp = 2;
       },
       6, "training.pp"},
      {"tp x pp x dp is not the GPUs", [](TransformerSpec& s) { s.dp = 3; }, 8, "training.dp"},
      {"heads do not divide hidden", [](TransformerSpec& s) { s.heads = 7; }, 8, "training.heads"},
      {"ep does not divide dp",
       [](TransformerSpec& s) {
         s.ep = 3;
         s.moe_experts = 6;
       },
       8, "training.ep"},
      {"ep without experts", [](TransformerSpec& s) { s.ep = 2; }, 8, "training.ep"},
      {"experts do not split over ep",
       [](TransformerSpec& s) {
         s.ep = 4;
         s.moe_experts = 6;
       },
       8, "training.moe.experts"},
      {"top_k above the experts",
       [](TransformerSpec& s) {
         s.moe_experts = 2;
         s.moe_top_k = 3;
       },
       8, "training.moe.top_k"},
      {"global batch not a multiple", [](TransformerSpec& s) { s.global_batch = 12; }, 8,
       "training.global_batch"},
      {"unknown GPU", [](TransformerSpec& s) { s.gpu = "v100"; }, 8, "training.gpu"},
      {"efficiency above 1", [](TransformerSpec& s) { s.efficiency = 1.5; }, 8,
       "training.efficiency"},
      {"zero layers", [](TransformerSpec& s) { s.layers = 0; }, 8, "training.layers"},
      {"hidden beyond the exact range", [](TransformerSpec& s) { s.hidden = (1 << 20) + 8; }, 8,
       "training.hidden"},
      {"a step of more than 2^28 ops",
       [](TransformerSpec& s) {
         s.layers = 96;
         s.micro_batches = 100'000;
       },
       8, "training.micro_batches"},
      {"the same through the global batch",
       [](TransformerSpec& s) {
         s.layers = 96;
         s.global_batch = 800'000;
       },
       8, "training.global_batch"},
  };
  for (const Case& c : cases) {
    TransformerSpec spec = base();
    c.edit(spec);
    EXPECT_EQ(key_of(spec, c.gpus), c.key) << c.what;
  }
}

TEST(TransformerErrors, GlobalBatchSetsTheMicroBatches) {
  TransformerSpec spec = base();
  spec.micro_batch = 2;
  spec.global_batch = 64;
  const TransformerStep step = make_transformer_step(spec, 8);  // dp = 8
  EXPECT_EQ(step.dp, 8);
  EXPECT_EQ(step.micro_batches, 64 / (2 * 8));
}

}  // namespace transformer_errors_test
}  // namespace fabricsim::workload
