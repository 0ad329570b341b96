// Reading an input file named by a scenario (a topology file, an imported workload) whole, with
// the checks that keep a bad name from hanging or exhausting the run: only a regular file
// (/dev/zero or a FIFO would never end) of at most `max_bytes`.
#pragma once

#include <cstdint>
#include <string>

namespace fabricsim {

// Throws ImportError(path, 0, key_path, ...) when the file cannot be opened, is not a regular
// file, or is larger than max_bytes; `what` names it in the message ("topology file").
std::string read_bounded_file(const std::string& path, int64_t max_bytes,
                              const std::string& key_path, const std::string& what);

}  // namespace fabricsim
