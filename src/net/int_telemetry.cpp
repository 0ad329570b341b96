// INT records beside the packets (int_telemetry.h).
#include "net/int_telemetry.h"

#include <bit>
#include <stdexcept>

namespace fabricsim::net {

IntTable::IntTable(uint32_t slots_per_qp) : mask_(slots_per_qp - 1) {
  if (slots_per_qp == 0 || !std::has_single_bit(slots_per_qp)) {
    throw std::invalid_argument("INT slots per QP must be a power of two");
  }
}

IntRecord* IntTable::slot(uint32_t qp, uint32_t psn) {
  const size_t i = static_cast<size_t>(qp) * (mask_ + 1) + (psn & mask_);
  if (i >= slots_.size()) {
    // A QP seen for the first time: QPs are made as messages are posted, so the table grows
    // with them (once per QP, never per packet).
    const size_t n = (static_cast<size_t>(qp) + 1) * (mask_ + 1);
    slots_.resize(n);
    begun_.resize(n, 0);
  }
  return &slots_[i];
}

void IntTable::begin(uint32_t qp, uint32_t psn) {
  IntRecord* r = slot(qp, psn);
  r->psn = psn;
  r->hops = 0;
  r->lost = 0;
  begun_[r - slots_.data()] = 1;
}

void IntTable::stamp(uint32_t qp, uint32_t psn, const IntHop& h) {
  IntRecord* r = slot(qp, psn);
  if (!begun_[r - slots_.data()] || r->psn != psn) return;
  if (r->hops < kIntMaxHops) {
    r->hop[r->hops++] = h;
  } else if (r->lost < 255) {
    ++r->lost;
  }
}

const IntRecord* IntTable::find(uint32_t qp, uint32_t psn) const {
  const size_t i = static_cast<size_t>(qp) * (mask_ + 1) + (psn & mask_);
  if (i >= slots_.size() || !begun_[i] || slots_[i].psn != psn) return nullptr;
  return &slots_[i];
}

}  // namespace fabricsim::net
