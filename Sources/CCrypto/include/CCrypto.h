#ifndef TENBIN_CCRYPTO_H
#define TENBIN_CCRYPTO_H

#include <stddef.h>

/// Computes the SHA-256 of `count` bytes into `digest` (32 bytes) with libcrypto's
/// EVP_Digest, which uses the CPU's SHA instructions. Returns 0 on success; -1 when libcrypto
/// cannot be loaded or fails, with a NUL-terminated reason in `error` (200 bytes).
int tb_sha256(const void *data, size_t count, unsigned char *digest, char *error);

#endif
