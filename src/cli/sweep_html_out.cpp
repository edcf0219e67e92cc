#include "cli/sweep_html_out.h"

#include <fmt/core.h>

#include <filesystem>

#include "cli/commands.h"
#include "host/doctor.h"
#include "host/host_info.h"
#include "report/sweep_html.h"
#include "util/error.h"

namespace obscheck {
namespace {

void write_file(const std::string& path, const std::string& bytes) {
  Options to_file;
  to_file.output = path;
  emit(to_file, bytes);
}

SweepPageContext page_context() {
  SweepPageContext ctx;
  const HostInfo host = read_host();
  ctx.host = host;
  for (const Finding& f : doctor_checks(host)) ctx.doctor.push_back(f);
  return ctx;
}

}  // namespace

void write_sweep_files(const Options& o, const SweepReport& r) {
  if (!o.html.empty()) {
    write_file(o.html, sweep_html(r, page_context()));
    fmt::print(stderr, "obscheck: wrote {}\n", o.html);
  }
  if (!o.svg_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.svg_dir, ec);
    if (ec) throw Error(ErrorKind::io, "cannot create " + o.svg_dir + ": " + ec.message());
    const auto files = sweep_svgs(r);
    for (const auto& [name, svg] : files) write_file((std::filesystem::path(o.svg_dir) / name).string(), svg);
    fmt::print(stderr, "obscheck: wrote {} figure{} to {}\n", files.size(), files.size() == 1 ? "" : "s", o.svg_dir);
  }
}

}  // namespace obscheck
