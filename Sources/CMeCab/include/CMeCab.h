#ifndef TENBIN_CMECAB_H
#define TENBIN_CMECAB_H

// MeCab's types and function declarations, for search by reading only (TenbinKit's
// Search/Reading folder). tenbin does not link libmecab: the functions declared in mecab.h
// that tenbin calls are defined in mecab.c, which loads libmecab on first use (see there).
// Call tb_mecab_load before any of them.
#include <mecab.h>

/// Capacity of the reason tb_mecab_load writes, terminating NUL included.
#define TB_MECAB_ERROR_CAPACITY 400

/// Loads libmecab (once per process) and looks up every function tenbin calls. Returns 0 when
/// they are ready; -1 with a NUL-terminated reason in `error` (TB_MECAB_ERROR_CAPACITY bytes)
/// when libmecab cannot be loaded, naming the library and dlerror's reason. Thread-safe.
int tb_mecab_load(char *error);

#endif
