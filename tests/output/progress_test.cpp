// The progress bar (output/progress.h) draws only when enabled and erases itself.
#include "output/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace fabricsim::output {
namespace {

std::string contents(std::FILE* f) {
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  return text;
}

TEST(ProgressBar, DrawsPercentAndErasesOnFinish) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr) << "need a temporary file";
  {
    ProgressBar bar(true, f);
    bar.callback()(0.5);
    EXPECT_NE(contents(f).find(" 50.0%"), std::string::npos) << "the first update draws";
    bar.update(1.0);
    EXPECT_NE(contents(f).find("100.0%"), std::string::npos) << "completion always draws";
  }
  const std::string text = contents(f);
  EXPECT_EQ(text.back(), '\r') << "finishing returns to the start of a blanked line";
  std::fclose(f);
}

TEST(ProgressBar, DisabledWritesNothing) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr) << "need a temporary file";
  {
    ProgressBar bar(false, f);
    bar.update(0.5);
    bar.finish();
  }
  EXPECT_EQ(contents(f), "") << "a disabled bar (stderr not a terminal) stays silent";
  std::fclose(f);
}

}  // namespace
}  // namespace fabricsim::output
