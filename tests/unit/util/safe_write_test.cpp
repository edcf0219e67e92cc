// util/safe_write: a link planted at any name obscheck writes leaves its target alone.
#include <catch2/catch.hpp>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <iterator>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "util/error.h"
#include "util/safe_write.h"

using namespace obscheck;
namespace fs = std::filesystem;

namespace {

struct Dir {
  std::string path;
  Dir() {
    char tmpl[] = "/tmp/obscheck-safe-write-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string operator/(const std::string& name) const { return path + "/" + name; }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool is_link(const std::string& path) { return fs::is_symlink(fs::symlink_status(path)); }

// How many names `dir` holds: a finished or failed write leaves no temporary file.
std::size_t entries(const std::string& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST_CASE("safe_write: writes the bytes, mode 0644 under umask 022, and leaves no temporary file") {
  Dir d;
  const mode_t old = ::umask(022);
  write_file_safely(d / "out.json", "{\"a\":1}\n");
  ::umask(old);
  CHECK(slurp(d / "out.json") == "{\"a\":1}\n");
  struct stat st {};
  REQUIRE(::lstat((d / "out.json").c_str(), &st) == 0);
  CHECK(S_ISREG(st.st_mode));
  CHECK((st.st_mode & 07777) == 0644);
  CHECK(entries(d.path) == 1);
  write_file_safely(d / "out.json", "second");  // replaces
  CHECK(slurp(d / "out.json") == "second");
  CHECK(entries(d.path) == 1);
}

TEST_CASE("safe_write: a file replaced keeps its permission bits") {
  Dir d;
  std::ofstream(d / "private.txt") << "old";
  ::chmod((d / "private.txt").c_str(), 0600);
  write_file_safely(d / "private.txt", "new");
  struct stat st {};
  REQUIRE(::stat((d / "private.txt").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(slurp(d / "private.txt") == "new");
}

TEST_CASE("safe_write: a link planted at the old OUT.tmp name is neither followed nor touched") {
  Dir d;
  std::ofstream(d / "victim") << "precious\n";
  fs::create_symlink(d / "victim", d / "report.json.tmp");
  write_file_safely(d / "report.json", "report");
  CHECK(slurp(d / "victim") == "precious\n");
  CHECK(is_link(d / "report.json.tmp"));
  CHECK(slurp(d / "report.json") == "report");
  CHECK(!is_link(d / "report.json"));
}

TEST_CASE("safe_write: a link at the destination itself is replaced by the file, its target unchanged") {
  Dir d;
  std::ofstream(d / "victim") << "precious\n";
  fs::create_symlink(d / "victim", d / "report.json");
  write_file_safely(d / "report.json", "report");
  CHECK(slurp(d / "victim") == "precious\n");
  CHECK(!is_link(d / "report.json"));
  CHECK(slurp(d / "report.json") == "report");
  // A dangling link (to a file that does not exist yet) creates nothing at its target.
  fs::create_symlink(d / "absent", d / "dangling.svg");
  write_file_safely(d / "dangling.svg", "<svg/>");
  CHECK(!fs::exists(d / "absent"));
  CHECK(slurp(d / "dangling.svg") == "<svg/>");
}

TEST_CASE("safe_write: a relative path writes in the current directory") {
  Dir d;
  const fs::path here = fs::current_path();
  fs::current_path(d.path);
  write_file_safely("plain.txt", "x");
  fs::current_path(here);
  CHECK(slurp(d / "plain.txt") == "x");
}

TEST_CASE("safe_write: a directory, a missing directory or a name that is no file is Error(io), leaving nothing") {
  Dir d;
  fs::create_directory(d / "sub");
  const auto kind_of = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.kind();
    }
    return ErrorKind::internal;
  };
  CHECK(kind_of([&] { write_file_safely(d / "sub", "x"); }) == ErrorKind::io);
  CHECK(kind_of([&] { write_file_safely(d / "missing/out", "x"); }) == ErrorKind::io);
  CHECK(kind_of([&] { write_file_safely(d.path + "/", "x"); }) == ErrorKind::io);
  CHECK(kind_of([&] { write_file_safely(d / "..", "x"); }) == ErrorKind::io);
  CHECK(entries(d.path) == 1);
  CHECK(fs::is_empty(d / "sub"));
  try {
    write_file_safely(d / "sub", "x");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "cannot write " + (d / "sub") + ": Is a directory");
  }
}

TEST_CASE("safe_write: open_output_dir creates the directory, refuses a link at it, and checks a private one") {
  Dir d;
  {
    const UniqueFd fd = open_output_dir(d / "a/b/figs");
    CHECK(fd);
    write_file_at(fd.get(), d / "a/b/figs", "one.svg", "<svg/>");
    CHECK(slurp(d / "a/b/figs/one.svg") == "<svg/>");
  }
  fs::create_directory(d / "elsewhere");
  fs::create_symlink(d / "elsewhere", d / "linked");
  try {
    open_output_dir(d / "linked");
    FAIL("a link at the directory was followed");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK(std::string(e.what()) == "cannot write into " + (d / "linked") + ": it is a symbolic link");
  }
  fs::create_directory(d / "open");
  ::chmod((d / "open").c_str(), 0777);
  CHECK(open_output_dir(d / "open", DirAccess::shared));
  try {
    open_output_dir(d / "open", DirAccess::private_to_us);
    FAIL("a directory others can write to was taken as private");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK_THAT(e.what(), Catch::Contains("writable by group or others"));
  }
  CHECK(open_output_dir(d / "mine", DirAccess::private_to_us));
}

TEST_CASE("safe_write: Existing::refuse writes a new file and leaves an existing one as it was") {
  Dir d;
  write_file_safely(d / "plan.json", "first", kOutputFileMode, Existing::refuse);
  CHECK(slurp(d / "plan.json") == "first");
  try {
    write_file_safely(d / "plan.json", "second", kOutputFileMode, Existing::refuse);
    FAIL("an existing file was overwritten");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    CHECK_THAT(e.what(), Catch::Contains("plan.json exists: it is not overwritten"));
  }
  CHECK(slurp(d / "plan.json") == "first");
  CHECK(entries(d.path) == 1);  // no temporary file left
  // A link there is refused too, and its target left alone.
  fs::create_symlink(d / "target", d / "link");
  CHECK_THROWS_AS(write_file_safely(d / "link", "x", kOutputFileMode, Existing::refuse), Error);
  CHECK(is_link(d / "link"));
  CHECK(!fs::exists(d / "target"));
}

TEST_CASE("safe_write: a file replaced keeps no set-user-ID, set-group-ID or sticky bit") {
  Dir d;
  std::ofstream(d / "rep.txt") << "planted";
  REQUIRE(::chmod((d / "rep.txt").c_str(), 07777) == 0);
  write_file_safely(d / "rep.txt", "report");
  struct stat st {};
  REQUIRE(::stat((d / "rep.txt").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0777);  // ours: its permission bits kept, nothing else
  CHECK(slurp(d / "rep.txt") == "report");
}

TEST_CASE("safe_write: a FIFO is written into, not replaced") {
  Dir d;
  const std::string fifo = d / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  write_file_safely(fifo, "through the pipe\n");
  reader.join();
  CHECK(got == "through the pipe\n");
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(entries(d.path) == 1);
}

TEST_CASE("safe_write: a character device is written into, /dev/fd/N is descriptor N") {
  Dir d;
  struct stat st {};
  // A null device of our own (never the host's /dev/null: a regression would replace
  // it for every process); mknod needs root.
  if (::geteuid() == 0) {
    REQUIRE(::mknod((d / "null").c_str(), S_IFCHR | 0666, ::makedev(1, 3)) == 0);
    write_file_safely(d / "null", "discarded");
    REQUIRE(::lstat((d / "null").c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    CHECK(st.st_rdev == ::makedev(1, 3));
    CHECK(entries(d.path) == 1);
  } else {
    WARN("SKIPPED: the device part (mknod needs root)");
  }
  char tmpl[] = "/tmp/obscheck-safe-write-fd-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  REQUIRE(fd >= 0);
  write_file_safely("/dev/fd/" + std::to_string(fd), "to the descriptor");
  ::close(fd);
  CHECK(slurp(tmpl) == "to the descriptor");
  ::unlink(tmpl);
  REQUIRE(::lstat("/dev/stdout", &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
}
