// report/: a profiler setup's certificate — what a methods section or a CI gate needs
// from a check under a profiler command (`obscheck report JOURNAL --certificate`): the
// command and its doses, each metric's answer per dose as numbers (the effect with its
// interval where the dose moves it, else the bound that holds), the sampling rate each
// dose achieved where it can be read, the kernel's throttling, the profiler's own
// cost, the host and the verdicts. Text, JSON ("schema": "obscheck-certificate",
// "version": 1, every field in docs/certificate-schema.md) and one HTML page with the
// effect-against-dose figures. The text and the page are drawn from the JSON, so the
// three say the same. Pure: the kernel's log is read by the caller.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/findings.h"
#include "host/kernel_log.h"
#include "plan/plan.h"
#include "report/check_report.h"

namespace obscheck {

struct CertificateInput {
  std::string profiler_command;  // the --observer-cmd template, {level} unreplaced
  KernelLogScan kernel_log;      // scanned for kPerfThrottleMessage when the report was made
  // The sampling frequency the template asks for, per level as --levels gave it
  // (observe/wrap.h requested_frequency); a level without one is absent.
  std::map<std::string, double> requested_hz;
};

// Throws Error(usage) when the plan is not a profiler command's check.
nlohmann::json certificate_json(const Plan& plan, const Findings& f, const CheckContext& ctx,
                                const CertificateInput& in);
// The certificate as text, from certificate_json's document; ends with "\n".
std::string certificate_text(const nlohmann::json& cert);
// One self-contained page: the certificate's text as tables, and per metric the
// effect-against-dose figure (html_report.h effect_curve_svg).
std::string certificate_html(const Plan& plan, const Findings& f, const nlohmann::json& cert);

}  // namespace obscheck
