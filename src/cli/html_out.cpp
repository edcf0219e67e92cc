#include "cli/html_out.h"

#include <fmt/core.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "cli/commands.h"
#include "job/sweep_job.h"
#include "report/html_report.h"
#include "report/sweep_html.h"
#include "util/safe_write.h"

namespace obscheck {
namespace {

using Figures = std::vector<std::pair<std::string, std::string>>;  // file name, SVG bytes

// Builds only what is asked for: a page or figures nobody wants are never rendered.
void write_page_files(const Options& o, const std::function<std::string()>& page,
                      const std::function<Figures()>& figures) {
  if (!o.html.empty()) write_and_say(o.html, page());
  if (!o.svg_dir.empty()) {
    // Opened once, never through a link at DIR itself; each figure goes in by its own
    // safe write, so a link planted at a figure's name is replaced, not followed.
    const UniqueFd dir = open_output_dir(o.svg_dir);
    const Figures files = figures();
    for (const auto& [name, svg] : files) write_file_at(dir.get(), o.svg_dir, name, svg);
    fmt::print(stderr, "obscheck: wrote {} figure{} to {}\n", files.size(), files.size() == 1 ? "" : "s", o.svg_dir);
  }
}

}  // namespace

void write_and_say(const std::string& file, const std::string& bytes) {
  write_file_safely(file, bytes);
  fmt::print(stderr, "obscheck: wrote {}\n", file);
}

void write_report_files(const Options& o, const Plan& plan, const Findings& f, const CheckContext& ctx,
                        const std::vector<RunRecord>& runs) {
  write_page_files(o, [&] { return check_html(plan, f, ctx, runs); }, [&] { return check_svgs(plan, f, runs); });
}

void write_sweep_files(const Options& o, const SweepReport& r, const std::optional<HostInfo>& host) {
  write_page_files(o, [&] { return sweep_html(r, sweep_page_context(host)); }, [&] { return sweep_svgs(r); });
  // As hyperfine's --export-json: the machine-readable report beside the terminal's.
  if (!o.export_json.empty()) write_and_say(o.export_json, sweep_json(r));
  if (!o.export_csv.empty()) write_and_say(o.export_csv, sweep_csv(r));
}

}  // namespace obscheck
