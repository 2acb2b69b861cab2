// gzip through zlib for `tenbin serve`: its text answers (the web page, its script and style
// sheet), which compress about tenfold, and its live feeds, whose events are compressed as they
// are sent — what a phone on a slow network waits for.
//
// A C target because deflateInit2 is a macro (it passes zlib's version and the size of its
// stream structure to deflateInit2_), which Swift cannot call. zlib is loaded with dlopen on
// the first answer compressed (CLibraryLoader), not linked: a command that serves nothing never
// maps it (libpng, which needs it too, is loaded on first use as well).

#include "CZlib.h"

#include "CLibraryLoader.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// X(return type, name, parameters, arguments): every zlib function called here.
#define TB_ZLIB_FUNCTIONS(X)                                                                             \
    X(int, deflate, (z_streamp stream, int flush), (stream, flush))                                      \
    X(int, deflateEnd, (z_streamp stream), (stream))                                                     \
    X(int, deflateInit2_,                                                                                \
      (z_streamp stream, int level, int method, int window_bits, int mem_level, int strategy,            \
       const char *version, int size),                                                                    \
      (stream, level, method, window_bits, mem_level, strategy, version, size))

#define TB_ZLIB_POINTER(type, name, parameters, arguments) TB_LIBRARY_POINTER(name)
#define TB_ZLIB_SYMBOL(type, name, parameters, arguments) TB_LIBRARY_SYMBOL(name)
TB_ZLIB_FUNCTIONS(TB_ZLIB_POINTER)
static const tb_library_symbol tb_zlib_symbols[] = {TB_ZLIB_FUNCTIONS(TB_ZLIB_SYMBOL)};

static tb_library tb_zlib = {
    .title = "zlib",
    // Debian 12's soname (package zlib1g); the unversioned name covers others.
    .names = {"libz.so.1", "libz.so"},
    .unloadable = "gzip needs zlib (Debian package zlib1g): {reason}",
    .no_reason = "cannot load it",
    .missing = "zlib has no {function}",
    TB_LIBRARY_FUNCTIONS(tb_zlib_symbols),
};

#define TB_ZLIB_TRAMPOLINE(type, name, parameters, arguments) TB_LIBRARY_TRAMPOLINE(tb_zlib, type, name, parameters, arguments)
TB_ZLIB_FUNCTIONS(TB_ZLIB_TRAMPOLINE)

// windowBits + 16: a gzip header and trailer around the deflate stream; level 6, zlib's default
// balance of size and speed. Fails (0) when zlib cannot be loaded: callers then send answers
// uncompressed.
static int open_gzip(z_stream *stream, int window_bits, int mem_level) {
    if (tb_library_load(&tb_zlib, NULL, 0) != 0) return 0;
    memset(stream, 0, sizeof *stream);
    return deflateInit2(stream, 6, Z_DEFLATED, window_bits + 16, mem_level, Z_DEFAULT_STRATEGY) == Z_OK;
}

size_t tb_gzip_bound(size_t count) {
    // deflateBound's stored-block bound, plus gzip's 18-byte header and trailer.
    return count + (count >> 12) + (count >> 14) + (count >> 25) + 13 + 18;
}

size_t tb_gzip(const uint8_t *input, size_t count, uint8_t *output, size_t capacity) {
    if (count > UINT32_MAX || capacity > UINT32_MAX) return 0;
    z_stream stream;
    // zlib's default window (15) and memLevel (8): one answer at a time, compressed once.
    if (!open_gzip(&stream, 15, 8)) return 0;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)count;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    size_t written = stream.total_out;
    // deflateEnd only frees the stream's memory; its status adds nothing once deflate is done.
    (void)deflateEnd(&stream);
    return status == Z_STREAM_END ? written : 0;
}

struct tb_gzip_stream {
    z_stream z;
};

tb_gzip_stream *tb_gzip_stream_open(int window_bits, int mem_level) {
    tb_gzip_stream *stream = malloc(sizeof *stream);
    if (stream == NULL) return NULL;
    if (!open_gzip(&stream->z, window_bits, mem_level)) {
        free(stream);
        return NULL;
    }
    return stream;
}

void tb_gzip_stream_close(tb_gzip_stream *stream) {
    if (stream == NULL) return;
    // deflateEnd reports Z_DATA_ERROR for a stream freed mid-member, which an endless one
    // always is; the memory is freed all the same.
    (void)deflateEnd(&stream->z);
    free(stream);
}

long tb_gzip_stream_write(
    tb_gzip_stream *stream, const uint8_t *input, size_t count, int last, uint8_t *output, size_t capacity, int *full) {
    if (count > UINT32_MAX || capacity > UINT32_MAX || capacity == 0) return -1;
    if (input != NULL) {
        stream->z.next_in = (Bytef *)input;
        stream->z.avail_in = (uInt)count;
    }
    stream->z.next_out = output;
    stream->z.avail_out = (uInt)capacity;
    // Z_SYNC_FLUSH ends each piece on a byte boundary with everything so far decodable, while
    // keeping the window: a later event refers back to earlier ones (a poster's digests).
    int status = deflate(&stream->z, last ? Z_FINISH : Z_SYNC_FLUSH);
    // Z_BUF_ERROR: nothing left to do (a call after the output had exactly enough room).
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) return -1;
    *full = stream->z.avail_out == 0;
    if (*full == 0 && stream->z.avail_in != 0) return -1;  // zlib stopped with input and room left
    return (long)(capacity - stream->z.avail_out);
}
