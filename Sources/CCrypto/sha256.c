// SHA-256 through libcrypto, loaded on first use rather than linked.
//
// Linking libcrypto makes the dynamic loader relocate it when any tenbin process starts:
// measured at about 0.8 ms of CPU, a fifth of what `tenbin vote` costs in all, and most
// commands never hash. dlopen defers that cost to the first hash. The loading and the calls
// through looked-up function pointers stay in C, so every libcrypto detail is in this file.

#include "CCrypto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

typedef const void *(*tb_evp_sha256)(void);
typedef int (*tb_evp_digest)(const void *data, size_t count, unsigned char *md, unsigned int *size,
                             const void *type, void *engine);

static pthread_once_t tb_crypto_once = PTHREAD_ONCE_INIT;
static tb_evp_sha256 tb_sha256_type;
static tb_evp_digest tb_digest;
static char tb_crypto_error[200];

static void tb_crypto_load(void) {
    // Debian 12 ships libcrypto.so.3 (package libssl3); the unversioned name covers others.
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(tb_crypto_error, sizeof tb_crypto_error, "cannot load libcrypto: %s", reason ? reason : "unknown error");
        return;
    }
    tb_sha256_type = (tb_evp_sha256)dlsym(library, "EVP_sha256");
    tb_digest = (tb_evp_digest)dlsym(library, "EVP_Digest");
    if (tb_sha256_type == NULL || tb_digest == NULL) {
        snprintf(tb_crypto_error, sizeof tb_crypto_error, "libcrypto has no EVP_sha256/EVP_Digest");
        tb_digest = NULL;
    }
}

int tb_sha256(const void *data, size_t count, unsigned char *digest, char *error) {
    // pthread_once only fails on invalid arguments, which these are not.
    (void)pthread_once(&tb_crypto_once, tb_crypto_load);
    if (tb_digest == NULL) {
        snprintf(error, 200, "%s", tb_crypto_error);
        return -1;
    }
    unsigned int size = 0;
    if (tb_digest(data, count, digest, &size, tb_sha256_type(), NULL) != 1 || size != 32) {
        snprintf(error, 200, "libcrypto's EVP_Digest failed");
        return -1;
    }
    return 0;
}
