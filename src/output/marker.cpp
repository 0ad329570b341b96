#include "output/marker.h"

#include <fstream>
#include <stdexcept>

namespace fabricsim::output {

void write_marker(const std::filesystem::path& dir) {
  std::ofstream out(dir / kMarkerFile, std::ios::binary | std::ios::trunc);
  out << "This directory was written by fabricsim. The next `fabricsim run` or `fabricsim "
         "compare` into it replaces it as a whole.\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + (dir / kMarkerFile).string());
}

}  // namespace fabricsim::output
