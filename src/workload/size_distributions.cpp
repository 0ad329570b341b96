#include "workload/size_distributions.h"

namespace fabricsim::workload {
namespace {

// Cumulative percent -> probability; sizes in bytes, as in the files.
std::vector<SizeCdfPoint> from_percent(std::vector<std::pair<int64_t, double>> table) {
  std::vector<SizeCdfPoint> cdf;
  for (const auto& [size, percent] : table) cdf.push_back({size, percent / 100.0});
  return cdf;
}

}  // namespace

const std::vector<SizeCdfPoint>& named_size_cdf(SizeDistribution d) {
  // traffic_gen/WebSearch_distribution.txt: the web-search cluster of DCTCP (Alizadeh et al.,
  // SIGCOMM 2010, Fig. 4), as pFabric (Alizadeh et al., SIGCOMM 2013, Fig. 6) and HPCC use it.
  // Mean (trapezoid sum) 1,711,250 B; the 3 % of flows above 10 MB carry 35 % of the bytes.
  static const std::vector<SizeCdfPoint> web_search = from_percent({
      {0, 0},         {10000, 15},    {20000, 20},    {30000, 30},
      {50000, 40},    {80000, 53},    {200000, 60},   {1000000, 70},
      {2000000, 80},  {5000000, 90},  {10000000, 97}, {30000000, 100},
  });
  // traffic_gen/FbHdp_distribution.txt: Facebook's Hadoop cluster (Roy et al., "Inside the
  // Social Network's (Datacenter) Network", SIGCOMM 2015, Fig. 6), HPCC's second workload.
  static const std::vector<SizeCdfPoint> fb_hadoop = from_percent({
      {0, 0},        {100, 1},        {200, 2},        {300, 5},         {350, 15},
      {400, 20},     {500, 30},       {600, 40},       {700, 50},        {1000, 60},
      {2000, 67},    {7000, 70},      {30000, 72},     {50000, 82},      {80000, 87},
      {120000, 90},  {300000, 95},    {1000000, 97.5}, {2000000, 99},    {10000000, 100},
  });
  // traffic_gen/AliStorage2019.txt: Alibaba's production distributed storage, 2019 (HPCC
  // authors' README: "collected from Alibaba's production distributed storage system in 2019").
  static const std::vector<SizeCdfPoint> ali_storage = from_percent({
      {0, 0},        {4000, 22.93},   {8000, 69.21},   {16000, 80.61},   {32000, 90.47},
      {64000, 93.53}, {128000, 96.77}, {256000, 97.53}, {2000000, 100},
  });
  static const std::vector<SizeCdfPoint> none;
  switch (d) {
    case SizeDistribution::kWebSearch: return web_search;
    case SizeDistribution::kFbHadoop: return fb_hadoop;
    case SizeDistribution::kAliStorage: return ali_storage;
    case SizeDistribution::kCustom: break;
  }
  return none;
}

const std::vector<SizeCdfPoint>& effective_size_cdf(const WorkloadSpec& spec) {
  return spec.size_distribution == SizeDistribution::kCustom ? spec.size_cdf
                                                             : named_size_cdf(spec.size_distribution);
}

int64_t largest_flow_size(const WorkloadSpec& spec) {
  const std::vector<SizeCdfPoint>& cdf = effective_size_cdf(spec);
  return cdf.empty() ? spec.flow_size_bytes : cdf.back().size_bytes;
}

}  // namespace fabricsim::workload
