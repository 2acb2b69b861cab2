// gzip through zlib for `tenbin serve`'s text answers (the web page, its script and style
// sheet), which compress about tenfold: what a phone on a slow network waits for.
//
// A C target because deflateInit2 is a macro (it passes zlib's version and the size of its
// stream structure to deflateInit2_), which Swift cannot call. zlib is linked, not loaded with
// dlopen: libpng links it already, so every tenbin process has it loaded at start-up anyway.

#include "CZlib.h"

#include <string.h>
#include <zlib.h>

size_t tb_gzip_bound(size_t count) {
    // deflateBound's stored-block bound, plus gzip's 18-byte header and trailer.
    return count + (count >> 12) + (count >> 14) + (count >> 25) + 13 + 18;
}

size_t tb_gzip(const uint8_t *input, size_t count, uint8_t *output, size_t capacity) {
    if (count > UINT32_MAX || capacity > UINT32_MAX) return 0;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // windowBits 15 + 16: a gzip header and trailer around the deflate stream; level 6, zlib's
    // default balance of size and speed; memLevel 8, its default.
    if (deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
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
