// report/: what every HTML page of obscheck shares — the check's page (html_report.h)
// and the pages of bias and compare (sweep_html.h) — declared apart from both so that
// neither page's header has to include the other's. Defined in html_report.cpp, beside
// the check page that uses the same pieces.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/findings.h"

namespace obscheck {

// Every page's chart size: wide enough for three series dodged in up to eight dose
// slots with readable labels, small enough that two charts sit side by side on a
// 1280 px screen.
inline constexpr double kChartWidth = 600;
inline constexpr double kChartHeight = 340;

// The stylesheet of every page: the text to put inside <style>. Includes the @media
// print rules (figures kept whole, colours exact).
std::string html_stylesheet();

// <span class="badge verdict-KEY">the verdict in words</span>, coloured by the stylesheet.
std::string html_verdict_badge(Verdict v);

// <ul class="warnings"> with one escaped item per warning; empty for none.
std::string html_warnings(const std::vector<std::string>& warnings);

// <section id="host">: the host summary from `host` (HostInfo as JSON; an empty or
// non-object value gives "Host: not recorded."), the non-info doctor findings (`doctor`,
// host Finding JSON) as a table, a count of the informational ones, and the full host
// record collapsed. No line on the target's environment size: a sweep has no one size.
std::string html_host_section(const nlohmann::json& host, const std::vector<nlohmann::json>& doctor);

}  // namespace obscheck
