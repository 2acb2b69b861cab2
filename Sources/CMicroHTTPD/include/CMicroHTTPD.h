#ifndef TENBIN_CMICROHTTPD_H
#define TENBIN_CMICROHTTPD_H

// libmicrohttpd for tenbin serve. Swift calls most of libmicrohttpd directly through this
// module; the few calls below are C shims because the library's functions for them are
// variadic (MHD_start_daemon, MHD_get_connection_info, MHD_get_daemon_info), and Swift cannot
// call a C variadic function. tenbin does not link libmicrohttpd: library.c loads it on first
// use and defines the functions declared in microhttpd.h that tenbin calls. Call tb_http_load
// before any of them.

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Capacity of the reason tb_http_load writes, terminating NUL included.
#define TB_HTTP_ERROR_CAPACITY 300

/// Loads libmicrohttpd (once per process) and looks up every function tenbin calls. Returns 0
/// when they are ready; -1 with a NUL-terminated reason in `error` (TB_HTTP_ERROR_CAPACITY
/// bytes) naming the library and dlerror's reason. Thread-safe.
int tb_http_load(char *error);

/// Everything tb_http_start passes to MHD_start_daemon.
struct tb_http_options {
    /// The address to listen on (IPv4 or IPv6, port included).
    const struct sockaddr *address;
    /// Worker threads, each with its own epoll set.
    unsigned int threads;
    /// The most connections open at once.
    unsigned int connection_limit;
    /// The most connections open at once from one client address (0: no limit).
    unsigned int per_ip_limit;
    /// Seconds of inactivity after which a connection is closed.
    unsigned int timeout_seconds;
    /// Bytes of memory per connection for headers and buffers.
    size_t memory_limit;
    /// Pending connections the kernel keeps before accept.
    unsigned int backlog;
    MHD_AccessHandlerCallback handler;
    void *handler_context;
    MHD_RequestCompletedCallback completed;
    void *completed_context;
    /// Called with each request's raw target (path and query, undecoded) before anything
    /// else; what it returns becomes the request's context pointer.
    void *(*uri_logger)(void *context, const char *uri, struct MHD_Connection *connection);
    void *uri_logger_context;
    /// Called when a connection opens and when it closes (before its socket is closed).
    MHD_NotifyConnectionCallback notify_connection;
    void *notify_connection_context;
};

/// Starts a daemon with tenbin's flags (thread pool, epoll, suspend/resume, quiesce);
/// NULL when the address cannot be bound or the options are refused.
struct MHD_Daemon *tb_http_start(const struct tb_http_options *options);

/// The port the daemon listens on (useful after asking for port 0); 0 when unknown.
uint16_t tb_http_bound_port(struct MHD_Daemon *daemon);

/// The client's address of a connection, or NULL.
const struct sockaddr *tb_http_client_address(struct MHD_Connection *connection);

/// The socket of a connection (libmicrohttpd keeps owning it), or -1.
int tb_http_client_socket(struct MHD_Connection *connection);

/// The pointer the connection-notify callback stored for a connection when it opened, or NULL.
void *tb_http_socket_context(struct MHD_Connection *connection);

/// Has the C allocator keep up to `trim_threshold` bytes freed at the top of its heap for reuse
/// instead of handing them back to the system, and serve blocks under `mmap_threshold` bytes
/// from its heap instead of mapping each one (the defaults are 128 KiB, adjusted as it goes).
/// Not libmicrohttpd's: it is here as the server's one C module.
void tb_http_keep_freed_memory(size_t trim_threshold, size_t mmap_threshold);

/// An epoll set for peers closing their end of a connection, with an eventfd in it as event
/// number 0 (stored in `wake`); -1 and errno when either cannot be made.
int tb_hangup_create(int *wake);

/// Adds `socket` to the set, one-shot, for its peer's hang-up only, as event `number` (not 0).
int tb_hangup_add(int poll, int socket, uint64_t number);

/// Waits for events (retrying when interrupted) and stores their numbers; the count, or -1.
int tb_hangup_wait(int poll, uint64_t *numbers, int capacity);

/// Writes to the eventfd, which reports event 0.
int tb_hangup_wake(int wake);

#endif
