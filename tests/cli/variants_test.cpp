// compare with variants: one column per named run; a variant's bad override is reported at its
// own line; --fabrics is refused beside variants.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "../support/cli_runner.h"

namespace variants_test {

namespace fs = std::filesystem;
using fabricsim::test_support::read_file;
using fabricsim::test_support::split_lines;

class VariantsTest : public fabricsim::test_support::CliFixture {
 protected:
  VariantsTest() : CliFixture("variants") {}
};

constexpr const char* kFile =
    "name: variants\n"
    "fabric: {link: {rate: 100Gbps}}\n"
    "topology: {kind: leaf_spine, radix: 4}\n"
    "hosts: {count: 4}\n"
    "workload: {kind: pattern, pattern: permutation, flow_size: 64KB}\n"
    "outputs: {steady_window: true}\n"
    "variants:\n"
    "  - {name: plain, fabric: roce}\n"
    "  - {name: small-mtu, fabric: roce, set: [fabric.roce.mtu=1024B]}\n"
    "  - {name: ib, fabric: ib}\n";

TEST_F(VariantsTest, OneColumnPerVariantInFileOrder) {
  const std::string file = write("v.yaml", kFile);
  const auto o = run("compare '" + file + "' --out '" + (dir_ / "out").string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::string header;
  for (const std::string& l : split_lines(o.out)) {
    if (l.rfind("  fabric ", 0) == 0) header = l;
  }
  const size_t a = header.find("plain"), b = header.find("small-mtu"), c = header.find(" ib");
  ASSERT_NE(a, std::string::npos) << o.out;
  ASSERT_NE(b, std::string::npos) << o.out;
  ASSERT_NE(c, std::string::npos) << o.out;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_NE(o.out.find("goodput mean (steady)"), std::string::npos) << o.out;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "small-mtu" / "result.json"));
  // The override reached its run: a 1 KiB MTU sends four times the packets of the 4 KiB one.
  const auto plain = read_file(dir_ / "out" / "plain" / "result.json");
  const auto small = read_file(dir_ / "out" / "small-mtu" / "result.json");
  EXPECT_NE(plain, small);
}

TEST_F(VariantsTest, ABadOverrideIsReportedAtItsLine) {
  std::string text = kFile;
  text.replace(text.find("fabric.roce.mtu=1024B"), 21, "fabric.roce.mtu=12B");
  const std::string file = write("v.yaml", text);
  const auto o = run("compare '" + file + "'");
  EXPECT_EQ(o.exit_code, 2);
  ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
  EXPECT_EQ(o.err_lines[0].rfind(file + ":9: fabric.roce.mtu: ", 0), 0u) << o.err_lines[0];
  EXPECT_EQ(o.out, "");
}

TEST_F(VariantsTest, FabricsBesideVariantsIsRefused) {
  const std::string file = write("v.yaml", kFile);
  const auto o = run("compare '" + file + "' --fabrics ib,roce");
  EXPECT_EQ(o.exit_code, 2);
  ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
  EXPECT_NE(o.err_lines[0].find("--fabrics"), std::string::npos);
}

// Issue 23 item 6: variants on different switches get one topology line each in compare's
// header, named, each as that run's result.json describes its topology.
TEST_F(VariantsTest, HeaderStatesEachVariantsTopology) {
  std::string text = kFile;
  text = text.substr(0, text.find("variants:\n")) +
         "variants:\n"
         "  - {name: radix4, fabric: roce}\n"
         "  - {name: radix8, fabric: roce, set: [topology.radix=8]}\n";
  const std::string file = write("v.yaml", text);
  const fs::path out = dir_ / "topo";
  const auto o = run("compare '" + file + "' --out '" + out.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  auto described = [&](const std::string& name) {
    const nlohmann::json t = nlohmann::json::parse(read_file(out / name / "result.json"))["topology"];
    return t["description"].get<std::string>() + ": " + std::to_string(t["hosts"].get<int>()) +
           " hosts, " + std::to_string(t["nics"].get<int>()) + " NICs, " +
           std::to_string(t["switches"].get<int>()) + " switches, " +
           std::to_string(t["links"].get<int>()) + " links";
  };
  const std::string four = described("radix4"), eight = described("radix8");
  EXPECT_NE(four, eight) << "the override changed the switches";
  const std::vector<std::string> lines = split_lines(o.out);
  ASSERT_GE(lines.size(), 3u) << o.out;
  EXPECT_EQ(lines[1], "  topology   radix4  " + four) << o.out;
  EXPECT_EQ(lines[2], "             radix8  " + eight) << o.out;

  // The same shape for every run stays one unnamed line.
  const auto same = run("compare '" + file + "' --out '" + (dir_ / "same").string() +
                        "' --set topology.radix=8");
  ASSERT_EQ(same.exit_code, 0) << same.err;
  const std::vector<std::string> same_lines = split_lines(same.out);
  ASSERT_GE(same_lines.size(), 3u) << same.out;
  EXPECT_EQ(same_lines[1], "  topology   " + eight) << same.out;
  EXPECT_EQ(same_lines[2].rfind("  workload   ", 0), 0u) << same.out;
}

// Issue 23 item 6: `run` on a file with variants simulates the file itself (a sweep's runs need
// that) and says so in one stderr line that names compare.
TEST_F(VariantsTest, RunSaysItIgnoresTheVariants) {
  const std::string file = write("v.yaml", kFile);
  const auto o = run("run '" + file + "' --out '" + (dir_ / "run").string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
  EXPECT_EQ(o.err_lines[0], "fabricsim: note: " + file +
                                " has variants: (plain, small-mtu, ib); run simulates the file "
                                "without them; `fabricsim compare " +
                                file + "` runs each variant");
  EXPECT_TRUE(fs::exists(dir_ / "run" / "result.json")) << "the base scenario ran";
  EXPECT_FALSE(fs::exists(dir_ / "run" / "plain")) << "no variant ran";

  std::string plain = kFile;
  plain = plain.substr(0, plain.find("variants:\n"));
  const std::string no_variants = write("plain.yaml", plain);
  const auto p = run("run '" + no_variants + "' --out '" + (dir_ / "plain").string() + "'");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.err.find("variants"), std::string::npos) << "no note without variants: " << p.err;
}

TEST_F(VariantsTest, MalformedVariantsNameTheirKey) {
  for (const auto& [bad, key] : std::vector<std::pair<std::string, std::string>>{
           {"  - {name: a/b, fabric: roce}\n", "variants[0].name"},
           {"  - {name: a, fabric: sctp}\n", "variants[0].fabric"},
           {"  - {name: a, fabric: roce, set: [fabric.technology=ib]}\n", "variants[0].set[0]"},
           {"  - {name: a}\n", "variants[0].fabric"},
           {"  - {name: a, fabric: roce, colour: red}\n", "variants[0].colour"}}) {
    std::string text = kFile;
    text = text.substr(0, text.find("variants:\n") + 10) + bad;
    const std::string file = write("v.yaml", text);
    const auto o = run("validate '" + file + "'");
    EXPECT_EQ(o.exit_code, 2) << bad;
    ASSERT_EQ(o.err_lines.size(), 1u) << o.err;
    EXPECT_NE(o.err_lines[0].find(": " + key + ": "), std::string::npos) << o.err_lines[0];
  }
}

}  // namespace variants_test
