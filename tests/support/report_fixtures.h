// Small files in the formats agreed for issue 13 (links.csv, timeseries_ports.csv,
// timeseries_qps.csv, trace.json, result.json's fct_by_size / fct_by_class / hottest_links, a
// sweep directory) for the report tests (tests/output/report_test.cpp, tests/browser/). The
// helpers that write the real files work in parallel; these let the report's charts be tested
// before they land. Only files that are absent are written, so a real run's files win.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace fabricsim::test_support {

inline void write_if_absent(const std::filesystem::path& file, const std::string& text) {
  if (std::filesystem::exists(file)) return;
  std::ofstream(file, std::ios::binary) << text;
}

// links.csv of a 4-NIC, 2-leaf, 1-spine fabric: 12 ports (6 cables), `hot` the utilization of
// nic0's uplink.
inline std::string fixture_links_csv(double hot = 0.9) {
  std::string out =
      "port,link,from,to,from_tier,to_tier,direction,rate_bps,tx_bytes,utilization,"
      "peak_queue_bytes,drops,pause_frames_sent,pause_frames_received,paused_ps,ecn_marks,"
      "credit_waits,trimmed,down\n";
  struct Cable {
    const char* a;
    int ta;
    const char* b;
    int tb;
  };
  const Cable cables[] = {{"nic0", 0, "sw0", 1}, {"nic1", 0, "sw0", 1}, {"nic2", 0, "sw1", 1},
                          {"nic3", 0, "sw1", 1}, {"sw0", 1, "sw2", 2},  {"sw1", 1, "sw2", 2}};
  int port = 0;
  for (const Cable& c : cables) {
    for (int dir = 0; dir < 2; ++dir) {
      const std::string from = dir == 0 ? c.a : c.b, to = dir == 0 ? c.b : c.a;
      const int tf = dir == 0 ? c.ta : c.tb, tt = dir == 0 ? c.tb : c.ta;
      const double u = port == 0 ? hot : 0.05 * (port % 7);
      out += std::to_string(port) + "," + from + ":0->" + to + "," + from + "," + to + "," +
             std::to_string(tf) + "," + std::to_string(tt) + "," + (tt > tf ? "up" : "down") +
             ",100000000000," + std::to_string(static_cast<int64_t>(u * 1.25e7)) + "," +
             std::to_string(u) + "," + std::to_string(port * 1000) + ",0," +
             std::to_string(port % 3) + ",0,0,0,0,0,0\n";
      ++port;
    }
  }
  return out;
}

// `samples` samples of 4 ports every 10 us: queues ramp up and down; port 5 pauses.
inline std::string fixture_timeseries_ports_csv(int samples = 50) {
  std::string out =
      "time_ps,port,link,utilization,queue_bytes,q0_bytes,q1_bytes,q2_bytes,q3_bytes,q4_bytes,"
      "q5_bytes,q6_bytes,q7_bytes,paused_fraction,credits_blocks\n";
  for (int s = 1; s <= samples; ++s) {
    for (int port : {0, 5, 8, 11}) {
      const int64_t queue =
          static_cast<int64_t>((s < samples / 2 ? s : samples - s) * (port + 1) * 512);
      out += std::to_string(int64_t{s} * 10'000'000) + "," + std::to_string(port) + ",p" +
             std::to_string(port) + ":0->x," + std::to_string(0.1 * (port % 4) + 0.5) + "," +
             std::to_string(queue) + ",0,0,0," + std::to_string(queue) + ",0,0,0,0," +
             (port == 5 ? "0.25" : "0") + ",\n";
    }
  }
  return out;
}

// 3 DCQCN QPs' rates over `samples` samples.
inline std::string fixture_timeseries_qps_csv(int samples = 50) {
  std::string out = "time_ps,qp,src_nic,dst_nic,cc,rate_bps,window_bytes\n";
  for (int s = 1; s <= samples; ++s) {
    for (int qp = 0; qp < 3; ++qp) {
      const double rate = 1e11 / (1 + (s % (5 + qp)));
      out += std::to_string(int64_t{s} * 10'000'000) + "," + std::to_string(qp) + ",nic" +
             std::to_string(qp + 1) + ",nic0,dcqcn," + std::to_string(static_cast<int64_t>(rate)) +
             ",\n";
    }
  }
  return out;
}

// Chrome trace events: 2 hosts x 2 ranks, `steps` send/recv spans each inside one collective.
inline std::string fixture_trace_json(int steps = 8) {
  std::string ev;
  auto add = [&](const std::string& e) { ev += (ev.empty() ? "" : ",\n") + e; };
  for (int host = 0; host < 2; ++host) {
    add("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(host) +
        ",\"args\":{\"name\":\"host" + std::to_string(host) + "\"}}");
    for (int r = 0; r < 2; ++r) {
      const int rank = host * 2 + r;
      add("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + std::to_string(host) + ",\"tid\":" +
          std::to_string(rank) + ",\"args\":{\"name\":\"rank" + std::to_string(rank) + "\"}}");
      add("{\"ph\":\"X\",\"cat\":\"collective\",\"name\":\"all_reduce\",\"pid\":" +
          std::to_string(host) + ",\"tid\":" + std::to_string(rank) +
          ",\"ts\":0,\"dur\":" + std::to_string(steps * 10) + ",\"args\":{\"bytes\":1048576}}");
      for (int s = 0; s < steps; ++s) {
        add("{\"ph\":\"X\",\"cat\":\"" + std::string(s % 2 ? "recv" : "send") +
            "\",\"name\":\"step " + std::to_string(s) + "\",\"pid\":" + std::to_string(host) +
            ",\"tid\":" + std::to_string(rank) + ",\"ts\":" + std::to_string(s * 10) +
            ".000001,\"dur\":9.5,\"args\":{\"bytes\":131072,\"peer\":" +
            std::to_string((rank + 1) % 4) + "}}");
      }
    }
  }
  return "{\"traceEvents\":[\n" + ev + "\n],\"displayTimeUnit\":\"ns\"}\n";
}

// A run directory's flows.csv: `n` finished flows of sizes 1 KB..10 MB (decades), FCT growing
// with size.
inline std::string fixture_flows_csv(int n = 40) {
  std::string out =
      "id,src,dst,size_bytes,start_ps,finish_ps,fct_ps,ideal_fct_ps,slowdown,sent_bytes,"
      "delivered_bytes,dropped_bytes,retransmitted_packets\n";
  for (int i = 0; i < n; ++i) {
    const int64_t size = int64_t{1000};
    int64_t s = size;
    for (int d = 0; d < i % 5; ++d) s *= 10;
    const int64_t ideal = s * 80 + 2'000'000;  // 100 Gb/s + 2 us
    const int64_t fct = ideal * (1 + i % 4);
    out += std::to_string(i) + "," + std::to_string(i % 4) + ",0," + std::to_string(s) + ",0," +
           std::to_string(fct) + "," + std::to_string(fct) + "," + std::to_string(ideal) + "," +
           std::to_string(static_cast<double>(fct) / static_cast<double>(ideal)) + "," +
           std::to_string(s) + "," + std::to_string(s) + ",0,0\n";
  }
  return out;
}

inline std::string fixture_result_json() {
  return R"({"scenario":"fixture","technology":"roce","fabric":"fixture fabric","sim_time_ps":500000000,
"completed":true,"partial":false,
"fct_by_size":[{"bucket":"<10KB","flows":8,"fct":{"p50":3,"p99":5,"p999":5},"slowdown":{"p50":1.5,"p99":3.9,"p999":4.0}},
               {"bucket":"10KB-100KB","flows":8,"fct":{"p50":30,"p99":50,"p999":50},"slowdown":{"p50":2.1,"p99":4.0,"p999":4.0}}],
"fct_by_class":[{"class":3,"flows":16,"completed":16,"fct_p50_ps":10,"fct_p99_ps":50,"fct_p999_ps":50,"slowdown_p50":2.0,"slowdown_p99":4.0,"slowdown_p999":4.0},
                {"class":5,"flows":2,"completed":0,"fct_p50_ps":null,"fct_p99_ps":null,"fct_p999_ps":null,"slowdown_p50":null,"slowdown_p99":null,"slowdown_p999":null}],
"hottest_links":[{"link":"nic0:0->sw0","utilization":0.9,"peak_queue_bytes":1000,"drops":0,"pause_frames_received":2,"ecn_marks":7}],
"links":{"start_ps":0,"end_ps":500000000,"span_ps":500000000,"tiers":[
 {"tier":0,"direction":"up","ports":4,"idle_ports":0,"mean_utilization":0.4,"max_utilization":0.9,"imbalance":2.25},
 {"tier":1,"direction":"up","ports":2,"idle_ports":0,"mean_utilization":0.2,"max_utilization":0.3,"imbalance":1.5},
 {"tier":1,"direction":"down","ports":2,"idle_ports":1,"mean_utilization":0.0,"max_utilization":0.0,"imbalance":null}]}}
)";
}

// Every run file the report reads.
inline void write_run_fixture(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  write_if_absent(dir / "result.json", fixture_result_json());
  write_if_absent(dir / "flows.csv", fixture_flows_csv());
  write_if_absent(dir / "links.csv", fixture_links_csv());
  write_if_absent(dir / "timeseries_ports.csv", fixture_timeseries_ports_csv());
  write_if_absent(dir / "timeseries_qps.csv", fixture_timeseries_qps_csv());
  write_if_absent(dir / "trace.json", fixture_trace_json());
}

// A sweep directory of 2 parameters (kmin x 3, kmax x 2) and 2 metrics, 3 seeds.
inline void write_sweep_fixture(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::string runs =
      "point,seed,fabric.ecn.kmin,fabric.ecn.kmax,status,dir,fct_p99_us,pause_frames,error\n";
  std::string agg =
      "point,fabric.ecn.kmin,fabric.ecn.kmax,runs_ok,runs_failed,fct_p99_us_mean,fct_p99_us_sd,"
      "fct_p99_us_ci95,pause_frames_mean,pause_frames_sd,pause_frames_ci95\n";
  int point = 0;
  for (const char* kmax : {"200KB", "400KB"}) {
    for (const char* kmin : {"20KB", "50KB", "100KB"}) {
      for (int seed = 1; seed <= 3; ++seed) {
        const bool failed = point == 5 && seed == 3;
        runs += std::to_string(point) + "," + std::to_string(seed) + "," + kmin + "," + kmax +
                (failed ? ",failed,points/5-3,,,exit 1: boom\n"
                        : ",ok,points/" + std::to_string(point) + "-" + std::to_string(seed) + "," +
                              std::to_string(100 + point * 10 + seed) + "," +
                              std::to_string(point * 3 + seed) + ",\n");
      }
      agg += std::to_string(point) + "," + kmin + "," + kmax + "," +
             (point == 5 ? "2,1," : "3,0,") + std::to_string(102 + point * 10) + ",1," +
             (point == 5 ? "" : "2.484") + "," + std::to_string(point * 3 + 2) + ",1,2.484\n";
      ++point;
    }
  }
  write_if_absent(dir / "sweep.csv", runs);
  write_if_absent(dir / "sweep_aggregate.csv", agg);
  write_if_absent(
      dir / "sweep.json",
      R"({"file":"examples/sweep-dcqcn.yaml","parameters":["fabric.ecn.kmin","fabric.ecn.kmax"],"seeds":3})");
}

}  // namespace fabricsim::test_support
