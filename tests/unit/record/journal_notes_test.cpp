// The journal's words (record/journal_notes.h): each kind spelled once, read back to
// the same value, and an unknown word read as unknown.
#include <catch2/catch.hpp>

#include "record/journal_notes.h"
#include "util/error.h"

using namespace obscheck;

TEST_CASE("journal notes: every word reads back as the value that wrote it") {
  for (JobKind k : {JobKind::check, JobKind::measure, JobKind::bias, JobKind::compare})
    CHECK(job_kind_from(to_string(k)) == k);
  for (NoteKind k : {NoteKind::look, NoteKind::retire, NoteKind::extend, NoteKind::finished, NoteKind::interrupted})
    CHECK(note_kind_from(to_string(k)) == k);
  for (StopReason s : {StopReason::decided, StopReason::budget, StopReason::futile, StopReason::cap, StopReason::fixed,
                       StopReason::interrupted, StopReason::failed})
    CHECK(stop_reason_from(to_string(s)) == s);
  CHECK(to_string(StopReason::futile) == "futile");
  CHECK(to_string(NoteKind::finished) == "finished");
  CHECK_FALSE(job_kind_from("Check"));
  CHECK_FALSE(stop_reason_from(""));
}

TEST_CASE("journal notes: a manifest without a command is a check's, an unknown command is none") {
  CHECK(job_kind_of(nlohmann::json::object()) == JobKind::check);
  CHECK(job_kind_of({{"command", "bias"}}) == JobKind::bias);
  CHECK_FALSE(job_kind_of({{"command", "sweep"}}));
  CHECK_FALSE(job_kind_of({{"command", 3}}));
  CHECK(is_sweep(JobKind::compare));
  CHECK_FALSE(is_sweep(JobKind::measure));
}

TEST_CASE("journal notes: a job ended when its last note says finished") {
  CHECK(end_note(false) == nlohmann::json{{"kind", "finished"}});
  CHECK(end_note(true) == nlohmann::json{{"kind", "interrupted"}});
  CHECK(ends_finished({end_note(true), end_note(false)}));
  CHECK_FALSE(ends_finished({end_note(false), end_note(true)}));
  CHECK_FALSE(ends_finished({}));
  CHECK_FALSE(ends_finished({nlohmann::json("finished")}));
}

// ---- the typed notes: one encoder and one decoder each, checked both ways ----------

namespace {

// The decoder's message for `note`, or "" when it decodes.
template <class Decode>
std::string refusal(Decode decode, const nlohmann::json& note) {
  try {
    decode(note);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::io);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("journal notes: each typed note reads back as the note that wrote it") {
  const SweepStretch stretch{.looks = 4, .seconds_per_block = 0.25, .analysis_seconds = 0.01, .seconds = 3.5,
                             .stopped = "cap", .blocks = 12, .runs_saved = 7, .time_budget = 60};
  const EndNote end{false, 54, stretch};
  CHECK(end_note_from(to_json(end)) == end);
  CHECK(to_json(end).at("kind") == "finished");
  const EndNote bare{true, std::nullopt, std::nullopt};
  CHECK(end_note_from(to_json(bare)) == bare);
  CHECK(to_json(bare) == end_note(true));
  const LookNote look{3, 8, 72, 1.5, {{"task-clock", "not perturbed"}}};
  CHECK(look_note_from(to_json(look)) == look);
  const RetireNote retire{2, 5, {"counters=a/held", "counters=a/shifted"}};
  CHECK(retire_note_from(to_json(retire)) == retire);
  const ExtendNote extend{12, 6};
  CHECK(extend_note_from(to_json(extend)) == extend);
  CHECK(extend_note_from({{"kind", "extend"}, {"max_blocks", 9}}) == ExtendNote{9, std::nullopt});  // before from_blocks
  CHECK(last_stretch({to_json(look), to_json(end), to_json(extend)}) == stretch);
  CHECK_FALSE(last_stretch({to_json(look), to_json(bare)}));
}

TEST_CASE("journal notes: a field of the wrong type or out of range is named, never a JSON type error") {
  nlohmann::json end = to_json(EndNote{false, 3, SweepStretch{.looks = 1, .stopped = "decided", .blocks = 3}});
  nlohmann::json bad = end;
  bad["sweep"]["looks"] = "many";
  CHECK(refusal(end_note_from, bad) == "field sweep.looks is not a whole number of 0 or more");
  bad = end;
  bad["sweep"]["seconds_per_block"] = nlohmann::json::array();
  CHECK(refusal(end_note_from, bad) == "field sweep.seconds_per_block is not a number");
  bad = end;
  bad["sweep"]["seconds_per_block"] = -1.0;
  CHECK(refusal(end_note_from, bad).find("field sweep.seconds_per_block is -1") == 0);
  bad = end;
  bad["sweep"]["time_budget"] = 1e308;
  CHECK(refusal(end_note_from, bad).find("field sweep.time_budget is 1e+308") == 0);
  bad = end;
  bad["sweep"]["blocks"] = 477218587;
  CHECK(refusal(end_note_from, bad) == "field sweep.blocks is 477218587, beyond 1000000");
  bad = end;
  bad["sweep"] = "done";
  CHECK(refusal(end_note_from, bad) == "field sweep is not an object");
  bad = end;
  bad["runs"] = -4;
  CHECK(refusal(end_note_from, bad) == "field runs is not a whole number of 0 or more");

  CHECK(refusal(extend_note_from, {{"kind", "extend"}}) == "field max_blocks is missing");
  CHECK(refusal(extend_note_from, {{"kind", "extend"}, {"max_blocks", 477218587}}) ==
        "field max_blocks is 477218587, beyond 1000000");
  CHECK(refusal(extend_note_from, {{"kind", "extend"}, {"max_blocks", 6}, {"from_blocks", 6}}) ==
        "field max_blocks is 6, which does not raise the cap from 6");
  CHECK(refusal(extend_note_from, {{"kind", "extend"}, {"max_blocks", "6"}}) ==
        "field max_blocks is not a whole number of 0 or more");

  CHECK(refusal(retire_note_from, {{"kind", "retire"}, {"configs", {"a"}}}) == "field from_block is missing");
  CHECK(refusal(retire_note_from, {{"kind", "retire"}, {"from_block", 2}, {"configs", {1, 2}}}) ==
        "field configs holds something other than a configuration's id");
  CHECK(refusal(retire_note_from, {{"kind", "retire"}, {"from_block", 2}, {"configs", nlohmann::json::array()}}) ==
        "field configs is not a list of configurations");
  CHECK(refusal(look_note_from, {{"kind", "look"}, {"look", 1}, {"decided", {{{"metric", 3}}}}}) ==
        "field decided[].metric is not a string");
  CHECK(refusal(look_note_from, {{"kind", "look"}, {"look", "first"}}) == "field look is not a whole number of 0 or more");
  CHECK(look_note_from({{"kind", "look"}}) == LookNote{});  // a field absent keeps its default

  // check_note decodes by kind; a kind this version does not know passes.
  CHECK_THROWS_AS(check_note({{"kind", "extend"}, {"max_blocks", -1}}), Error);
  CHECK_NOTHROW(check_note({{"kind", "from-a-later-version"}, {"max_blocks", -1}}));
  CHECK_NOTHROW(check_note({{"no-kind", 1}}));
}
