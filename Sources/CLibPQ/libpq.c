// libpq, loaded with dlopen on the first PostgreSQL use rather than linked.
//
// libpq pulls in about twenty shared libraries (libssl, libcrypto, Kerberos, LDAP and through
// it GnuTLS, libsasl2, libp11-kit, libidn2, libunistring …), and several run constructors when
// loaded (GnuTLS initialises itself, libtasn1 parses its tables): linking libpq made every
// tenbin process, `tenbin vote` on SQLite included, spend about 2.5 ms of its start in the
// dynamic loader for a database it does not use. Here libpq is loaded on first use, RTLD_LOCAL,
// and each libpq function tenbin calls is defined under its own name as a trampoline through a
// pointer looked up once, so the Swift code calls PQexec and friends as declared in
// libpq-fe.h. The trampolines are hidden: an executable exports its symbols, and libpq's own
// calls between its functions must not resolve to them.
//
// TENBIN_LIBPQ, when set, names the library to load instead of libpq.so.5 (a path, or a
// name the loader searches for): for a libpq installed outside the loader's path, and for the
// test that proves a missing libpq is one clear error.

#include "CLibPQ.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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
    X(char *, PQgetvalue, (const PGresult *res, int row, int field), (res, row, field))                 \
    X(int, PQgetlength, (const PGresult *res, int row, int field), (res, row, field))                   \
    X(int, PQgetisnull, (const PGresult *res, int row, int field), (res, row, field))

#define TB_LIBPQ_POINTER(name) static __typeof__(&name) tb_##name;
#define TB_LIBPQ_POINTER_X(type, name, parameters, arguments) TB_LIBPQ_POINTER(name)
#define TB_LIBPQ_POINTER_V(name, parameters, arguments) TB_LIBPQ_POINTER(name)
TB_LIBPQ_FUNCTIONS(TB_LIBPQ_POINTER_X, TB_LIBPQ_POINTER_V)

static pthread_once_t tb_libpq_once = PTHREAD_ONCE_INIT;
static int tb_libpq_loaded;
static char tb_libpq_error[TB_LIBPQ_ERROR_CAPACITY];

static void tb_libpq_open(void) {
    const char *override = getenv("TENBIN_LIBPQ");
    // Debian 12 ships libpq.so.5 (package libpq5), the soname every libpq since 2006 has had.
    const char *library_name = override != NULL && override[0] != '\0' ? override : "libpq.so.5";
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(tb_libpq_error, sizeof tb_libpq_error, "PostgreSQL needs %s (Debian package libpq5), which cannot be loaded: %s",
                 library_name, reason != NULL ? reason : "unknown reason");
        return;
    }
#define TB_LIBPQ_LOOKUP(name)                                                                           \
    tb_##name = (__typeof__(&name))dlsym(library, #name);                                               \
    if (tb_##name == NULL) {                                                                            \
        snprintf(tb_libpq_error, sizeof tb_libpq_error, "the library loaded as libpq from %s has no %s (tenbin needs libpq 14 or newer)", library_name, #name); \
        return;                                                                                         \
    }
#define TB_LIBPQ_LOOKUP_X(type, name, parameters, arguments) TB_LIBPQ_LOOKUP(name)
#define TB_LIBPQ_LOOKUP_V(name, parameters, arguments) TB_LIBPQ_LOOKUP(name)
    TB_LIBPQ_FUNCTIONS(TB_LIBPQ_LOOKUP_X, TB_LIBPQ_LOOKUP_V)
    tb_libpq_loaded = 1;
}

int tb_libpq_load(char *error) {
    // pthread_once only fails on invalid arguments, which these are not.
    (void)pthread_once(&tb_libpq_once, tb_libpq_open);
    if (!tb_libpq_loaded) {
        snprintf(error, TB_LIBPQ_ERROR_CAPACITY, "%s", tb_libpq_error);
        return -1;
    }
    return 0;
}

// Calling a trampoline before tb_libpq_load succeeded would jump through a null pointer. The
// Swift side loads libpq before it parses a connection string, and every other call needs a
// connection or a result made after that, so this stops only a broken invariant.
static void tb_libpq_require(const char *function) {
    if (!tb_libpq_loaded) {
        fprintf(stderr, "tenbin: internal error: %s called before libpq was loaded\n", function);
        abort();
    }
}

#define TB_LIBPQ_TRAMPOLINE_X(type, name, parameters, arguments)                                        \
    __attribute__((visibility("hidden"))) type name parameters {                                        \
        tb_libpq_require(#name);                                                                        \
        return tb_##name arguments;                                                                     \
    }
#define TB_LIBPQ_TRAMPOLINE_V(name, parameters, arguments)                                              \
    __attribute__((visibility("hidden"))) void name parameters {                                        \
        tb_libpq_require(#name);                                                                        \
        tb_##name arguments;                                                                            \
    }
TB_LIBPQ_FUNCTIONS(TB_LIBPQ_TRAMPOLINE_X, TB_LIBPQ_TRAMPOLINE_V)
