// SHA-256 through libcrypto, loaded on first use rather than linked.
//
// Linking libcrypto makes the dynamic loader relocate it when any tenbin process starts:
// measured at about 0.8 ms of CPU, a fifth of what `tenbin vote` costs in all, and most
// commands never hash. dlopen (CLibraryLoader) defers that cost to the first hash. The calls
// through looked-up function pointers stay in C, so every libcrypto detail is in this file.

#include "CCrypto.h"

#include "CLibraryLoader.h"

#include <stdio.h>

typedef const void *(*tb_evp_sha256)(void);
typedef int (*tb_evp_digest)(const void *data, size_t count, unsigned char *md, unsigned int *size,
                             const void *type, void *engine);

static tb_evp_sha256 tb_sha256_type;
static tb_evp_digest tb_digest;

static const tb_library_symbol tb_crypto_symbols[] = {
    {"EVP_sha256", (void **)&tb_sha256_type},
    {"EVP_Digest", (void **)&tb_digest},
};

static tb_library tb_crypto = {
    .title = "libcrypto",
    // Debian 12 ships libcrypto.so.3 (package libssl3); the unversioned name covers others.
    .names = {"libcrypto.so.3", "libcrypto.so"},
    .unloadable = "cannot load libcrypto: {reason}",
    .no_reason = "unknown error",
    .missing = "libcrypto has no EVP_sha256/EVP_Digest",
    TB_LIBRARY_FUNCTIONS(tb_crypto_symbols),
};

int tb_sha256(const void *data, size_t count, unsigned char *digest, char *error) {
    if (tb_library_load(&tb_crypto, error, 200) != 0) return -1;
    unsigned int size = 0;
    if (tb_digest(data, count, digest, &size, tb_sha256_type(), NULL) != 1 || size != 32) {
        snprintf(error, 200, "libcrypto's EVP_Digest failed");
        return -1;
    }
    return 0;
}
