#include "cli/ring_budget.h"

#include <string>

#include "core/error.h"
#include "core/ring.h"
#include "core/units.h"

namespace fabricsim::cli {
namespace {

// One run at a time sets them (the handler is a plain function pointer: RingMemory::on_limit).
int64_t g_budget = 0, g_limit = 0, g_expected = 0, g_bound = 0;
bool g_explicit = false;

// Called by a growing ring before it allocates: throwing leaves the ring as it was.
void exceeded(int64_t need_bytes) {
  throw InputError(
      "fabric.switch.buffer",
      "the run stopped: the packets queued in the fabric needed " + format_bytes(need_bytes) +
          " of memory, more than the " + format_bytes(g_budget) + " that the limit " +
          format_bytes(g_limit) +
          (g_explicit ? " (--max-memory)" : " (available memory; see --max-memory)") +
          " leaves them (the estimate expected " + format_bytes(g_expected) +
          "; every switch buffer full would take " + format_bytes(g_bound) +
          "): raise the limit or lower fabric.switch.buffer");
}

}  // namespace

RingBudget::RingBudget(const scenario::ResourceEstimate& e, int64_t peak_bytes, int64_t limit,
                       bool explicit_limit) {
  if (limit <= 0) return;
  // peak_bytes <= limit (the pre-flight refused otherwise): at least what was expected.
  g_budget = limit - peak_bytes + e.ring_bytes;
  g_limit = limit;
  g_explicit = explicit_limit;
  g_expected = e.ring_bytes;
  g_bound = e.packets_bound_bytes;
  RingMemory::limit_bytes = g_budget;
  RingMemory::on_limit = &exceeded;
}

RingBudget::~RingBudget() {
  RingMemory::limit_bytes = 0;
  RingMemory::on_limit = nullptr;
}

}  // namespace fabricsim::cli
