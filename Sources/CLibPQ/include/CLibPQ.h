#ifndef TENBIN_CLIBPQ_H
#define TENBIN_CLIBPQ_H

// libpq's types, constants and function declarations, for the PostgreSQL backend only.
// Debian's libpq-dev installs its headers under /usr/include/postgresql; libpq-fe.h includes
// postgres_ext.h with quotes, which resolves beside it. tenbin does not link libpq: the
// functions declared there that tenbin calls are defined in libpq.c, which loads libpq on
// first use (see there). Call tb_libpq_load before any of them.
#include <postgresql/libpq-fe.h>

/// Capacity of the reason tb_libpq_load writes, terminating NUL included.
#define TB_LIBPQ_ERROR_CAPACITY 400

/// Loads libpq (once per process) and looks up every function tenbin calls. Returns 0 when
/// they are ready; -1 with a NUL-terminated reason in `error` (TB_LIBPQ_ERROR_CAPACITY bytes)
/// when libpq cannot be loaded, naming the library and dlerror's reason. Thread-safe.
int tb_libpq_load(char *error);

/// After a command was sent: reads its answer as it arrives for at most `spin_nanoseconds`
/// rather than sleeping until it is there. Returns 1 once PQgetResult would not block; 0 when
/// the time is up or the connection failed (PQgetResult then sleeps, or reports the failure).
int tb_pq_await(PGconn *conn, long spin_nanoseconds);

#endif
