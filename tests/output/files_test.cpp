// result.json, run.json and flows.csv (output/json.h, output/csv.h, output/write.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "output/csv.h"
#include "output/json.h"
#include "output/summary.h"
#include "output/write.h"

namespace fabricsim::output {
namespace files_test {

scenario::RunResult sample_result() {
  scenario::RunResult r;
  r.scenario_name = "sample";
  r.seed = 7;
  r.sim_time_ps = 2'734'000'000;
  r.topology = {"2-tier leaf-spine", 16, 16, 10, 32, 2};
  r.collective = {true,    "all_reduce", "ring",           16,
                  1 << 20, 58'846'360,   17.8188761377934, 33.410392758362626};
  scenario::FlowRecord done;
  done.id = 0;
  done.src_nic = 1;
  done.dst_nic = 2;
  done.size_bytes = 65536;
  done.start_ps = 0;
  done.finish_ps = 1'831'040;
  done.ideal_fct_ps = 1'817'280;
  done.sent_bytes = done.delivered_bytes = 65536;
  scenario::FlowRecord unfinished = done;
  unfinished.id = 1;
  unfinished.finish_ps = -1;
  r.flows = {done, unfinished};
  r.flow_summary = scenario::summarize_flows(r.flows);
  r.completed = false;
  r.aggregate_throughput_gbps = 4276.53;
  r.counters.dropped_packets = 3;
  r.run.events = 56128;
  r.run.wall_seconds = 0.0049;
  r.run.events_per_second = 11431485.6;
  r.run.data_packet_hops = 17280;
  r.run.peak_rss_bytes = 4788224;
  r.run.sim_time_ps = 2'734'000'000;
  return r;
}

TEST(FlowsCsv, HeaderAndRows) {
  const std::string csv = flows_csv_text(sample_result().flows);
  std::istringstream lines(csv);
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(header,
            "id,src,dst,size_bytes,start_ps,finish_ps,fct_ps,ideal_fct_ps,slowdown,sent_bytes,"
            "delivered_bytes,dropped_bytes,retransmitted_packets,class,qp")
      << "the header is a published interface (new columns only at the end)";
  EXPECT_EQ(first, "0,1,2,65536,0,1831040,1831040,1817280,1.007572,65536,65536,0,0,0,0")
      << "a finished flow: integers and a six-decimal slowdown";
  EXPECT_EQ(second, "1,1,2,65536,0,,,1817280,,65536,65536,0,0,0,0")
      << "an unfinished flow leaves finish, FCT and slowdown empty";
}

TEST(ResultJson, NoRunStatsAndByteIdentical) {
  const scenario::RunResult r = sample_result();
  const std::string a = result_json_text(r);
  scenario::RunResult other = r;
  other.run = scenario::RunStats{};  // host statistics differ between runs
  other.run.events = 1;
  other.run.wall_seconds = 99.0;
  other.run.peak_rss_bytes = 3;
  EXPECT_EQ(a, result_json_text(r)) << "serialising twice must give the same bytes";
  EXPECT_EQ(a, result_json_text(other)) << "run statistics must not reach result.json";
  const auto j = nlohmann::json::parse(a);
  for (const char* key : {"run", "events", "wall_seconds", "events_per_second", "peak_rss_bytes"}) {
    EXPECT_FALSE(j.contains(key)) << "result.json must not contain " << key;
  }
  EXPECT_EQ(j["flows"]["completed"], 1) << "flow statistics are included";
  EXPECT_EQ(j["collective"]["time_ps"], 58'846'360) << "the collective is included";
  EXPECT_EQ(j["counters"]["dropped_packets"], 3) << "counters are included";
}

TEST(RunJson, ExactKeys) {
  const auto j = nlohmann::json::parse(run_json_text(sample_result().run));
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"build_seconds", "data_packet_hops", "events", "events_per_second",
                                            "peak_live_messages", "peak_rss_bytes", "sim_time_ps",
                                            "wall_seconds"}))
      << "run.json has exactly these keys";
  EXPECT_EQ(j["events"], 56128) << "events";
}

TEST(WriteOutputs, CreatesDirectoryWithThreeFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "fabricsim_write_test" / "nested";
  std::filesystem::remove_all(dir.parent_path());
  // write_run_files creates `dir` itself, not its parents (cli/staged_dir.h creates those).
  std::filesystem::create_directory(dir.parent_path());
  write_run_files(dir, sample_result());
  for (const char* name : {"result.json", "flows.csv", "run.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir / name)) << name << " must be written";
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "trace.pcap")) << "no trace.pcap without capture";
  std::ifstream in(dir / "result.json");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), result_json_text(sample_result())) << "the file holds the serialisation";
  std::filesystem::remove_all(dir.parent_path());
}

TEST(Summary, MentionsTheHeadlineNumbers) {
  const std::string s = format_summary(sample_result());
  for (const char* needle : {"sample (seed 7)", "2.734 ms", "1 / 2 completed", "busbw 33.41 GB/s",
                             "p50 1.831 us", "3 packets", "peak RSS", "4.566 MiB"}) {
    EXPECT_NE(s.find(needle), std::string::npos) << "summary lacks '" << needle << "':\n" << s;
  }
}

}  // namespace files_test
}  // namespace fabricsim::output
