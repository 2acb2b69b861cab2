// A shared library loaded with dlopen on first use rather than linked, for the C targets
// that wrap one (libpq, libmicrohttpd, libcrypto, libheif, libchafa): each describes its
// library and the functions it calls in a static tb_library, and this one loader opens it
// once, looks every function up into its pointer, and words the one error a user sees when
// that fails. Linking such a library would make the dynamic loader map and relocate it, and
// everything it needs, when any tenbin process starts, `tenbin vote` on SQLite included.
//
// Functions a wrapper defines under the library's own names, so the Swift code calls them as
// the library's header declares them, are trampolines through the looked-up pointers: the
// macros at the end write them. They are hidden: an executable exports its symbols, and the
// library's own calls between its functions must not resolve to them.

#ifndef TENBIN_CLIBRARYLOADER_H
#define TENBIN_CLIBRARYLOADER_H

#include <pthread.h>
#include <stddef.h>

/// One function to look up: its name in the library and the pointer that receives it.
typedef struct {
    const char *name;
    void **slot;
} tb_library_symbol;

/// A library loaded on first use. The wrapper sets the fields above `lock` statically (ending
/// with TB_LIBRARY_FUNCTIONS); the loader owns the rest.
typedef struct {
    /// How an internal error names the library ("libpq").
    const char *title;
    /// The file names dlopen tries, in order (at most three; a NULL ends the list early).
    const char *names[3];
    /// An environment variable that, when set and not empty, names the one file to load
    /// instead (a path, or a name the loader searches for); NULL for none.
    const char *override;
    /// The error when no name loads: `{library}` stands for the first name tried, `{reason}`
    /// for dlerror's reason (or `no_reason` when it gives none).
    const char *unloadable;
    const char *no_reason;
    /// The error when a function is missing: `{library}` stands for the name loaded and
    /// `{function}` for the function's name.
    const char *missing;
    /// The functions to look up, all of them before the library counts as loaded.
    const tb_library_symbol *symbols;
    size_t symbol_count;

    pthread_mutex_t lock;
    /// 0 until the first load has run, then 1 (loaded) or -1 (failed); read atomically.
    int state;
    char error[512];
} tb_library;

/// Loads `library` once (later calls, from any thread, return the first one's outcome): 0 when
/// every function's pointer is set; -1 with the NUL-terminated error in `error` (at most
/// `capacity` bytes; `error` may be NULL) when it cannot be used.
int tb_library_load(tb_library *library, char *error, size_t capacity);

/// Whether `library` was loaded, without trying.
int tb_library_loaded(tb_library *library);

/// Stops the process with an internal error when `function` of `library` is called before the
/// library was loaded: its pointer would be null. Wrappers load before any call, so this
/// stops only a broken invariant.
void tb_library_require(tb_library *library, const char *function);

/// The fields of a tb_library that the loader owns, and its function table `table` (an array
/// of tb_library_symbol): the last line of each wrapper's static tb_library.
#define TB_LIBRARY_FUNCTIONS(table)                                                                      \
    .symbols = table, .symbol_count = sizeof table / sizeof table[0], .lock = PTHREAD_MUTEX_INITIALIZER

/// `static <pointer to name's type> tb_<name>;` — the pointer a function is called through.
#define TB_LIBRARY_POINTER(name) static __typeof__(&name) tb_##name;
/// The tb_library_symbol entry that fills `tb_<name>`.
#define TB_LIBRARY_SYMBOL(name) {#name, (void **)&tb_##name},
/// A hidden function `name` with the library's signature that calls `tb_<name>`, once
/// `library` (a tb_library variable) is loaded.
#define TB_LIBRARY_TRAMPOLINE(library, type, name, parameters, arguments)                                \
    __attribute__((visibility("hidden"))) type name parameters {                                        \
        tb_library_require(&library, #name);                                                            \
        return tb_##name arguments;                                                                     \
    }
/// TB_LIBRARY_TRAMPOLINE for a function that returns nothing.
#define TB_LIBRARY_TRAMPOLINE_VOID(library, name, parameters, arguments)                                 \
    __attribute__((visibility("hidden"))) void name parameters {                                        \
        tb_library_require(&library, #name);                                                            \
        tb_##name arguments;                                                                            \
    }

#endif
