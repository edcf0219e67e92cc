// Headless Chromium for the page tests: load a file:// page, dump its DOM or take a
// screenshot, and collect the log where console messages appear as "CONSOLE" lines.
#pragma once

#include <catch2/catch.hpp>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "../occurrences.h"

namespace obscheck::test {

inline constexpr const char* kChromium = "/usr/bin/chromium";

// The text between the first occurrence of `open` and the next `close` after it.
inline std::string between(const std::string& s, const std::string& open, const std::string& close) {
  const std::size_t a = s.find(open);
  if (a == std::string::npos) return "";
  const std::size_t b = s.find(close, a);
  return s.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/obscheck-html-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// Headless Chromium on file://page: returns the exit status, the dumped DOM (or "" for a
// screenshot) and the log on stderr, where console messages appear as "CONSOLE" lines.
struct ChromiumRun {
  int status = -1;
  std::string dom, log;
};
inline ChromiumRun chromium(const TempDir& dir, const std::string& page, const std::string& action) {
  const std::string cmd = std::string("timeout 120 ") + kChromium +
                          " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
                          " --disable-background-networking --disable-component-update --disable-sync"
                          " --user-data-dir=" + dir.path + "/profile --enable-logging=stderr --v=0 " + action +
                          " file://" + page + " > " + dir.path + "/dom.html 2> " + dir.path + "/log.txt";
  ChromiumRun r;
  r.status = std::system(cmd.c_str());
  r.dom = read_file(dir.path + "/dom.html");
  r.log = read_file(dir.path + "/log.txt");
  return r;
}

inline std::size_t console_lines(const std::string& log) { return count(log, "CONSOLE") + count(log, "Uncaught"); }

// Width and height of a PNG from its IHDR (big-endian, bytes 16..23); 0, 0 when the
// bytes are not a PNG.
inline std::pair<unsigned, unsigned> png_size(const std::string& image) {
  if (image.size() < 24 || image.substr(1, 3) != "PNG") return {0, 0};
  auto be32 = [&](std::size_t at) {
    return (static_cast<unsigned>(static_cast<unsigned char>(image[at])) << 24) |
           (static_cast<unsigned>(static_cast<unsigned char>(image[at + 1])) << 16) |
           (static_cast<unsigned>(static_cast<unsigned char>(image[at + 2])) << 8) |
           static_cast<unsigned>(static_cast<unsigned char>(image[at + 3]));
  };
  return {be32(16), be32(20)};
}

}  // namespace obscheck::test
