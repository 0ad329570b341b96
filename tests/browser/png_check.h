// Minimal PNG reading for the browser test: decodes an 8-bit RGB or RGBA, non-interlaced PNG
// (what Chromium's --screenshot writes) with zlib and reports how much of it differs from its
// top-left pixel, the page background. Enough to tell a rendered page from a blank one.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <algorithm>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace fabricsim::test_support {

struct PngStats {
  uint32_t width = 0;
  uint32_t height = 0;
  uint64_t non_background_pixels = 0;  // differ from the top-left pixel
  size_t distinct_colours = 0;         // capped at 4096
};

inline uint32_t be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) |
         (uint32_t(uint8_t(s[at + 2])) << 8) | uint32_t(uint8_t(s[at + 3]));
}

// Throws std::runtime_error for a file it cannot decode. Pixels are counted in rows
// [row_begin, row_end) only (a region of the page, e.g. its first section); width and height
// are the whole image's.
inline PngStats png_stats(const std::string& png, uint32_t row_begin = 0,
                          uint32_t row_end = UINT32_MAX) {
  if (png.size() < 33 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    throw std::runtime_error("not a PNG");
  }
  PngStats st;
  int bytes_per_pixel = 0;
  std::string idat;
  for (size_t at = 8; at + 12 <= png.size();) {
    const uint32_t length = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (at + 12 + length > png.size()) throw std::runtime_error("truncated chunk " + type);
    if (type == "IHDR") {
      st.width = be32(png, at + 8);
      st.height = be32(png, at + 12);
      const int depth = uint8_t(png[at + 16]), colour = uint8_t(png[at + 17]);
      const int interlace = uint8_t(png[at + 20]);
      if (depth != 8 || (colour != 2 && colour != 6) || interlace != 0) {
        throw std::runtime_error("unsupported PNG layout");
      }
      bytes_per_pixel = colour == 6 ? 4 : 3;
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, length);
    }
    at += 12 + length;
  }
  if (bytes_per_pixel == 0 || idat.empty()) throw std::runtime_error("no IHDR or IDAT");
  const size_t stride = size_t(st.width) * bytes_per_pixel;
  std::vector<uint8_t> raw((stride + 1) * st.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
          Z_OK ||
      raw_size != raw.size()) {
    throw std::runtime_error("IDAT does not inflate to the image size");
  }
  // Undo the per-row filters (PNG spec, section 9: None, Sub, Up, Average, Paeth).
  std::vector<uint8_t> img(stride * st.height);
  for (uint32_t y = 0; y < st.height; ++y) {
    const uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* out = &img[y * stride];
    const uint8_t* up = y > 0 ? &img[(y - 1) * stride] : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      const int a = x >= size_t(bytes_per_pixel) ? out[x - bytes_per_pixel] : 0;
      const int b = up ? up[x] : 0;
      const int c = up && x >= size_t(bytes_per_pixel) ? up[x - bytes_per_pixel] : 0;
      int p = 0;
      switch (filter) {
        case 0:
          p = 0;
          break;
        case 1:
          p = a;
          break;
        case 2:
          p = b;
          break;
        case 3:
          p = (a + b) / 2;
          break;
        case 4: {
          const int pa = std::abs(b - c), pb = std::abs(a - c), pc = std::abs(a + b - 2 * c);
          p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
          break;
        }
        default:
          throw std::runtime_error("bad PNG filter");
      }
      out[x] = uint8_t(in[x] + p);
    }
  }
  std::set<uint32_t> colours;
  const size_t first = size_t(std::min(row_begin, st.height)) * stride;
  const size_t last = size_t(std::min(row_end, st.height)) * stride;
  for (size_t i = first; i < last; i += bytes_per_pixel) {
    const uint32_t rgb = (uint32_t(img[i]) << 16) | (uint32_t(img[i + 1]) << 8) | img[i + 2];
    const uint32_t background = (uint32_t(img[0]) << 16) | (uint32_t(img[1]) << 8) | img[2];
    if (rgb != background) ++st.non_background_pixels;
    if (colours.size() < 4096) colours.insert(rgb);
  }
  st.distinct_colours = colours.size();
  return st;
}

}  // namespace fabricsim::test_support
