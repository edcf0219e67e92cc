#include "util/temp_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <cstdlib>
#include <fstream>

#include "util/error.h"

namespace fs = std::filesystem;
using obscheck::TempDir;

TEST_CASE("temp dir: private, and removed with what it holds, without following a link out of it", "[temp_dir]") {
  const fs::path outside = fs::temp_directory_path() / ("obscheck-temp-dir-test-" + std::to_string(getpid()));
  std::ofstream(outside) << "kept";
  std::string path;
  {
    const TempDir dir = TempDir::create("obscheck-test");
    path = dir.path();
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    CHECK(dir.file("a") == path + "/a");
    fs::create_directories(path + "/sub/deeper");
    std::ofstream(dir.file("sub/deeper/f")) << "x";
    fs::create_symlink(outside, dir.file("link"));
  }
  CHECK_FALSE(fs::exists(path));
  CHECK(fs::exists(outside));  // the link went, not what it named
  fs::remove(outside);
}

TEST_CASE("temp dir: one that cannot be made is an I/O error naming the directory", "[temp_dir]") {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", "/nonexistent-obscheck-dir", 1);
  try {
    TempDir::create("obscheck-test");
    FAIL("created under a directory that does not exist");
  } catch (const obscheck::Error& e) {
    CHECK(e.kind() == obscheck::ErrorKind::io);
    CHECK_THAT(e.what(), Catch::StartsWith("cannot create a temporary directory /nonexistent-obscheck-dir/obscheck-test-"));
  }
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
}

TEST_CASE("temp dir: under a TMPDIR others can write without the sticky bit, refused before anything is made",
          "[temp_dir]") {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  const fs::path open_dir = fs::temp_directory_path() / ("obscheck-temp-dir-open-" + std::to_string(getpid()));
  fs::create_directory(open_dir);
  ::chmod(open_dir.c_str(), 0777);
  ::setenv("TMPDIR", open_dir.c_str(), 1);
  try {
    TempDir::create("obscheck-test");
    FAIL("created under a directory others can write");
  } catch (const obscheck::Error& e) {
    CHECK(e.kind() == obscheck::ErrorKind::io);
    CHECK_THAT(e.what(), Catch::Contains(open_dir.string() + " is writable by others and not sticky"));
  }
  CHECK(fs::is_empty(open_dir));
  ::chmod(open_dir.c_str(), 01777);  // sticky, as /tmp: accepted
  {
    const TempDir dir = TempDir::create("obscheck-test");
    CHECK(dir.path().rfind(open_dir.string() + "/obscheck-test-", 0) == 0);
  }
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
  fs::remove_all(open_dir);
}
