#include "core/bounded_file.h"

#include <sys/stat.h>

#include <fstream>

#include "core/error.h"

namespace fabricsim {

std::string read_bounded_file(const std::string& path, int64_t max_bytes,
                              const std::string& key_path, const std::string& what) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) throw ImportError(path, 0, key_path, "cannot open " + what);
  if (!S_ISREG(st.st_mode)) throw ImportError(path, 0, key_path, "not a regular file");
  if (st.st_size > max_bytes) {
    throw ImportError(path, 0, key_path,
                      "larger than " + std::to_string(max_bytes >> 20) + " MiB (" +
                          std::to_string(st.st_size) + " bytes)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError(path, 0, key_path, "cannot open " + what);
  std::string text(static_cast<size_t>(st.st_size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));  // a file that shrank meanwhile
  return text;
}

}  // namespace fabricsim
