// util/: the one way obscheck writes a whole file (reports, figures, the build-variant
// cache). docs/security.md: obscheck is often run as root, in directories
// other local users can write to (/tmp, a shared lab directory), so nothing it writes
// may be redirected by them.
//
// How a file is written: the destination's directory is opened once; a new file with
// a fresh random name (".NAME.obscheck-<16 random hex digits>") is created in that
// same directory with O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, written, fsynced and
// renamed over NAME (renameat on the directory's descriptor), then the directory is
// fsynced. So:
//   - no name obscheck opens for writing can be guessed in advance and planted
//     (the old "NAME.tmp" could), and O_EXCL | O_NOFOLLOW refuses one planted anyway;
//   - a symbolic link already at NAME is *replaced*, never followed: rename(2) acts on
//     the directory entry, so the link's target is left unchanged and NAME becomes the
//     new regular file. Replacing was chosen over refusing because refusing would let
//     any user who can write to the directory stop every report by planting a link,
//     while replacing cannot be turned against the writer: the link is never opened;
//   - a regular file of ours already at NAME is replaced by one with its permission
//     bits (a report made private stays private), never its set-user-ID, set-group-ID
//     or sticky bit (one planted mode 6777 would make root's report set-user-ID root);
//     a new file, or one replacing another user's, gets `mode` less the umask;
//   - a character device or a FIFO at NAME (`-o /dev/null`, `-o pipe`) is written
//     into, never replaced (as a shell's `>` does; a FIFO waits for its reader),
//     unless it is another user's in a sticky directory others can write to (the
//     kernel's protected_fifos rule: it was planted): Error(io). A block device is
//     refused. /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name this
//     process's descriptor N, which is written to as it is. Neither applies to
//     Existing::refuse, which never writes into anything already there;
//   - a reader sees the old file or the whole new one, never half of it, and after a
//     crash the new file is either complete or absent (a stray .NAME.obscheck-* file at
//     worst);
//   - the temporary file and the rename are in one directory even if the path to it is
//     changed meanwhile: the directory is resolved once (symbolic links in the path the
//     user typed are followed, as the user asked for that path).
// Errors are Error(io) (exit 6) naming the destination and the reason; nothing is left
// behind on failure. A destination that is a directory is refused (EISDIR).
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "util/fd.h"

namespace obscheck {

// Files obscheck writes are readable by all (reports are meant to be shared); the
// process umask still applies.
inline constexpr mode_t kOutputFileMode = 0644;
inline constexpr mode_t kOutputDirMode = 0755;

// What a write does to a file (or link) already at the name: replace it, as above, or
// refuse: the rename is renameat2(RENAME_NOREPLACE), so a file that appears between a
// caller's own check and the write is not replaced either (a plan shards may be
// running). Refusing throws Error(io) "NAME exists" and leaves no temporary file.
enum class Existing { replace, refuse };

// Writes `bytes` to `path` as described above. `path` must name a file (not end in
// '/', '.' or '..').
void write_file_safely(const std::string& path, std::string_view bytes, mode_t mode = kOutputFileMode,
                       Existing existing = Existing::replace);

// The same into an open directory: `name` is a plain file name (no '/'); `dir_path`
// only names the directory in messages.
void write_file_at(int dir_fd, const std::string& dir_path, const std::string& name, std::string_view bytes,
                   mode_t mode = kOutputFileMode, Existing existing = Existing::replace);

// Who else may write into a directory obscheck writes to.
enum class DirAccess {
  // Others may write there (e.g. --svg /tmp/figs): fine, since every file goes in by
  // write_file_at, which no planted name can redirect.
  shared,
  // obscheck hands paths inside it to another program (a build command's -o {out})
  // that writes through whatever it finds, or writes files that are run later as
  // this user (slurm's job scripts): it must be owned by this user and not writable
  // by group or others, so nobody else can plant a link or replace a file there.
  private_to_us,
};

// Opens the directory `path` (O_DIRECTORY | O_NOFOLLOW), creating it (and its missing
// parents) with `mode` first when absent. Throws Error(io) when it cannot be created
// or opened, when its last component is a symbolic link (obscheck does not write into
// a directory another user could have pointed elsewhere; give the real directory), or,
// for DirAccess::private_to_us, when another user owns it or group/others can write
// to it.
UniqueFd open_output_dir(const std::string& path, DirAccess access = DirAccess::shared, mode_t mode = kOutputDirMode);

}  // namespace obscheck
