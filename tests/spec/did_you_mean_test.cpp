// "did you mean": the edit distance on hand-counted pairs, the closeness limit, and the loader's
// one-line messages for misspelt keys and enum values (spec/did_you_mean.h).
#include "spec/did_you_mean.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "spec/load.h"

namespace fabricsim::scenario {
namespace did_you_mean_test {

TEST(EditDistance, CountsEachEditOnce) {
  EXPECT_EQ(edit_distance("rate", "rate"), 0) << "equal words";
  EXPECT_EQ(edit_distance("", "rate"), 4) << "four insertions";
  EXPECT_EQ(edit_distance("rat", "rate"), 1) << "one insertion";
  EXPECT_EQ(edit_distance("rste", "rate"), 1) << "one substitution";
  EXPECT_EQ(edit_distance("layres", "layers"), 1) << "an adjacent swap costs 1, not 2";
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3) << "k->s, e->i, +g (the textbook pair)";
  EXPECT_EQ(edit_distance("ab", "ba"), 1) << "swap of a two-letter word";
  EXPECT_EQ(edit_distance("md5", "crc32"), 5) << "nothing in common: every position differs";
}

TEST(ClosestName, OnlyWhenClose) {
  const std::vector<std::string> link = {"rate", "cable", "loss_rate"};
  EXPECT_EQ(closest_name("rat", link), "rate") << "1 edit, limit max(1, 3/3) = 1";
  EXPECT_EQ(closest_name("colour", link), "") << "every key is more than 6/3 = 2 edits away";
  EXPECT_EQ(closest_name("los_rate", link), "loss_rate") << "1 edit from the longer key";
  EXPECT_EQ(closest_name("rate", link), "") << "an allowed name is not a typo";
  // "ab" -> "ac" and "ab" -> "ad" are both 1 edit: the earlier name wins, whatever the order of
  // the distances computed.
  EXPECT_EQ(closest_name("ab", {"ac", "ad"}), "ac");
  EXPECT_EQ(closest_name("ab", {"ad", "ac"}), "ad");
  // 9 letters allow 3 edits, 4 do not.
  EXPECT_EQ(closest_name("xxxrdrain", {"abcdrain"}), "") << "4 edits > 9/3";
  EXPECT_EQ(closest_name("xxxdrains", {"abcdrains"}), "abcdrains") << "3 edits <= 9/3";
}

std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    load_scenario_string(yaml, "s.yaml", sets);
  } catch (const LoadError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(DidYouMean, UnknownKeyNamesTheClosestAndKeepsTheList) {
  EXPECT_EQ(error_of("fabric:\n  link:\n    rat: 400Gbps\n"),
            "s.yaml:3: fabric.link.rat: unknown key 'rat'; did you mean 'rate'? allowed: rate, "
            "cable, loss_rate");
  const std::string layers = error_of("training:\n  layres: 32\n");
  EXPECT_EQ(layers.rfind("s.yaml:2: training.layres: unknown key 'layres'; did you mean 'layers'? "
                         "allowed: ",
                         0),
            0u)
      << layers;
  EXPECT_EQ(error_of("fabric: {link: {colour: red}}\n"),
            "s.yaml:1: fabric.link.colour: unknown key 'colour'; allowed: rate, cable, loss_rate")
      << "no suggestion when nothing is close";
  EXPECT_EQ(error_of("name: x\n", {"fabric.link.rat=1Gbps"}),
            "--set:1: fabric.link.rat: unknown key 'rat'; did you mean 'rate'? allowed: rate, "
            "cable, loss_rate")
      << "--set paths get the same hint";
}

TEST(DidYouMean, JobsAndVariantsKeys) {
  EXPECT_EQ(error_of("jobs:\n  - {name: a, node: 2, workload: {kind: collective}}\n"),
            "s.yaml:2: jobs[0].node: unknown key 'node'; did you mean 'nodes'? allowed: name, "
            "nodes, placement, workload, training");
  EXPECT_EQ(error_of("jobs:\n  - {name: a, nodes: 2, placement: scatered, workload: {kind: "
                     "collective}}\n"),
            "s.yaml:2: jobs[0].placement: expected one of: contiguous, scattered; did you mean "
            "'scattered'?");
  EXPECT_EQ(error_of("variants:\n  - {name: a, fabrik: ib}\n"),
            "s.yaml:2: variants[0].fabrik: unknown key 'fabrik'; did you mean 'fabric'? allowed: "
            "name, fabric, set");
  EXPECT_EQ(error_of("variants:\n  - {name: a, fabric: rocee}\n"),
            "s.yaml:2: variants[0].fabric: expected one of: roce, ib, uet, tcp, iwarp; did you "
            "mean 'roce'?");
}

TEST(DidYouMean, EnumValues) {
  EXPECT_EQ(error_of("routing: {ecmp: {hash: crc23}}\n"),
            "s.yaml:1: routing.ecmp.hash: must be one of: crc32, xor_fold; did you mean 'crc32'?")
      << "a swapped pair";
  EXPECT_EQ(error_of("routing: {ecmp: {hash: md5}}\n"),
            "s.yaml:1: routing.ecmp.hash: must be one of: crc32, xor_fold")
      << "nothing close: the message as before";
  EXPECT_EQ(error_of("fabric: {technology: infiniband}\n"),
            "s.yaml:1: fabric.technology: must be one of: roce, ib, uet, tcp, iwarp")
      << "'ib' is 8 edits from 'infiniband', over its limit of 3";
}

}  // namespace did_you_mean_test
}  // namespace fabricsim::scenario
