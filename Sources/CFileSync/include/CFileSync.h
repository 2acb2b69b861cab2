#ifndef TENBIN_CFILESYNC_H
#define TENBIN_CFILESYNC_H

/// syncfs(2): flushes every dirty page and pending metadata change of the file system that
/// holds `fd`, in one call. Glibc declares it only under _GNU_SOURCE, which Swift's Glibc
/// module does not define, so this shim exists to reach it. Returns 0, or -1 with errno set.
int tb_syncfs(int fd);

#endif
