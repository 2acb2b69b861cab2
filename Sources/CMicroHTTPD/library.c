// libmicrohttpd, loaded with dlopen when `tenbin serve` starts rather than linked.
//
// Debian's libmicrohttpd needs GnuTLS, which needs libp11-kit, libidn2, libunistring,
// libtasn1, libnettle, libhogweed and libgmp; GnuTLS and libtasn1 run constructors when loaded.
// Linked, that cost every tenbin process about 1.5 ms of its start (`tenbin vote` included),
// for a server most commands never start. Here the library is loaded on first use, RTLD_LOCAL,
// and each function tenbin calls is defined under its own name as a trampoline through a
// pointer looked up once, so the Swift code calls MHD_queue_response and the rest as
// microhttpd.h declares them. The trampolines are hidden: an executable exports its symbols,
// and libmicrohttpd's own calls between its functions must not resolve to them.

#include "library.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// Every libmicrohttpd function tenbin calls, the one list: X(return type, name, parameters,
// arguments) for functions returning a value, V(name, parameters, arguments) for those returning
// nothing, P(name) for the variadic ones shim.c calls through their pointers (tb_MHD_…).
// A parameter list that differs from microhttpd.h's declaration fails to compile.
#define TB_MHD_FUNCTIONS(X, V, P)                                                                       \
    P(MHD_start_daemon)                                                                                 \
    P(MHD_get_daemon_info)                                                                              \
    P(MHD_get_connection_info)                                                                          \
    X(MHD_socket, MHD_quiesce_daemon, (struct MHD_Daemon * daemon), (daemon))                           \
    V(MHD_stop_daemon, (struct MHD_Daemon * daemon), (daemon))                                          \
    X(int, MHD_get_connection_values,                                                                   \
      (struct MHD_Connection * connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator,     \
       void *context),                                                                                  \
      (connection, kind, iterator, context))                                                            \
    V(MHD_suspend_connection, (struct MHD_Connection * connection), (connection))                       \
    V(MHD_resume_connection, (struct MHD_Connection * connection), (connection))                        \
    X(struct MHD_Response *, MHD_create_response_from_buffer,                                           \
      (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode))              \
    X(struct MHD_Response *, MHD_create_response_from_fd64, (uint64_t size, int fd), (size, fd))       \
    X(struct MHD_Response *, MHD_create_response_from_callback,                                         \
      (uint64_t size, size_t block_size, MHD_ContentReaderCallback reader, void *context,              \
       MHD_ContentReaderFreeCallback free_context),                                                     \
      (size, block_size, reader, context, free_context))                                                \
    X(enum MHD_Result, MHD_add_response_header,                                                         \
      (struct MHD_Response * response, const char *header, const char *content),                       \
      (response, header, content))                                                                      \
    X(enum MHD_Result, MHD_queue_response,                                                              \
      (struct MHD_Connection * connection, unsigned int status, struct MHD_Response *response),        \
      (connection, status, response))                                                                   \
    V(MHD_destroy_response, (struct MHD_Response * response), (response))                               \
    X(struct MHD_PostProcessor *, MHD_create_post_processor,                                            \
      (struct MHD_Connection * connection, size_t buffer_size, MHD_PostDataIterator iterator,          \
       void *context),                                                                                  \
      (connection, buffer_size, iterator, context))                                                     \
    X(enum MHD_Result, MHD_post_process, (struct MHD_PostProcessor * processor, const char *data, size_t size), \
      (processor, data, size))                                                                          \
    X(enum MHD_Result, MHD_destroy_post_processor, (struct MHD_PostProcessor * processor), (processor))

#define TB_MHD_POINTER(name) __typeof__(&name) tb_##name;
#define TB_MHD_POINTER_X(type, name, parameters, arguments) static TB_MHD_POINTER(name)
#define TB_MHD_POINTER_V(name, parameters, arguments) static TB_MHD_POINTER(name)
TB_MHD_FUNCTIONS(TB_MHD_POINTER_X, TB_MHD_POINTER_V, TB_MHD_POINTER)

static pthread_once_t tb_mhd_once = PTHREAD_ONCE_INIT;
static int tb_mhd_loaded;
static char tb_mhd_error[TB_HTTP_ERROR_CAPACITY];

static void tb_mhd_open(void) {
    // Debian 12 ships libmicrohttpd.so.12 (package libmicrohttpd12).
    const char *library_name = "libmicrohttpd.so.12";
    void *library = dlopen(library_name, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(tb_mhd_error, sizeof tb_mhd_error, "tenbin serve needs %s (Debian package libmicrohttpd12), which cannot be loaded: %s",
                 library_name, reason != NULL ? reason : "unknown reason");
        return;
    }
#define TB_MHD_LOOKUP(name)                                                                             \
    tb_##name = (__typeof__(&name))dlsym(library, #name);                                               \
    if (tb_##name == NULL) {                                                                            \
        snprintf(tb_mhd_error, sizeof tb_mhd_error, "the %s loaded has no %s", library_name, #name);   \
        return;                                                                                         \
    }
#define TB_MHD_LOOKUP_X(type, name, parameters, arguments) TB_MHD_LOOKUP(name)
#define TB_MHD_LOOKUP_V(name, parameters, arguments) TB_MHD_LOOKUP(name)
    TB_MHD_FUNCTIONS(TB_MHD_LOOKUP_X, TB_MHD_LOOKUP_V, TB_MHD_LOOKUP)
    tb_mhd_loaded = 1;
}

int tb_http_load(char *error) {
    // pthread_once only fails on invalid arguments, which these are not.
    (void)pthread_once(&tb_mhd_once, tb_mhd_open);
    if (!tb_mhd_loaded) {
        snprintf(error, TB_HTTP_ERROR_CAPACITY, "%s", tb_mhd_error);
        return -1;
    }
    return 0;
}

// Calling a trampoline before tb_http_load succeeded would jump through a null pointer. The
// Swift side loads the library before it starts a daemon, and every other call needs a daemon,
// a connection or a response made after that, so this stops only a broken invariant.
void tb_mhd_require(const char *function) {
    if (!tb_mhd_loaded) {
        fprintf(stderr, "tenbin: internal error: %s called before libmicrohttpd was loaded\n", function);
        abort();
    }
}

#define TB_MHD_TRAMPOLINE_X(type, name, parameters, arguments)                                          \
    __attribute__((visibility("hidden"))) type name parameters {                                        \
        tb_mhd_require(#name);                                                                          \
        return tb_##name arguments;                                                                     \
    }
#define TB_MHD_TRAMPOLINE_V(name, parameters, arguments)                                                \
    __attribute__((visibility("hidden"))) void name parameters {                                        \
        tb_mhd_require(#name);                                                                          \
        tb_##name arguments;                                                                            \
    }
#define TB_MHD_TRAMPOLINE_P(name)
TB_MHD_FUNCTIONS(TB_MHD_TRAMPOLINE_X, TB_MHD_TRAMPOLINE_V, TB_MHD_TRAMPOLINE_P)
