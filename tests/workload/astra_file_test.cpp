// The ASTRA-sim importer reads training.file only if it is a regular file of bounded size:
// /dev/zero would otherwise be read forever (core/bounded_file.h).
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "workload/astra_format.h"

namespace fabricsim::workload {
namespace astra_file_test {

TEST(AstraFile, ANonRegularFileIsRefusedNotRead) {
  try {
    astra::parse_file("/dev/zero", "training.file");
    FAIL() << "/dev/zero was accepted";
  } catch (const ImportError& e) {
    EXPECT_EQ(std::string(e.what()), "not a regular file");
    EXPECT_EQ(e.file(), "/dev/zero");
    EXPECT_EQ(e.key_path(), "training.file");
  }
}

TEST(AstraFile, AMissingFileSaysSo) {
  try {
    astra::parse_file("/nonexistent/astra.txt", "training.file");
    FAIL() << "a missing file was accepted";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open the workload file"), std::string::npos)
        << e.what();
  }
}

}  // namespace astra_file_test
}  // namespace fabricsim::workload
