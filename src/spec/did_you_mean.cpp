#include "spec/did_you_mean.h"

#include <algorithm>

namespace fabricsim::scenario {

int edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows of the dynamic-programming table: the swap rule looks two rows back.
  const size_t n = b.size();
  std::vector<int> two_back(n + 1), prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= n; ++j) {
      const int substitution = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      int best = std::min({prev[j] + 1, cur[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        best = std::min(best, two_back[j - 2] + 1);
      }
      cur[j] = best;
    }
    std::swap(two_back, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::string closest_name(std::string_view typed, const std::vector<std::string>& allowed) {
  const int limit = std::max(1, static_cast<int>(typed.size()) / 3);
  std::string best;
  int best_distance = limit + 1;
  for (const std::string& name : allowed) {
    if (name == typed) continue;  // an allowed name is not a typo of itself
    const int d = edit_distance(typed, name);
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

std::string did_you_mean_prefix(std::string_view typed, const std::vector<std::string>& allowed) {
  const std::string name = closest_name(typed, allowed);
  return name.empty() ? "" : "did you mean '" + name + "'? ";
}

std::string did_you_mean_suffix(std::string_view typed, const std::vector<std::string>& allowed) {
  const std::string name = closest_name(typed, allowed);
  return name.empty() ? "" : "; did you mean '" + name + "'?";
}

}  // namespace fabricsim::scenario
