// Shims for libmicrohttpd's variadic functions, which Swift cannot call (see CMicroHTTPD.h),
// called through the pointers library.c looks up.
#include "library.h"

#include <malloc.h>
#include <netinet/in.h>

struct MHD_Daemon *tb_http_start(const struct tb_http_options *options) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
    if (options->address->sa_family == AF_INET6) flags |= MHD_USE_IPv6;
    // Options as an array, so each one is set by name instead of by position in a va_list.
    struct MHD_OptionItem items[] = {
        {MHD_OPTION_SOCK_ADDR, 0, (void *)options->address},
        {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)options->threads, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, (intptr_t)options->connection_limit, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)options->per_ip_limit, NULL},
        {MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)options->timeout_seconds, NULL},
        {MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)options->memory_limit, NULL},
        {MHD_OPTION_LISTEN_BACKLOG_SIZE, (intptr_t)options->backlog, NULL},
        // MHD_OPTION_LISTENING_ADDRESS_REUSE is left out on purpose. Not given, libmicrohttpd
        // sets SO_REUSEADDR alone, so a restart binds at once although the old process's
        // connections linger in TIME_WAIT or FIN_WAIT2. Given as 0 it means "off" (no
        // SO_REUSEADDR: a restart then failed to bind for about 60 s); given as 1 it adds
        // SO_REUSEPORT, and a second server on a port in use would start and take half of the
        // first one's connections instead of failing with "Address already in use".
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)options->completed, options->completed_context},
        {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)options->uri_logger, options->uri_logger_context},
        {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)options->notify_connection, options->notify_connection_context},
        {MHD_OPTION_END, 0, NULL},
    };
    tb_mhd_require("MHD_start_daemon");
    return tb_MHD_start_daemon(flags, 0, NULL, NULL, options->handler, options->handler_context, MHD_OPTION_ARRAY, items,
                            MHD_OPTION_END);
}

uint16_t tb_http_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = tb_MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

const struct sockaddr *tb_http_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = tb_MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

int tb_http_client_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = tb_MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

void *tb_http_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = tb_MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

void tb_http_keep_freed_memory(size_t trim_threshold, size_t mmap_threshold) {
    // Hints: the allocator's defaults only cost time.
    mallopt(M_TRIM_THRESHOLD, (int)trim_threshold);
    mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold);
}
