// The marker file fabricsim leaves in every output directory it writes. The writers here
// (output/write.h, output/compare.h) put it there; the CLI's staged output directory
// (cli/staged_dir.h) reads it to tell a directory fabricsim wrote, which a run may replace, from
// one it did not.
#pragma once

#include <filesystem>

namespace fabricsim::output {

inline constexpr const char* kMarkerFile = ".fabricsim-output";

// Writes the marker file into `dir` (which must exist). Throws std::runtime_error.
void write_marker(const std::filesystem::path& dir);

}  // namespace fabricsim::output
