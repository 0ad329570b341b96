// `fabricsim compare`: one scenario run on InfiniBand and on RoCE, one table, one result
// directory per fabric; keys of one fabric stay out of the other's run (with a note); bad
// --fabrics and impossible combinations are bad input (exit 2, one line, nothing written).
//
// The analytic check (RingBusbwRatioIsTheHeaderOverhead):
//
//   NIC0 ─┐                  ┌─ NIC4      16 NICs on a radix-8 leaf-spine (4 leaves x 4 spines),
//   ...   ├─ leaf0 ═ spines ═┤  ...       ring all-reduce: every NIC sends one ring step's chunk
//   NIC3 ─┘                  └─ NIC7      to its successor while receiving one from its
//                                         predecessor, so its uplink carries its data packets
//                                         plus the ACKs (and on IB the credits) for what it gets.
//
// The collective time is the uplink's wire bytes / line rate plus 2(n-1) step latencies. Both
// fabrics get the same switch latency (fabric.switch.latency for RoCE, fabric.ib.switch_latency
// for IB), so the latencies match and busbw_ib / busbw_roce = wire bytes per message on RoCE /
// on IB, from SPEC §8's header sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "../support/cli_runner.h"

namespace compare_test {

namespace fs = std::filesystem;
using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::parse_csv;
using fabricsim::test_support::read_file;
using fabricsim::test_support::split_lines;
using nlohmann::json;

// 16 NICs, radix 8, a 4 MiB ring all-reduce: a ring step's chunk is 4 MiB / 16 = 256 KiB, one
// RDMA WRITE of 64 packets (the slice is larger). PFC is an Ethernet mechanism the IB run must
// leave out (an ib fabric refuses it).
constexpr const char* kSmall = R"(name: compare-small
seed: 3
fabric:
  technology: roce
  link: {rate: 400Gbps, cable: 3m}
  switch: {latency: 130ns}
  ib: {switch_latency: 130ns}
  pfc: {enabled: true}
topology: {kind: fat_tree, tiers: 2, radix: 8}
hosts: {count: 16}
workload: {kind: collective, op: all_reduce, algorithm: ring, size: 4MiB, slice: 512KiB}
)";
constexpr int kRanks = 16;
constexpr double kSizeBytes = 4.0 * 1024 * 1024;

class CompareTest : public fabricsim::test_support::CliFixture {
 protected:
  CompareTest() : CliFixture("fabricsim_compare") {}
};

// The table's cells by row label: "  label   cell   cell" split at runs of 2+ spaces (cells such
// as "165.7 us" hold single spaces), from the header row ("fabric", then the fabrics) on.
std::map<std::string, std::vector<std::string>> table_rows(const std::string& out) {
  static const std::regex kGap(" {2,}");
  std::map<std::string, std::vector<std::string>> rows;
  for (const std::string& line : split_lines(out)) {
    if (line.rfind("  results in", 0) == 0) continue;
    std::vector<std::string> cells;
    std::sregex_token_iterator it(line.begin(), line.end(), kGap, -1), end;
    for (; it != end; ++it) {
      if (!it->str().empty()) cells.push_back(it->str());
    }
    if (cells.size() < 2 || (rows.empty() && cells.front() != "fabric")) continue;
    const std::string label = cells.front();
    cells.erase(cells.begin());
    rows[label] = cells;
  }
  return rows;
}

// "165.7 us" -> picoseconds.
double time_ps(const std::string& cell) {
  static const std::map<std::string, double> kScale = {
      {"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
  const size_t space = cell.find(' ');
  return std::stod(cell.substr(0, space)) * kScale.at(cell.substr(space + 1));
}

// "6.076 Tbps" -> Gbps.
double rate_gbps(const std::string& cell) {
  static const std::map<std::string, double> kScale = {{"Mbps", 1e-3}, {"Gbps", 1}, {"Tbps", 1e3}};
  const size_t space = cell.find(' ');
  return std::stod(cell.substr(0, space)) * kScale.at(cell.substr(space + 1));
}

// Four significant digits (core/units.h format_time/format_rate): within half a unit of the
// fourth digit, i.e. a relative 5e-4.
void expect_four_digits(double shown, double exact, const std::string& what) {
  EXPECT_LE(std::fabs(shown - exact), 5e-4 * std::fabs(exact) + 1e-9)
      << what << ": the table shows " << shown << ", result.json has " << exact;
}

// TableAndResultDirectoriesAgree, part by part. Helpers that ASSERT are called through
// ASSERT_NO_FATAL_FAILURE, so a fatal failure still ends the test where it ended it before.

void expect_left_out_notes(const CliOutcome& o) {
  // The note: one row per key a run left out, with where it was written and what that run
  // uses instead.
  std::vector<std::string> notes;
  for (const std::string& line : split_lines(o.out)) {
    if (std::regex_match(line, std::regex("^    (ib|roce) run .*"))) notes.push_back(line);
  }
  EXPECT_NE(o.out.find("  note: keys of another fabric, left out of a run"), std::string::npos)
      << "a note heads the left-out keys:\n"
      << o.out;
  ASSERT_EQ(notes.size(), 3u) << "three keys belong to one fabric only:\n" << o.out;
  EXPECT_TRUE(std::regex_match(
      notes[0],
      std::regex(
          R"(^    ib run +fabric\.switch\.latency +line 6 +ib uses fabric\.ib\.switch_latency$)")))
      << "the ib run leaves out the Ethernet switch latency: " << notes[0];
  EXPECT_TRUE(
      std::regex_match(notes[1], std::regex(R"(^    ib run +fabric\.pfc\.enabled +line 8$)")))
      << "the ib run leaves out PFC (an ib fabric would refuse it): " << notes[1];
  EXPECT_TRUE(std::regex_match(
      notes[2],
      std::regex(
          R"(^    roce run +fabric\.ib\.switch_latency +line 7 +roce uses fabric\.switch\.latency$)")))
      << "the roce run leaves out the IB switch latency: " << notes[2];
}

// Column `col` of the table (fabric fabrics[col]) against that fabric's result directory and
// compare.csv; keeps its result.json in `results`.
void check_fabric_column(const std::map<std::string, std::vector<std::string>>& rows,
                         const CliOutcome& o, const fs::path& out,
                         const std::vector<std::string>& fabrics, size_t col,
                         std::map<std::string, json>& results) {
  const std::string& fabric = fabrics[col];
  for (const char* name : {"result.json", "flows.csv", "run.json"}) {
    ASSERT_TRUE(fs::exists(out / fabric / name)) << name << " written for " << fabric;
  }
  const json r = json::parse(read_file(out / fabric / "result.json"));
  results[fabric] = r;
  const json& c = r.at("collective");
  const json& f = r.at("flows");
  const json& n = r.at("counters");
  ASSERT_TRUE(c.is_object()) << "a collective result";

  auto cell = [&](const std::string& label) {
    EXPECT_TRUE(rows.count(label)) << "table row '" << label << "' missing:\n" << o.out;
    return rows.count(label) ? rows.at(label).at(col) : std::string("?");
  };
  auto count = [&](const std::string& label, const json& value) {
    EXPECT_EQ(cell(label), std::to_string(value.get<int64_t>()))
        << "row '" << label << "' differs from result.json";
  };
  EXPECT_EQ(cell("flows completed"), std::to_string(f.at("completed").get<int64_t>()) + " / " +
                                         std::to_string(f.at("total").get<int64_t>()))
      << "flow counts as in result.json";
  expect_four_digits(time_ps(cell("collective time")), c.at("time_ps").get<double>(),
                     "collective time");
  EXPECT_NEAR(std::stod(cell("busbw")), c.at("busbw_gbytes_per_s").get<double>(), 0.005 + 1e-9)
      << "busbw is shown with two decimals of result.json's";
  expect_four_digits(time_ps(cell("FCT p50")), f.at("fct_p50_ps").get<double>(), "FCT p50");
  expect_four_digits(time_ps(cell("FCT p99")), f.at("fct_p99_ps").get<double>(), "FCT p99");
  expect_four_digits(rate_gbps(cell("throughput")),
                     r.at("aggregate_throughput_gbps").get<double>(), "throughput");
  // Completion time: the last flow's finish, from flows.csv (column 5, finish_ps).
  const auto flows = parse_csv(read_file(out / fabric / "flows.csv"));
  int64_t last = -1;
  for (size_t i = 1; i < flows.size(); ++i)
    last = std::max<int64_t>(last, std::stoll(flows[i].at(5)));
  expect_four_digits(time_ps(cell("completion time")), static_cast<double>(last),
                     "completion time");
  count("drops", n.at("dropped_packets"));
  count("PFC pause frames", n.at("pause_frames"));
  count("IB credit waits", n.at("credit_waits"));
  count("IB credit stalls", n.at("credit_stalls"));
  count("retransmits", n.at("retransmitted_packets"));
  count("timeouts", n.at("timeouts"));
  // The row says it is a sum over ports (issue 23): one port's wait is a different figure.
  expect_four_digits(time_ps(cell("pause/credit wait, port sum")), n.at("paused_ps").get<double>(),
                     "pause/credit wait, port sum");

  // compare.csv holds the same figures at full precision.
  const auto csv = parse_csv(read_file(out / "compare.csv"));
  ASSERT_EQ(csv.size(), 1 + fabrics.size()) << "compare.csv: a header and one row per fabric";
  std::map<std::string, std::string> row;
  for (size_t i = 0; i < csv[0].size(); ++i) row[csv[0][i]] = csv[1 + col].at(i);
  EXPECT_EQ(row["fabric"], fabric) << "compare.csv rows in --fabrics order";
  EXPECT_EQ(std::stoll(row["collective_time_ps"]), c.at("time_ps").get<int64_t>())
      << "compare.csv collective_time_ps";
  EXPECT_EQ(std::stod(row["busbw_gbytes_per_s"]), c.at("busbw_gbytes_per_s").get<double>())
      << "compare.csv busbw reads back to result.json's double";
  EXPECT_EQ(std::stoll(row["completion_time_ps"]), last) << "compare.csv completion_time_ps";
  EXPECT_EQ(std::stoll(row["fct_p99_ps"]), f.at("fct_p99_ps").get<int64_t>())
      << "compare.csv p99";
  EXPECT_EQ(std::stoll(row["pause_frames"]), n.at("pause_frames").get<int64_t>())
      << "compare.csv pause_frames";
  EXPECT_EQ(std::stoll(row["credit_waits"]), n.at("credit_waits").get<int64_t>())
      << "compare.csv credit_waits";
}

TEST_F(CompareTest, TableAndResultDirectoriesAgree) {
  const std::string file = write("small.yaml", kSmall);
  const fs::path out = dir_ / "results";
  const CliOutcome o = run("compare '" + file + "' --out '" + out.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << "compare of a good scenario succeeds; stderr:\n" << o.err;
  EXPECT_EQ(o.err, "") << "nothing on stderr (no progress bar off a terminal)";

  ASSERT_NO_FATAL_FAILURE(expect_left_out_notes(o));

  const auto rows = table_rows(o.out);
  ASSERT_TRUE(rows.count("fabric")) << "no header row in:\n" << o.out;
  const std::vector<std::string>& header = rows.at("fabric");
  ASSERT_GE(header.size(), 2u) << "a column per fabric:\n" << o.out;
  EXPECT_EQ(header[0], "ib") << "first column is the first fabric of the default --fabrics ib,roce";
  EXPECT_EQ(header[1], "roce") << "second column is roce";

  const std::vector<std::string> fabrics = {"ib", "roce"};
  std::map<std::string, json> results;
  for (size_t col = 0; col < fabrics.size(); ++col) {
    const std::string& fabric = fabrics[col];
    SCOPED_TRACE("fabric " + fabric);
    ASSERT_NO_FATAL_FAILURE(check_fabric_column(rows, o, out, fabrics, col, results));
  }

  // Each directory holds its own fabric's run: only InfiniBand returns link-level credits; both
  // ACK every packet (fabric.nic.ack_every 1: ACK coalescing is the NIC's, not the fabric's).
  EXPECT_EQ(results["ib"].at("technology"), "ib") << "ib/result.json names its fabric";
  EXPECT_EQ(results["roce"].at("technology"), "roce") << "roce/result.json names its fabric";
  const json& ib = results["ib"].at("counters");
  const json& roce = results["roce"].at("counters");
  EXPECT_GT(ib.at("credit_packets").get<int64_t>(), 0) << "ib/result.json comes from an IB run";
  EXPECT_EQ(roce.at("credit_packets").get<int64_t>(), 0) << "roce/result.json has no IB credits";
  EXPECT_EQ(roce.at("ack_packets").get<int64_t>(), roce.at("data_packets_sent").get<int64_t>())
      << "RoCE ACKs every packet";
  EXPECT_EQ(ib.at("ack_packets").get<int64_t>(), ib.at("data_packets_sent").get<int64_t>())
      << "IB ACKs every packet too";
  EXPECT_EQ(rows.at("PFC pause frames").at(0), "0") << "the IB column shows no PFC pause frames";
  EXPECT_EQ(rows.at("IB credit waits").at(1), "0") << "the RoCE column shows no credit waits";

  // The file says technology: roce, so compare's roce run is exactly what `run` does with it.
  const fs::path plain = dir_ / "plain";
  const CliOutcome r = run("run '" + file + "' --out '" + plain.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << "fabricsim run of the same file:\n" << r.err;
  EXPECT_EQ(read_file(plain / "result.json"), read_file(out / "roce" / "result.json"))
      << "compare's roce result.json is byte-identical to `fabricsim run`'s";
}

// threads: 2 runs the fabrics side by side (docs/parallel.md): the table, compare.csv and every
// fabric's result.json, flows.csv and links.csv are byte-identical to one run after another.
TEST_F(CompareTest, FabricsSideBySideGiveTheSameFiles) {
  const std::string file = write("small.yaml", kSmall);
  const fs::path one = dir_ / "one", two = dir_ / "two";
  const CliOutcome a = run("compare '" + file + "' --fabrics ib,roce,uet --out '" + one.string() + "'");
  const CliOutcome b = run("compare '" + file + "' --fabrics ib,roce,uet --set threads=2 --out '" +
                           two.string() + "'");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(read_file(one / "compare.csv"), read_file(two / "compare.csv"));
  for (const char* fabric : {"ib", "roce", "uet"}) {
    for (const char* name : {"result.json", "flows.csv", "links.csv"}) {
      EXPECT_EQ(read_file(one / fabric / name), read_file(two / fabric / name))
          << fabric << "/" << name;
    }
  }
  // The printed table too, but for the line naming the output directory.
  auto table = [](std::string out, const fs::path& dir) {
    const size_t at = out.find(dir.string());
    return at == std::string::npos ? out : out.erase(at, dir.string().size());
  };
  EXPECT_EQ(table(a.out, one), table(b.out, two));
}

// A training compare (issue 23): every run also runs the ideal network, whose step, the
// network-attributable time and the breakdown rows appear in the table and in compare.csv, and
// agree with each fabric's result.json; the breakdown adds up to the step.
constexpr const char* kTraining = R"(name: compare-train
seed: 1
fabric:
  technology: roce
  link: {rate: 400Gbps, cable: 3m}
topology: {kind: rail, radix: 16}
hosts: {count: 2, nics_per_host: 8}
node: {gpus_per_node: 8}
workload: {kind: training}
training: {layers: 2, hidden: 512, heads: 8, seq_length: 256, micro_batches: 2, tp: 4, pp: 2}
)";

TEST_F(CompareTest, TrainingCompareHasTheIdealNetworkAndTheBreakdown) {
  const std::string file = write("train.yaml", kTraining);
  const fs::path out = dir_ / "train";
  const CliOutcome o = run("compare '" + file + "' --out '" + out.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto rows = table_rows(o.out);
  for (const char* label : {"compute", "pipeline bubble", "exposed comm", "ideal-network step",
                            "network-attributable", "efficiency vs ideal"}) {
    EXPECT_TRUE(rows.count(label)) << "the table has a '" << label << "' row:\n" << o.out;
  }
  const auto csv = parse_csv(read_file(out / "compare.csv"));
  ASSERT_EQ(csv.size(), 3u) << "a header and a row per fabric";
  const std::vector<std::string>& header = csv[0];
  for (size_t r = 1; r < csv.size(); ++r) {
    std::map<std::string, std::string> row;
    for (size_t c = 0; c < header.size() && c < csv[r].size(); ++c) row[header[c]] = csv[r][c];
    SCOPED_TRACE("fabric " + row["fabric"]);
    const json result = json::parse(read_file(out / row["fabric"] / "result.json"));
    const json& t = result.at("jobs").at(0).at("training");
    const int64_t step = std::stoll(row["step_time_ps"]);
    const int64_t ideal = std::stoll(row["ideal_step_time_ps"]);
    EXPECT_EQ(step, t.at("step_time_ps").get<int64_t>());
    EXPECT_EQ(ideal, t.at("ideal_network").at("step_time_ps").get<int64_t>());
    EXPECT_LE(ideal, step) << "the ideal network is no slower here";
    EXPECT_EQ(std::stoll(row["network_ps"]), step - ideal);
    int64_t parts = std::stoll(row["compute_ps"]) + std::stoll(row["bubble_ps"]) +
                    std::stoll(row["skew_ps"]);
    for (const char* k : {"exposed_tensor_parallel_ps", "exposed_pipeline_parallel_ps",
                          "exposed_data_parallel_ps", "exposed_expert_parallel_ps",
                          "exposed_other_ps"}) {
      parts += std::stoll(row[k]);
    }
    EXPECT_EQ(parts, step) << "compute + bubble + skew + exposed comm by parallelism = step";
    EXPECT_EQ(std::stoll(row["exposed_comm_ps"]),
              t.at("breakdown").at("exposed_comm_ps").get<int64_t>());
    EXPECT_GT(std::stoll(row["bubble_ps"]), 0) << "pp 2: a pipeline bubble";
    // Steps per hour, and per million USD of the fabric result.json prices.
    const double per_hour = 3600e12 / static_cast<double>(step);
    EXPECT_NEAR(std::stod(row["steps_per_hour"]), per_hour, 1e-9 * per_hour);
    const double musd = result.at("cost").at("fabric_usd").get<double>() * 1e-6;
    ASSERT_TRUE(result.at("cost").at("priced").get<bool>());
    EXPECT_NEAR(std::stod(row["steps_per_hour_per_musd"]), per_hour / musd,
                1e-9 * per_hour / musd);
  }
}

TEST_F(CompareTest, RingBusbwRatioIsTheHeaderOverhead) {
  const std::string file = write("small.yaml", kSmall);
  const fs::path out = dir_ / "results";
  const CliOutcome o = run("compare '" + file + "' --out '" + out.string() + "'");
  ASSERT_EQ(o.exit_code, 0) << "compare failed:\n" << o.err;

  // SPEC §8 "Headers", bytes per 4096-byte packet on the wire.
  constexpr double kPayload = 4096;
  constexpr double kReth = 16;  // first packet of each RDMA WRITE, on both fabrics
  // InfiniBand: LRH 8 + BTH 12 + ICRC 4 + VCRC 2; no preamble or inter-frame gap.
  constexpr double kIbHeaders = 8 + 12 + 4 + 2;
  constexpr double kIbAck = 8 + 12 + 4 + 4 + 2;  // LRH, BTH, AETH, ICRC, VCRC
  constexpr double kIbAckEvery = 1;  // fabric.nic.ack_every default, the same on both fabrics
  // A 6-byte flow-control packet returns the credits of each received packet, at most one per
  // packet (coalescing can only lower it): 0.15% of the IB wire bytes.
  constexpr double kIbCredit = 6;
  // RoCEv2: preamble+SFD 8, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4, IFG 12.
  constexpr double kRoceHeaders = 82;
  // RoCE ACK: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + AETH 4 + ICRC 4 + FCS 4 = 66 bytes (above
  // the 64-byte minimum frame) + preamble/IFG 20; one per packet (fabric.nic.ack_every 1).
  constexpr double kRoceAck = 66 + 20;

  const double packets = kSizeBytes / kRanks / kPayload;  // one ring step's chunk = one WRITE
  ASSERT_EQ(packets, 64) << "the scenario's ring chunk is 64 packets";
  const double ib_wire = packets * (kPayload + kIbHeaders) + kReth +
                         std::ceil(packets / kIbAckEvery) * kIbAck + packets * kIbCredit;
  const double roce_wire = packets * (kPayload + kRoceHeaders) + kReth + packets * kRoceAck;
  const double expected = roce_wire / ib_wire;  // ~1.0255

  const double ib = json::parse(read_file(out / "ib" / "result.json"))
                        .at("collective")
                        .at("busbw_gbytes_per_s")
                        .get<double>();
  const double roce = json::parse(read_file(out / "roce" / "result.json"))
                          .at("collective")
                          .at("busbw_gbytes_per_s")
                          .get<double>();
  ASSERT_GT(roce, 0) << "RoCE busbw";
  // 1.5%: the 30 ring-step latencies (same switch and NIC/host latency on both, ~1.5 us each of
  // ~207 us) dilute the 2.5% header difference by about a fifth; the rest is slack.
  EXPECT_NEAR(ib / roce, expected, 0.015 * expected)
      << "busbw ib " << ib << " GB/s, roce " << roce << " GB/s: measured ratio " << ib / roce
      << ", header overhead predicts " << expected;
  EXPECT_GT(ib, roce) << "InfiniBand's smaller headers give it the higher busbw";
}

TEST_F(CompareTest, BadFabricsExitTwoWithOneLine) {
  const std::string file = write("small.yaml", kSmall);
  const fs::path out = dir_ / "results";
  for (const char* list : {"ib,sctp", "roce,roce", "ib,,roce", ""}) {
    SCOPED_TRACE(std::string("--fabrics '") + list + "'");
    const CliOutcome o =
        run("compare '" + file + "' --fabrics '" + list + "' --out '" + out.string() + "'");
    EXPECT_EQ(o.exit_code, 2) << "a bad --fabrics list is bad input";
    ASSERT_EQ(o.err_lines.size(), 1u) << "exactly one line on stderr:\n" << o.err;
    EXPECT_NE(o.err_lines[0].find("--fabrics"), std::string::npos)
        << "the error names --fabrics: " << o.err_lines[0];
    EXPECT_NE(o.err_lines[0].find("ib, roce, uet, tcp, iwarp"), std::string::npos)
        << "the error lists the allowed fabrics: " << o.err_lines[0];
    EXPECT_EQ(o.out, "") << "nothing on stdout for bad input";
    EXPECT_FALSE(fs::exists(out)) << "nothing written for bad input";
  }
}

TEST_F(CompareTest, WhatAFabricCannotModelIsRefusedWithTheLoadersLine) {
  // Link loss is a key of both fabrics, but only lossy RoCE models it: the ib run is refused,
  // pointing at the line in the file, before either run starts.
  const std::string file = write("lossy.yaml",
                                 "name: lossy\nfabric:\n  link: {loss_rate: 0.001}\ntopology: "
                                 "{radix: 8}\nhosts: {count: 16}\n");
  const fs::path out = dir_ / "results";
  const CliOutcome o = run("compare '" + file + "' --out '" + out.string() + "'");
  EXPECT_EQ(o.exit_code, 2) << "an impossible combination is bad input";
  ASSERT_EQ(o.err_lines.size(), 1u) << "exactly one line on stderr:\n" << o.err;
  EXPECT_EQ(o.err_lines[0].rfind(file + ":3: fabric.link.loss_rate: ", 0), 0u)
      << "FILE:LINE: key: message, located in the original file: " << o.err_lines[0];
  EXPECT_NE(o.err_lines[0].find("(in the ib run)"), std::string::npos)
      << "the error says which run cannot take it: " << o.err_lines[0];
  EXPECT_EQ(o.out, "") << "no table, no note, for bad input";
  EXPECT_FALSE(fs::exists(out)) << "nothing written for bad input";

  // --fabrics roce alone runs it.
  const CliOutcome r = run("compare '" + file + "' --fabrics roce");
  EXPECT_EQ(r.exit_code, 0) << "lossy RoCE alone is fine:\n" << r.err;
}

TEST_F(CompareTest, TechnologyOverrideIsRefused) {
  const std::string file = write("small.yaml", kSmall);
  const CliOutcome o = run("compare '" + file + "' --set seed=4 --set fabric.technology=ib");
  EXPECT_EQ(o.exit_code, 2) << "--fabrics chooses the technology";
  ASSERT_EQ(o.err_lines.size(), 1u) << "exactly one line on stderr:\n" << o.err;
  EXPECT_EQ(o.err_lines[0].rfind("--set:2: fabric.technology: ", 0), 0u)
      << "the override is located like any other: " << o.err_lines[0];
}

}  // namespace compare_test

namespace compare_modes_test {

namespace fs = std::filesystem;
using fabricsim::test_support::CliOutcome;
using fabricsim::test_support::read_file;
using nlohmann::json;

class CompareModes : public fabricsim::test_support::CliFixture {
 protected:
  CompareModes() : CliFixture("cmpmodes") {}
};

TEST_F(CompareModes, EachFabricRunsOncePerModeInItsOwnColumn) {
  // --modes packet,flow,hybrid on RoCE: three columns, three result directories, each run in
  // its mode. Every ring all-reduce takes the ring's bandwidth bound, 2(n-1)/n x S over the
  // payload rate (400 Gb/s x 4096 / 4178), plus 2(n-1) step latencies of at most 2 us (NIC
  // overheads, two cables and a switch each way); flow agrees with packet within 3 %, hybrid
  // within 1 %.
  const std::string file = write("small.yaml", compare_test::kSmall);
  const fs::path out = dir_ / "results";
  const CliOutcome o = run("compare '" + file +
                           "' --fabrics roce --modes packet,flow,hybrid --out '" + out.string() +
                           "'");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("roce-packet"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("roce-flow"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("roce-hybrid"), std::string::npos) << o.out;
  const double bound_ps = 2.0 * (compare_test::kRanks - 1) / compare_test::kRanks *
                          compare_test::kSizeBytes * 8 / (400e9 * 4096 / 4178) * 1e12;
  std::map<std::string, double> time_ps;
  for (const std::string mode : {"packet", "flow", "hybrid"}) {
    const json r = json::parse(read_file(out / ("roce-" + mode) / "result.json"));
    EXPECT_EQ(r["mode"], mode);
    time_ps[mode] = r["collective"]["time_ps"].get<double>();
    EXPECT_GE(time_ps[mode], bound_ps) << mode;
    EXPECT_LE(time_ps[mode], bound_ps + 2 * (compare_test::kRanks - 1) * 2e6) << mode;
  }
  EXPECT_NEAR(time_ps["flow"], time_ps["packet"], 0.03 * time_ps["packet"]);
  EXPECT_NEAR(time_ps["hybrid"], time_ps["packet"], 0.01 * time_ps["packet"]);
  const CliOutcome bad = run("compare '" + file + "' --modes packet,fluid");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err_lines.size(), 1u) << bad.err;
}

}  // namespace compare_modes_test
