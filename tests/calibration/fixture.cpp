#include "calibration/fixture.h"

#include <fmt/core.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <string_view>

#include "util/error.h"

namespace obscheck::calibration {

std::string read_maybe_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f)
    throw Error(ErrorKind::io, fmt::format("cannot read {}: {}", path, errno ? std::strerror(errno) : "out of memory"));
  const std::unique_ptr<gzFile_s, int (*)(gzFile)> closer(f, gzclose);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const int got = gzread(f, buf, sizeof buf);
    if (got < 0) {
      int code = 0;
      const char* why = gzerror(f, &code);
      throw Error(ErrorKind::io, fmt::format("cannot decompress {}: {}", path, why ? why : "zlib error"));
    }
    if (got == 0) break;
    out.append(buf, static_cast<std::size_t>(got));
  }
  // gzread reports a stream cut short as end of file; gzerror tells them apart.
  int code = Z_OK;
  const char* why = gzerror(f, &code);
  if (code != Z_OK && code != Z_STREAM_END)
    throw Error(ErrorKind::io, fmt::format("cannot decompress {}: {}", path, why ? why : "zlib error"));
  return out;
}

namespace {

std::string stem_of(const std::string& path) {
  std::string_view name(path);
  name.remove_prefix(name.find_last_of('/') + 1);  // npos + 1 is 0: no '/', the whole path
  for (std::string_view ext : {".gz", ".jsonl"})
    if (name.size() > ext.size() && name.ends_with(ext)) name.remove_suffix(ext.size());
  return std::string(name);
}

}  // namespace

Fixture load_fixture(const std::string& path) {
  JournalData d = parse_journal(read_maybe_gzip(path), path);
  Fixture fx;
  fx.name = stem_of(path);
  fx.path = path;
  fx.plan = plan_from_journal(d);
  fx.manifest = std::move(d.manifest);
  fx.sweep = last_stretch(d.notes);
  const std::size_t size = fx.plan.block_size();
  std::map<std::size_t, std::vector<RunRecord>> grouped;
  for (RunRecord& r : d.runs) {
    if (r.warmup) continue;
    if (r.config >= size)
      throw Error(ErrorKind::io, fmt::format("{}: run {} names configuration {}, but the plan has {}", path, r.index,
                                             r.config, size));
    grouped[r.block].push_back(std::move(r));
  }
  for (auto& [block, runs] : grouped) {
    if (runs.size() != size) continue;  // an interrupted block
    Fixture::Block b;
    b.recorded_block = block;
    b.by_config.resize(size);
    std::vector<bool> seen(size, false);
    bool complete = true;
    for (RunRecord& r : runs) {
      if (seen[r.config]) complete = false;
      seen[r.config] = true;
      b.by_config[r.config] = std::move(r);
    }
    if (complete) fx.blocks.push_back(std::move(b));
  }
  if (fx.blocks.empty())
    throw Error(ErrorKind::io, fmt::format("{}: no complete measured block to replay", path));
  return fx;
}

}  // namespace obscheck::calibration
