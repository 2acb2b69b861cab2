// libmicrohttpd, loaded with dlopen when `tenbin serve` starts rather than linked (CLibraryLoader).
//
// Debian's libmicrohttpd needs GnuTLS, which needs libp11-kit, libidn2, libunistring,
// libtasn1, libnettle, libhogweed and libgmp; GnuTLS and libtasn1 run constructors when loaded.
// Linked, that cost every tenbin process about 1.5 ms of its start (`tenbin vote` included),
// for a server most commands never start. Here the library is loaded on first use, and each
// function tenbin calls is defined under its own name as a trampoline through a pointer looked
// up once, so the Swift code calls MHD_queue_response and the rest as microhttpd.h declares them.

#include "library.h"

#include "CLibraryLoader.h"

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
    X(struct MHD_Response *, MHD_create_response_from_buffer_with_free_callback_cls,                     \
      (size_t size, void *buffer, MHD_ContentReaderFreeCallback free_buffer, void *context),           \
      (size, buffer, free_buffer, context))                                                             \
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
#define TB_MHD_POINTER_X(type, name, parameters, arguments) TB_LIBRARY_POINTER(name)
#define TB_MHD_POINTER_V(name, parameters, arguments) TB_LIBRARY_POINTER(name)
TB_MHD_FUNCTIONS(TB_MHD_POINTER_X, TB_MHD_POINTER_V, TB_MHD_POINTER)

#define TB_MHD_SYMBOL_X(type, name, parameters, arguments) TB_LIBRARY_SYMBOL(name)
#define TB_MHD_SYMBOL_V(name, parameters, arguments) TB_LIBRARY_SYMBOL(name)
static const tb_library_symbol tb_mhd_symbols[] = {TB_MHD_FUNCTIONS(TB_MHD_SYMBOL_X, TB_MHD_SYMBOL_V, TB_LIBRARY_SYMBOL)};

static tb_library tb_mhd = {
    .title = "libmicrohttpd",
    // Debian 12 ships libmicrohttpd.so.12 (package libmicrohttpd12).
    .names = {"libmicrohttpd.so.12"},
    .unloadable = "tenbin serve needs {library} (Debian package libmicrohttpd12), which cannot be loaded: {reason}",
    .no_reason = "unknown reason",
    .missing = "the {library} loaded has no {function}",
    TB_LIBRARY_FUNCTIONS(tb_mhd_symbols),
};

int tb_http_load(char *error) {
    return tb_library_load(&tb_mhd, error, TB_HTTP_ERROR_CAPACITY);
}

// The Swift side loads the library before it starts a daemon, and every other call needs a
// daemon, a connection or a response made after that (see tb_library_require).
void tb_mhd_require(const char *function) {
    tb_library_require(&tb_mhd, function);
}

#define TB_MHD_TRAMPOLINE_X(type, name, parameters, arguments) TB_LIBRARY_TRAMPOLINE(tb_mhd, type, name, parameters, arguments)
#define TB_MHD_TRAMPOLINE_V(name, parameters, arguments) TB_LIBRARY_TRAMPOLINE_VOID(tb_mhd, name, parameters, arguments)
#define TB_MHD_TRAMPOLINE_P(name)
TB_MHD_FUNCTIONS(TB_MHD_TRAMPOLINE_X, TB_MHD_TRAMPOLINE_V, TB_MHD_TRAMPOLINE_P)
