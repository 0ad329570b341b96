#include "results/hottest_links.h"

#include <algorithm>

namespace fabricsim::scenario {

std::vector<LinkRow> hottest_links(const std::vector<LinkRow>& rows, size_t n) {
  std::vector<const LinkRow*> busy;
  for (const LinkRow& r : rows) {
    if (r.tx_bytes > 0) busy.push_back(&r);
  }
  const size_t k = std::min(n, busy.size());
  std::partial_sort(busy.begin(), busy.begin() + static_cast<std::ptrdiff_t>(k), busy.end(),
                    [](const LinkRow* a, const LinkRow* b) {
                      if (a->utilization != b->utilization) return a->utilization > b->utilization;
                      return a->port < b->port;
                    });
  std::vector<LinkRow> out;
  out.reserve(k);
  for (size_t i = 0; i < k; ++i) out.push_back(*busy[i]);
  return out;
}

}  // namespace fabricsim::scenario
