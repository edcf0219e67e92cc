#include "job/common/report_files.h"

#include <fmt/core.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "job/sweep/sweep_job.h"
#include "report/html_report.h"
#include "report/sweep_html.h"
#include "util/safe_write.h"

namespace obscheck {
namespace {

using Figures = std::vector<std::pair<std::string, std::string>>;  // file name, SVG bytes

// Builds only what is asked for: a page or figures nobody wants are never rendered.
void write_page_files(const ReportFiles& f, const std::function<std::string()>& page,
                      const std::function<Figures()>& figures) {
  if (!f.html.empty()) write_and_say(f.html, page());
  if (!f.svg_dir.empty()) {
    // Opened once, never through a link at DIR itself; each figure goes in by its own
    // safe write, so a link planted at a figure's name is replaced, not followed.
    const UniqueFd dir = open_output_dir(f.svg_dir);
    const Figures files = figures();
    for (const auto& [name, svg] : files) write_file_at(dir.get(), f.svg_dir, name, svg);
    fmt::print(stderr, "obscheck: wrote {} figure{} to {}\n", files.size(),
               files.size() == 1 ? "" : "s", f.svg_dir);
  }
}

}  // namespace

void write_and_say(const std::string& file, const std::string& bytes) {
  write_file_safely(file, bytes);
  fmt::print(stderr, "obscheck: wrote {}\n", file);
}

void write_report_files(const ReportFiles& f, const Plan& plan, const Findings& findings,
                        const CheckContext& ctx, const std::vector<RunRecord>& runs) {
  write_page_files(
      f, [&] { return check_html(plan, findings, ctx, runs); },
      [&] { return check_svgs(plan, findings, runs); });
}

void write_sweep_files(const ReportFiles& f, const SweepReport& r,
                       const std::optional<HostInfo>& host) {
  write_page_files(
      f, [&] { return sweep_html(r, sweep_page_context(host)); }, [&] { return sweep_svgs(r); });
  // As hyperfine's --export-json: the machine-readable report beside the terminal's.
  if (!f.export_json.empty()) write_and_say(f.export_json, sweep_json(r));
  if (!f.export_csv.empty()) write_and_say(f.export_csv, sweep_csv(r));
}

}  // namespace obscheck
