// util/: where obscheck keeps the journals nobody named: the user's state directory
// (XDG Base Directory Specification, "state": data that persists between runs but is
// not worth backing up), so a check leaves nothing in the current directory.
//
//   $XDG_STATE_HOME/obscheck     when XDG_STATE_HOME is set to an absolute path
//   $HOME/.local/state/obscheck  otherwise ($HOME, else the password database's home)
//
// The directory is created on first use with mode 0700 (missing parents too, 0700 as
// the specification asks). Whether just made or found, it must be a real directory (not
// a symbolic link) owned by the effective user and writable by no one else: a journal
// in a directory another user can write could be swapped or read. Anything else is
// refused with Error(io) and the way out (--journal FILE).
#pragma once

#include <string>

namespace obscheck {

// The journal directory as configured, without touching the filesystem. Throws
// Error(io) when no home directory can be found.
std::string journal_directory_path();

// journal_directory_path(), created and checked as above. Returns its path.
std::string journal_directory();

}  // namespace obscheck
