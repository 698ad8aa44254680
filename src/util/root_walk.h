// pmukit -- internal: path resolution inside a root one component at a time, the fallback for
// kernels without openat2(RESOLVE_IN_ROOT) and the way directories are created under a root.
#pragma once

#include <sys/types.h>

#include <filesystem>

namespace pmukit::detail {

// Resolves `rel` (relative to the directory `root_fd`) with RESOLVE_IN_ROOT's rules: ".." stops
// at the root, an absolute link restarts at the root, at most 40 links (Linux MAXSYMLINKS), every
// step opened with O_NOFOLLOW so the kernel itself never follows a link. The last component is
// opened with `flags` (O_NOFOLLOW in flags: a final link is ELOOP). With `make_dirs`, missing
// components are created as directories (mode 0755) and the result is the last one, opened with
// `flags`. Returns a descriptor or -errno.
int walk_open(int root_fd, const std::filesystem::path& rel, int flags, mode_t mode, bool make_dirs);

}  // namespace pmukit::detail
