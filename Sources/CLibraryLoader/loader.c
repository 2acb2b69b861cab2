// The one dlopen loader of tenbin's C wrappers (see CLibraryLoader.h).

#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Writes `template` into `out` (capacity bytes, always NUL-terminated), with `{library}`,
// `{reason}` and `{function}` replaced by the given texts (NULL ones left as written).
// Templates are data, not printf formats: a name or a reason cannot be read as a directive.
static void tb_library_word(char *out, size_t capacity, const char *template, const char *library, const char *reason,
                            const char *function) {
    const struct {
        const char *key;
        const char *value;
    } fields[] = {{"{library}", library}, {"{reason}", reason}, {"{function}", function}};
    size_t used = 0;
    for (const char *at = template; *at != '\0' && used + 1 < capacity;) {
        const char *value = NULL;
        size_t skipped = 0;
        for (size_t index = 0; index < sizeof fields / sizeof fields[0]; index++) {
            size_t length = strlen(fields[index].key);
            if (fields[index].value != NULL && strncmp(at, fields[index].key, length) == 0) {
                value = fields[index].value;
                skipped = length;
                break;
            }
        }
        if (value == NULL) {
            out[used++] = *at++;
            continue;
        }
        for (; *value != '\0' && used + 1 < capacity; value++) out[used++] = *value;
        at += skipped;
    }
    out[used] = '\0';
}

// Opens the library and looks every function up: 1, or -1 with the reason in `error`.
static int tb_library_open(tb_library *library) {
    const char *replacement = library->override != NULL ? getenv(library->override) : NULL;
    const char *only[1] = {replacement};
    const int replaced = replacement != NULL && replacement[0] != '\0';
    const char *const *names = replaced ? only : library->names;
    const size_t count = replaced ? 1 : sizeof library->names / sizeof library->names[0];
    void *handle = NULL;
    const char *loaded = NULL;
    const char *reason = NULL;
    for (size_t index = 0; index < count && names[index] != NULL && handle == NULL; index++) {
        handle = dlopen(names[index], RTLD_NOW | RTLD_LOCAL);
        if (handle != NULL) {
            loaded = names[index];
        } else {
            reason = dlerror();
        }
    }
    if (handle == NULL) {
        tb_library_word(library->error, sizeof library->error, library->unloadable, names[0],
                        reason != NULL ? reason : library->no_reason, NULL);
        return -1;
    }
    for (size_t index = 0; index < library->symbol_count; index++) {
        *library->symbols[index].slot = dlsym(handle, library->symbols[index].name);
        if (*library->symbols[index].slot == NULL) {
            tb_library_word(library->error, sizeof library->error, library->missing, loaded, NULL,
                            library->symbols[index].name);
            return -1;
        }
    }
    return 1;
}

int tb_library_load(tb_library *library, char *error, size_t capacity) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        // Locking a valid, statically initialised mutex this thread does not hold cannot fail.
        (void)pthread_mutex_lock(&library->lock);
        state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
        if (state == 0) {
            state = tb_library_open(library);
            // Published after the pointers and the error: a thread that reads it sees them.
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        (void)pthread_mutex_unlock(&library->lock);
    }
    if (state == 1) return 0;
    if (error != NULL && capacity > 0) snprintf(error, capacity, "%s", library->error);
    return -1;
}

int tb_library_loaded(tb_library *library) {
    return __atomic_load_n(&library->state, __ATOMIC_ACQUIRE) == 1;
}

void tb_library_require(tb_library *library, const char *function) {
    if (!tb_library_loaded(library)) {
        fprintf(stderr, "tenbin: internal error: %s called before %s was loaded\n", function, library->title);
        abort();
    }
}
