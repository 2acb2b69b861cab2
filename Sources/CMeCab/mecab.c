// libmecab, loaded with dlopen the first time a search record or a query needs a reading,
// rather than linked (CLibraryLoader): `tenbin vote`, `tenbin show` and every command that
// never indexes or searches pays nothing for it, and a machine without MeCab still runs
// tenbin (search then matches as written only).
//
// TENBIN_LIBMECAB, when set, names the library to load instead of libmecab.so.2 (a path, or a
// name the loader searches for): for the test that proves a missing libmecab falls back.

#include "CMeCab.h"

#include "CLibraryLoader.h"

// Every libmecab function tenbin calls, the one list: X(return type, name, parameters,
// arguments) for functions returning a value, V(name, parameters, arguments) for those
// returning nothing. A parameter list that differs from mecab.h's declaration fails to compile.
#define TB_MECAB_FUNCTIONS(X, V)                                                                        \
    X(mecab_model_t *, mecab_model_new2, (const char *arg), (arg))                                      \
    V(mecab_model_destroy, (mecab_model_t * model), (model))                                            \
    X(mecab_t *, mecab_model_new_tagger, (mecab_model_t * model), (model))                              \
    X(mecab_lattice_t *, mecab_model_new_lattice, (mecab_model_t * model), (model))                    \
    V(mecab_destroy, (mecab_t * mecab), (mecab))                                                        \
    V(mecab_lattice_destroy, (mecab_lattice_t * lattice), (lattice))                                    \
    V(mecab_lattice_clear, (mecab_lattice_t * lattice), (lattice))                                      \
    V(mecab_lattice_set_sentence2, (mecab_lattice_t * lattice, const char *sentence, size_t len),      \
      (lattice, sentence, len))                                                                         \
    X(int, mecab_parse_lattice, (mecab_t * mecab, mecab_lattice_t *lattice), (mecab, lattice))          \
    X(mecab_node_t *, mecab_lattice_get_bos_node, (mecab_lattice_t * lattice), (lattice))               \
    X(const char *, mecab_strerror, (mecab_t * mecab), (mecab))

#define TB_MECAB_POINTER_X(type, name, parameters, arguments) TB_LIBRARY_POINTER(name)
#define TB_MECAB_POINTER_V(name, parameters, arguments) TB_LIBRARY_POINTER(name)
TB_MECAB_FUNCTIONS(TB_MECAB_POINTER_X, TB_MECAB_POINTER_V)

#define TB_MECAB_SYMBOL_X(type, name, parameters, arguments) TB_LIBRARY_SYMBOL(name)
#define TB_MECAB_SYMBOL_V(name, parameters, arguments) TB_LIBRARY_SYMBOL(name)
static const tb_library_symbol tb_mecab_symbols[] = {TB_MECAB_FUNCTIONS(TB_MECAB_SYMBOL_X, TB_MECAB_SYMBOL_V)};

static tb_library tb_mecab = {
    .title = "libmecab",
    // Debian 12 ships libmecab.so.2 (package libmecab2, which libmecab-dev and mecab depend on).
    .names = {"libmecab.so.2"},
    .override = "TENBIN_LIBMECAB",
    .unloadable = "libmecab ({library}, Debian package libmecab2) cannot be loaded: {reason}",
    .no_reason = "unknown reason",
    .missing = "the library loaded as libmecab from {library} has no {function} (tenbin needs MeCab 0.996)",
    TB_LIBRARY_FUNCTIONS(tb_mecab_symbols),
};

int tb_mecab_load(char *error) {
    return tb_library_load(&tb_mecab, error, TB_MECAB_ERROR_CAPACITY);
}

// The Swift side loads libmecab before it makes a model, and every other call needs a model,
// a tagger or a lattice made after that (see tb_library_require).
#define TB_MECAB_TRAMPOLINE_X(type, name, parameters, arguments) TB_LIBRARY_TRAMPOLINE(tb_mecab, type, name, parameters, arguments)
#define TB_MECAB_TRAMPOLINE_V(name, parameters, arguments) TB_LIBRARY_TRAMPOLINE_VOID(tb_mecab, name, parameters, arguments)
TB_MECAB_FUNCTIONS(TB_MECAB_TRAMPOLINE_X, TB_MECAB_TRAMPOLINE_V)
