// libpq, loaded with dlopen on the first PostgreSQL use rather than linked (CLibraryLoader).
//
// libpq pulls in about twenty shared libraries (libssl, libcrypto, Kerberos, LDAP and through
// it GnuTLS, libsasl2, libp11-kit, libidn2, libunistring …), and several run constructors when
// loaded (GnuTLS initialises itself, libtasn1 parses its tables): linking libpq made every
// tenbin process, `tenbin vote` on SQLite included, spend about 2.5 ms of its start in the
// dynamic loader for a database it does not use. Here libpq is loaded on first use, and each
// libpq function tenbin calls is defined under its own name as a trampoline through a pointer
// looked up once, so the Swift code calls PQexec and friends as declared in libpq-fe.h.
//
// TENBIN_LIBPQ, when set, names the library to load instead of libpq.so.5 (a path, or a
// name the loader searches for): for a libpq installed outside the loader's path, and for the
// test that proves a missing libpq is one clear error.

#include "CLibPQ.h"

#include "CLibraryLoader.h"

#include <sched.h>
#include <time.h>

// Every libpq function tenbin calls, the one list: X(return type, name, parameters, arguments)
// for functions returning a value, V(name, parameters, arguments) for those returning nothing.
// A parameter list that differs from libpq-fe.h's declaration fails to compile.
#define TB_LIBPQ_FUNCTIONS(X, V)                                                                        \
    X(PGconn *, PQconnectdbParams, (const char *const *keywords, const char *const *values, int expand), \
      (keywords, values, expand))                                                                       \
    V(PQfinish, (PGconn * conn), (conn))                                                                \
    X(ConnStatusType, PQstatus, (const PGconn *conn), (conn))                                           \
    X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn))                      \
    X(char *, PQerrorMessage, (const PGconn *conn), (conn))                                             \
    X(int, PQsocket, (const PGconn *conn), (conn))                                                      \
    X(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn * conn, PQnoticeProcessor proc, void *arg),     \
      (conn, proc, arg))                                                                                \
    X(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg))   \
    V(PQconninfoFree, (PQconninfoOption * options), (options))                                          \
    V(PQfreemem, (void *ptr), (ptr))                                                                    \
    X(PGresult *, PQexec, (PGconn * conn, const char *query), (conn, query))                            \
    X(PGresult *, PQexecParams,                                                                         \
      (PGconn * conn, const char *command, int count, const Oid *types, const char *const *values,    \
       const int *lengths, const int *formats, int resultFormat),                                       \
      (conn, command, count, types, values, lengths, formats, resultFormat))                            \
    X(PGresult *, PQprepare, (PGconn * conn, const char *name, const char *query, int count, const Oid *types), \
      (conn, name, query, count, types))                                                                \
    X(PGresult *, PQexecPrepared,                                                                       \
      (PGconn * conn, const char *name, int count, const char *const *values, const int *lengths,      \
       const int *formats, int resultFormat),                                                           \
      (conn, name, count, values, lengths, formats, resultFormat))                                      \
    X(int, PQsendQuery, (PGconn * conn, const char *query), (conn, query))                              \
    X(int, PQsendQueryParams,                                                                           \
      (PGconn * conn, const char *command, int count, const Oid *types, const char *const *values,    \
       const int *lengths, const int *formats, int resultFormat),                                       \
      (conn, command, count, types, values, lengths, formats, resultFormat))                            \
    X(int, PQsendPrepare, (PGconn * conn, const char *name, const char *query, int count, const Oid *types), \
      (conn, name, query, count, types))                                                                \
    X(int, PQsendQueryPrepared,                                                                         \
      (PGconn * conn, const char *name, int count, const char *const *values, const int *lengths,      \
       const int *formats, int resultFormat),                                                           \
      (conn, name, count, values, lengths, formats, resultFormat))                                      \
    X(PGresult *, PQgetResult, (PGconn * conn), (conn))                                                 \
    X(int, PQconsumeInput, (PGconn * conn), (conn))                                                     \
    X(int, PQisBusy, (PGconn * conn), (conn))                                                           \
    X(PGnotify *, PQnotifies, (PGconn * conn), (conn))                                                  \
    X(int, PQenterPipelineMode, (PGconn * conn), (conn))                                                \
    X(int, PQexitPipelineMode, (PGconn * conn), (conn))                                                 \
    X(int, PQpipelineSync, (PGconn * conn), (conn))                                                     \
    V(PQclear, (PGresult * res), (res))                                                                 \
    X(ExecStatusType, PQresultStatus, (const PGresult *res), (res))                                     \
    X(char *, PQresultErrorField, (const PGresult *res, int code), (res, code))                         \
    X(char *, PQcmdTuples, (PGresult * res), (res))                                                     \
    X(int, PQntuples, (const PGresult *res), (res))                                                     \
    X(int, PQfformat, (const PGresult *res, int field), (res, field))                                   \
    X(char *, PQfname, (const PGresult *res, int field), (res, field))                                  \
    X(char *, PQgetvalue, (const PGresult *res, int row, int field), (res, row, field))                 \
    X(int, PQgetlength, (const PGresult *res, int row, int field), (res, row, field))                   \
    X(int, PQgetisnull, (const PGresult *res, int row, int field), (res, row, field))

#define TB_LIBPQ_POINTER_X(type, name, parameters, arguments) TB_LIBRARY_POINTER(name)
#define TB_LIBPQ_POINTER_V(name, parameters, arguments) TB_LIBRARY_POINTER(name)
TB_LIBPQ_FUNCTIONS(TB_LIBPQ_POINTER_X, TB_LIBPQ_POINTER_V)

#define TB_LIBPQ_SYMBOL_X(type, name, parameters, arguments) TB_LIBRARY_SYMBOL(name)
#define TB_LIBPQ_SYMBOL_V(name, parameters, arguments) TB_LIBRARY_SYMBOL(name)
static const tb_library_symbol tb_libpq_symbols[] = {TB_LIBPQ_FUNCTIONS(TB_LIBPQ_SYMBOL_X, TB_LIBPQ_SYMBOL_V)};

static tb_library tb_libpq = {
    .title = "libpq",
    // Debian 12 ships libpq.so.5 (package libpq5), the soname every libpq since 2006 has had.
    .names = {"libpq.so.5"},
    .override = "TENBIN_LIBPQ",
    .unloadable = "PostgreSQL needs {library} (Debian package libpq5), which cannot be loaded: {reason}",
    .no_reason = "unknown reason",
    .missing = "the library loaded as libpq from {library} has no {function} (tenbin needs libpq 14 or newer)",
    TB_LIBRARY_FUNCTIONS(tb_libpq_symbols),
};

int tb_libpq_load(char *error) {
    return tb_library_load(&tb_libpq, error, TB_LIBPQ_ERROR_CAPACITY);
}

// The Swift side loads libpq before it parses a connection string, and every other call needs
// a connection or a result made after that (see tb_library_require).
#define TB_LIBPQ_TRAMPOLINE_X(type, name, parameters, arguments) TB_LIBRARY_TRAMPOLINE(tb_libpq, type, name, parameters, arguments)
#define TB_LIBPQ_TRAMPOLINE_V(name, parameters, arguments) TB_LIBRARY_TRAMPOLINE_VOID(tb_libpq, name, parameters, arguments)
TB_LIBPQ_FUNCTIONS(TB_LIBPQ_TRAMPOLINE_X, TB_LIBPQ_TRAMPOLINE_V)

// Reads the server's answer as it arrives, for at most `spin_nanoseconds`, instead of sleeping
// in poll() until it is there. Each check yields the processor to any other runnable thread
// first. Why (waking a sleeping processor on a virtual machine costs more than a short
// statement): AnswerWaiting.swift.
int tb_pq_await(PGconn *conn, long spin_nanoseconds) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (!PQisBusy(conn)) return 1;
        // A failed read leaves the failure for PQgetResult to report.
        if (PQconsumeInput(conn) != 1) return 0;
        if (!PQisBusy(conn)) return 1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long elapsed = (now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec);
        if (elapsed >= spin_nanoseconds) return 0;
        sched_yield();
    }
}
