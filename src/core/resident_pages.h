// Giving back, and counting, the physical memory behind a range of an array (Linux). A rank of
// an MPI run (core/rank_run.h) holds the whole model's arrays, indexed by global ids, but
// touches only what its partitions own: it gives the rest's pages back to the kernel, keeping
// the arrays' indexing (no rank-local ids on the hot path) while not paying for their memory.
#pragma once

#include <cstddef>

namespace fabricsim {

// The whole pages inside [begin, begin + bytes) are given back (madvise MADV_DONTNEED): they
// stop counting in the process's RSS, and read as zero bytes afterwards (an anonymous private
// mapping: malloc'd memory), so the caller must only release what is, or may read as, zeros
// later (REQUIRES: no object whose destructor frees memory lives there, except as all-zero
// bytes). Partial pages at either end are kept. Returns the bytes given back.
size_t release_pages(void* begin, size_t bytes);

// Gives the allocator's free memory back to the kernel (glibc's malloc_trim, which also frees
// whole free pages inside the heap): after a run's buffers are freed, so that what is
// allocated next reuses pages rather than adding to the peak. Does nothing elsewhere.
void release_free_heap();

// The bytes of the pages touching [begin, begin + bytes) that are resident now (mincore), for
// tests and measurements.
size_t resident_bytes(const void* begin, size_t bytes);

}  // namespace fabricsim
