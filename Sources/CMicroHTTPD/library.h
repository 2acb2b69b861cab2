// Inside CMicroHTTPD only: the looked-up pointers to libmicrohttpd's variadic functions, which
// shim.c calls (see library.c).
#ifndef TENBIN_CMICROHTTPD_LIBRARY_H
#define TENBIN_CMICROHTTPD_LIBRARY_H

#include "CMicroHTTPD.h"

__attribute__((visibility("hidden"))) extern __typeof__(&MHD_start_daemon) tb_MHD_start_daemon;
__attribute__((visibility("hidden"))) extern __typeof__(&MHD_get_daemon_info) tb_MHD_get_daemon_info;
__attribute__((visibility("hidden"))) extern __typeof__(&MHD_get_connection_info) tb_MHD_get_connection_info;

/// Stops the process when `function` is called before tb_http_load succeeded (a broken invariant).
__attribute__((visibility("hidden"))) void tb_mhd_require(const char *function);

#endif
