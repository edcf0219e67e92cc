// The journal's words (record/journal_notes.h): each kind spelled once, read back to
// the same value, and an unknown word read as unknown.
#include <catch2/catch.hpp>

#include "record/journal_notes.h"

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
