// gzip compression through zlib, for `tenbin serve`'s text answers and live feeds (see gzip.c).
#ifndef TB_CZLIB_H
#define TB_CZLIB_H

#include <stddef.h>
#include <stdint.h>

/// An upper bound of what tb_gzip writes for `count` input bytes.
size_t tb_gzip_bound(size_t count);

/// Compresses `count` bytes at `input` into one gzip member at `output` (`capacity` bytes, at
/// least tb_gzip_bound(count)); returns the bytes written, or 0 when zlib fails.
size_t tb_gzip(const uint8_t *input, size_t count, uint8_t *output, size_t capacity);

/// An endless gzip member written piece by piece, each piece flushed so the client can decode
/// it at once (a live feed's events).
typedef struct tb_gzip_stream tb_gzip_stream;

/// A gzip stream with a `2^window_bits`-byte window and zlib's `mem_level` (1–9), which set its
/// memory: about 2^(window_bits+2) + 2^(mem_level+9) bytes plus 6 KB. NULL when zlib fails.
tb_gzip_stream *tb_gzip_stream_open(int window_bits, int mem_level);

/// Frees the stream (NULL is allowed).
void tb_gzip_stream_close(tb_gzip_stream *stream);

/// Takes `count` bytes at `input` (NULL and 0 to continue a write that filled `output`) and
/// writes their compressed form, flushed to a byte boundary (or, when `last` is 1, ending the
/// member with gzip's trailer), into `output`. Returns the bytes written, or -1 when zlib fails.
/// Sets `*full` to 1 when `output` filled before everything was written: call again with no
/// input and the same `last`.
long tb_gzip_stream_write(
    tb_gzip_stream *stream, const uint8_t *input, size_t count, int last, uint8_t *output, size_t capacity, int *full);

#endif
