// Reading a scenario file with bounds, and the UTF-8 check the loader applies to every string.
//
// A scenario path must name a regular file (after following symbolic links): /dev/zero,
// /dev/urandom, a FIFO or a directory is refused before a byte is read, and a file larger than
// kMaxScenarioFileBytes, or one that grows past it while being read, is refused too. Errors are
// LoadError with key (file), e.g.
//   x.yaml: (file): cannot read: is a symbolic link to a character device, not a regular file
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "spec/load.h"

namespace fabricsim::scenario {

// The largest scenario file accepted: 64 MiB. The largest realistic input is an explicit flow
// list: one flow takes ~34 bytes (`    - [12, 345, 64KiB, 123.456us]`), so the 1.66 M-flow list
// of issue 9 is ~56 MB and fits; anything bigger is not a hand-written scenario. yaml-cpp needs
// about 73 bytes of memory per byte of such a list (measured, peak RSS of `fabricsim validate`:
// 200k flows, 6.8 MB, 503 MB; 500k flows, 17.0 MB, 1.23 GB), so the limit also caps the parser
// near 5 GB.
inline constexpr int64_t kMaxScenarioFileBytes = int64_t{64} << 20;

// The contents of the scenario file at `path`, read with the bound above. Throws LoadError with
// key (file): missing or unreadable, not a regular file, too large, or grown past the limit
// while being read.
std::string read_scenario_file(const std::string& path);

// The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or npos when `text` is valid.
size_t invalid_utf8_offset(std::string_view text);

}  // namespace fabricsim::scenario
