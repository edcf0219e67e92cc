#include "cli/html_out.h"

#include <fmt/core.h>

#include <filesystem>

#include "analysis/check.h"
#include "cli/commands.h"
#include "record/journal.h"
#include "report/html_report.h"
#include "util/error.h"

namespace obscheck {
namespace {

void write_file(const std::string& path, const std::string& bytes) {
  Options to_file;
  to_file.output = path;
  emit(to_file, bytes);
}

}  // namespace

void write_report_files(const Options& o, const Plan& plan, const Findings& f, const CheckContext& ctx,
                        const std::vector<RunRecord>& runs) {
  if (!o.html.empty()) {
    write_file(o.html, check_html(plan, f, ctx, runs));
    fmt::print(stderr, "obscheck: wrote {}\n", o.html);
  }
  if (!o.svg_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.svg_dir, ec);
    if (ec) throw Error(ErrorKind::io, "cannot create " + o.svg_dir + ": " + ec.message());
    const auto files = check_svgs(plan, f, runs);
    for (const auto& [name, svg] : files) write_file((std::filesystem::path(o.svg_dir) / name).string(), svg);
    fmt::print(stderr, "obscheck: wrote {} figure{} to {}\n", files.size(), files.size() == 1 ? "" : "s", o.svg_dir);
  }
}

void write_check_html(const std::string& journal_path, const std::string& out_path) {
  const JournalData d = load_journal(journal_path);
  const Plan plan = plan_from_journal(d);
  const double margin = d.manifest.at("options").value("margin", 0.01);
  const Findings findings = analyse_check(plan, d.runs, {margin, 0.05, plan_looks(plan).size(), plan.seed()});
  write_file(out_path, check_html(plan, findings, check_context_from_journal(d, plan), d.runs));
}

}  // namespace obscheck
