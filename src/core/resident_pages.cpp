#include "core/resident_pages.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace fabricsim {

namespace {

uintptr_t page_bytes() { return static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE)); }

}  // namespace

size_t release_pages(void* begin, size_t bytes) {
  const uintptr_t page = page_bytes();
  const auto b = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t first = (b + page - 1) & ~(page - 1);  // whole pages only
  const uintptr_t end = (b + bytes) & ~(page - 1);
  if (end <= first) return 0;
  if (::madvise(reinterpret_cast<void*>(first), end - first, MADV_DONTNEED) != 0) return 0;
  return end - first;
}

void release_free_heap() {
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}

size_t resident_bytes(const void* begin, size_t bytes) {
  if (bytes == 0) return 0;
  const uintptr_t page = page_bytes();
  const auto b = reinterpret_cast<uintptr_t>(begin);
  const uintptr_t first = b & ~(page - 1);
  const uintptr_t end = (b + bytes + page - 1) & ~(page - 1);
  std::vector<unsigned char> in((end - first) / page);
  if (::mincore(reinterpret_cast<void*>(first), end - first, in.data()) != 0) return 0;
  size_t n = 0;
  for (unsigned char c : in) n += (c & 1) != 0;
  return n * page;
}

}  // namespace fabricsim
