#!/usr/bin/env python3
"""The atlas's table and figures from the checks' JSON reports (run.sh calls it).

Per program: one Markdown table (set-up, dose, the effect on the program's task-clock and
wall time with the 90% interval and the verdict, the runs, who ran it) and one SVG
figure (the task-clock effect of every set-up and dose, on a log scale of the ratio,
with its interval). Only what the reports say: no number is computed here but the
ratio's logarithm for the figure's axis.
"""
import argparse
import html
import json
import math
import os

SETUPS = ["perf record", "perf record at the maximum", "perf record -g", "perf record -g at the maximum",
          "perf record --call-graph dwarf", "perf record --call-graph dwarf at the maximum", "perf trace", "strace -f",
          "ltrace", "gdb breakpoints", "uprobes", "obscheck sampler"]
# Okabe and Ito's colours, as obscheck's own figures use them.
def colour_of(verdict):
    if verdict.startswith("not perturbed"):
        return "#009E73"
    if verdict.startswith("perturbed"):
        return "#D55E00"
    if verdict.startswith("incomparable"):
        return "#CC79A7"
    return "#666666"


def slug(name):
    out = "".join(c if c.isalnum() else "-" for c in name.lower())
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")


def pct(x):
    return "?" if x is None else f"{100 * x:+.1f}%"


def effect_cell(c):
    if c is None:
        return "", ""
    lo, hi = c["ci"]["lo"], c["ci"]["hi"]
    ci = f" [{pct(lo)}, {pct(hi)}]" if lo is not None and hi is not None else ""
    if c["scale"] != "ratio":
        return f"{c['effect']:+.3g} per run", ""
    return pct(c["effect"]) + ci, ""


def verdict_of(report, metric, level):
    for v in report["verdicts"]:
        if v["metric_name"] == metric and v["level"] == level:
            text = v["verdict_text"] or v["verdict"] or ""
            if v["verdict"] == "incomparable" and "timed out" in (v.get("reason") or ""):
                text += " (runs timed out: the effect is a lower bound)"
            return text
    return ""


def rows_of(report):
    by = {}
    for c in report["comparisons"]:
        if c["aa"] or c["metric_name"] not in ("task-clock", "wall-time"):
            continue
        by.setdefault((c["level_index"], c["level"], c["dose"]), {})[c["metric_name"]] = c
    return [(key, by[key]) for key in sorted(by)]


def program_table(out, program):
    lines = ["| set-up | dose | task-clock effect [90% CI] | verdict | wall-time effect [90% CI] | verdict | blocks | ran as |",
             "|---|---|---|---|---|---|---|---|"]
    points = []
    for setup in SETUPS:
        base = os.path.join(out, program, slug(setup))
        who = open(base + ".who").read().strip() if os.path.exists(base + ".who") else "not run"
        if not os.path.exists(base + ".json"):
            lines.append(f"| {setup} | | | | | | | {who} |")
            continue
        report = json.load(open(base + ".json"))
        blocks = report["summary"]["measured_blocks"]
        for (_, level, dose), cs in rows_of(report):
            tc, wt = cs.get("task-clock"), cs.get("wall-time")
            tv, wv = verdict_of(report, "task-clock", level), verdict_of(report, "wall-time", level)
            lines.append(f"| {setup} | {level} | {effect_cell(tc)[0]} | {tv} | {effect_cell(wt)[0]} | {wv} | {blocks} | {who} |")
            if tc and tc["scale"] == "ratio" and tc["effect"] is not None:
                points.append((f"{setup} @ {level}", tc, tv))
    return "\n".join(lines), points


def log_ratio(x):
    return math.log2(max(1 + x, 1e-3))


def figure(program, points):
    """Effect on task-clock per set-up and dose: a dot with its interval, log2 ratio axis."""
    row_h, left, width, top = 16, 330, 380, 40
    height = top + row_h * max(len(points), 1) + 50
    values = [0.0]
    for _, c, _ in points:
        values.append(log_ratio(c["effect"]))
        for end in (c["ci"]["lo"], c["ci"]["hi"]):
            if end is not None and math.isfinite(end):
                values.append(log_ratio(end))
    lo, hi = math.floor(min(values)), math.ceil(max(values))
    if lo == hi:
        hi = lo + 1
    x = lambda v: left + (v - lo) / (hi - lo) * width
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 30}" height="{height}" '
           f'font-family="sans-serif" font-size="11" class="atlas" data-program="{html.escape(program)}">',
           f'<text x="10" y="18" font-size="13" font-weight="bold">{html.escape(program)}: effect on the program\'s '
           f'task-clock per profiler set-up (90% interval; log scale)</text>']
    step = max(1, math.ceil((hi - lo) / 7))
    for t in range(lo, hi + 1, step):
        label = f"{100 * (2 ** t - 1):+.0f}%"
        svg.append(f'<line x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{top - 6}" y2="{height - 40}" stroke="#ddd"/>')
        svg.append(f'<text x="{x(t):.1f}" y="{height - 26}" text-anchor="middle">{label}</text>')
    svg.append(f'<line x1="{x(0):.1f}" x2="{x(0):.1f}" y1="{top - 6}" y2="{height - 40}" stroke="#333"/>')
    for i, (label, c, verdict) in enumerate(points):
        y = top + i * row_h + row_h / 2
        colour = colour_of(verdict)
        svg.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{html.escape(label)}</text>')
        lo_e, hi_e = c["ci"]["lo"], c["ci"]["hi"]
        if lo_e is not None and hi_e is not None:
            svg.append(f'<line class="ci" x1="{x(log_ratio(lo_e)):.1f}" x2="{x(log_ratio(hi_e)):.1f}" y1="{y:.1f}" '
                       f'y2="{y:.1f}" stroke="{colour}" stroke-width="1.5"/>')
        svg.append(f'<circle class="point" cx="{x(log_ratio(c["effect"])):.1f}" cy="{y:.1f}" r="3.5" fill="{colour}">'
                   f'<title>{html.escape(label)}: {pct(c["effect"])} ({html.escape(verdict)})</title></circle>')
    svg.append(f'<text x="10" y="{height - 8}">colour: perturbed (vermillion), not perturbed (green), '
               f'inconclusive (grey), incomparable (purple: runs timed out, a lower bound)</text>')
    svg.append("</svg>")
    return "\n".join(svg) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--date", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--load", required=True)
    ap.add_argument("--rate", required=True)
    ap.add_argument("--seconds", type=int, required=True)
    ap.add_argument("--programs", nargs="+", required=True)
    a = ap.parse_args()
    print(f"# The atlas: profiler set-ups on gzip, xz and sqlite3\n")
    print(f"Run {a.date} on {a.host}.  ")
    print(f"{a.load}.  ")
    print(f"{a.rate}.  ")
    print(f"The whole atlas took {a.seconds} s (`experiments/atlas/run.sh`; every command is in `commands.sh`).\n")
    print("Effects are the median paired ratio of the program's own task-clock (and wall time) at the dose against "
          "the same program with no profiler (dose 0), with obscheck's 90% confidence sequence; a verdict is decided "
          "against ±1%. Wall time is the program's own, from its exec to its exit (the profiler's start-up and exit "
          "are not in it); task-clock is the program's CPU time alone.\n")
    for p in a.programs:
        table, points = program_table(a.out, p)
        with open(os.path.join(a.out, p, f"atlas-{p}.svg"), "w") as f:
            f.write(figure(p, points))
        print(f"## {p}\n")
        print(f"![{p}]({p}/atlas-{p}.svg)\n")
        print(table + "\n")


if __name__ == "__main__":
    main()
