// links.csv (output/links_csv.h): the agreed columns, in order, and one row's formatting; the
// summary's hottest-links table.
#include "output/links_csv.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "output/json.h"
#include "output/summary.h"

namespace fabricsim::output {
namespace links_csv_test {

scenario::LinkRow row(uint32_t port, const std::string& from, const std::string& to,
                      double utilization) {
  scenario::LinkRow r;
  r.port = port;
  r.from = from;
  r.to = to;
  r.link = from + ":" + std::to_string(port) + "->" + to;
  r.from_tier = 1;
  r.to_tier = 2;
  r.direction = "up";
  r.rate_bps = 400'000'000'000;
  r.tx_bytes = static_cast<int64_t>(utilization * 1e6);
  r.utilization = utilization;
  return r;
}

TEST(LinksCsv, HeaderIsTheAgreedColumnList) {
  const std::string text = links_csv_text({});
  EXPECT_EQ(text,
            "port,link,from,to,from_tier,to_tier,direction,rate_bps,tx_bytes,utilization,"
            "peak_queue_bytes,drops,pause_frames_sent,pause_frames_received,paused_ps,ecn_marks,"
            "credit_waits,trimmed,down\n");
}

TEST(LinksCsv, OneRowPerPortWithEveryCounter) {
  scenario::LinkRow r = row(7, "sw3", "sw17", 0.25);
  r.peak_queue_bytes = 123456;
  r.drops = 2;
  r.pause_frames_sent = 3;
  r.pause_frames_received = 4;
  r.paused_ps = 5000;
  r.ecn_marks = 6;
  r.credit_waits = 7;
  r.trimmed = 8;
  r.down = true;
  const std::string text = links_csv_text({r});
  EXPECT_EQ(text.substr(text.find('\n') + 1),
            "7,sw3:7->sw17,sw3,sw17,1,2,up,400000000000,250000,0.250000000,123456,2,3,4,5000,6,"
            "7,8,1\n");
}

TEST(LinksCsv, HottestLinksTableAndJsonListTheBusiestFirst) {
  scenario::RunResult result;
  for (uint32_t p = 0; p < 12; ++p) result.link_rows.push_back(row(p, "sw0", "sw1", 0.05 * p));
  result.link_rows[4].down = true;
  const std::string table = hottest_links_text(result.link_rows, 10);
  EXPECT_NE(table.find("sw0:11->sw1"), std::string::npos);
  EXPECT_LT(table.find("sw0:11->sw1"), table.find("sw0:10->sw1")) << "busiest first";
  EXPECT_EQ(table.find("sw0:1->sw1"), std::string::npos) << "only the ten busiest";
  EXPECT_NE(table.find("DOWN"), std::string::npos) << "a failed cable is flagged";
  EXPECT_NE(format_summary(result).find("hottest links"), std::string::npos);

  const nlohmann::ordered_json j = result_to_json(result);
  ASSERT_EQ(j["hottest_links"].size(), 10u);
  EXPECT_EQ(j["hottest_links"][0]["link"], "sw0:11->sw1");
  EXPECT_DOUBLE_EQ(j["hottest_links"][0]["utilization"].get<double>(), 0.55);
  EXPECT_EQ(j["hottest_links"][9]["link"], "sw0:2->sw1");

  EXPECT_EQ(hottest_links_text({}, 10), "") << "no traffic, no table";
}

}  // namespace links_csv_test
}  // namespace fabricsim::output
