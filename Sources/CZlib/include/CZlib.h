// gzip compression through zlib, for `tenbin serve`'s text answers (see gzip.c).
#ifndef TB_CZLIB_H
#define TB_CZLIB_H

#include <stddef.h>
#include <stdint.h>

/// An upper bound of what tb_gzip writes for `count` input bytes.
size_t tb_gzip_bound(size_t count);

/// Compresses `count` bytes at `input` into one gzip member at `output` (`capacity` bytes, at
/// least tb_gzip_bound(count)); returns the bytes written, or 0 when zlib fails.
size_t tb_gzip(const uint8_t *input, size_t count, uint8_t *output, size_t capacity);

#endif
