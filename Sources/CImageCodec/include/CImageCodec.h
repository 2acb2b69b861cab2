#ifndef TENBIN_CIMAGECODEC_H
#define TENBIN_CIMAGECODEC_H

// The only place tenbin calls libjpeg, libpng, libwebp and libheif. libjpeg and libpng report
// fatal errors by calling a handler that must not return, which in practice means
// setjmp/longjmp; a longjmp across Swift frames is undefined behaviour, so each entry point
// below sets its own jump target, does the whole operation in C, and returns a status code
// with a message instead. libwebp and libheif return status codes; they sit here so every
// decoder hands rows to Swift through the same two callbacks.
//
// Every function returns 0 on success and -1 on failure, with a NUL-terminated reason in
// `error` (at most TB_ERROR_CAPACITY bytes, including the NUL).

#include <stddef.h>
#include <stdint.h>

#define TB_ERROR_CAPACITY 200

/// What a JPEG's header says, read without decoding any pixel.
typedef struct {
    int width;
    int height;
    /// Components in the file: 1 (gray), 3 (YCbCr/RGB) or 4 (CMYK/YCCK).
    int components;
    /// 1 when the file is progressive.
    int progressive;
    /// Bytes of the EXIF APP1 payload copied into the caller's buffer (0 when none).
    size_t exif_length;
} tb_jpeg_header;

/// What a PNG's header says, read without decoding any pixel.
typedef struct {
    int width;
    int height;
    int bit_depth;
    /// PNG colour type: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA.
    int color_type;
    int interlaced;
    /// 1 when the file has a tRNS chunk.
    int has_trns;
} tb_png_header;

/// Encoded bytes owned by the caller and released with tb_free.
typedef struct {
    uint8_t *bytes;
    size_t length;
} tb_buffer;

/// Frees memory handed out by this module (encoded bytes are malloc'ed in C).
void tb_free(void *pointer);

/// Reads the JPEG header and copies the EXIF APP1 payload (after "Exif\0\0") into `exif`,
/// truncated to `exif_capacity`.
int tb_jpeg_read_header(const uint8_t *data, size_t size, tb_jpeg_header *header,
                        uint8_t *exif, size_t exif_capacity, char *error);

/// Receives the decoded size before the first row; returns 0 to go on, non-zero to stop.
/// Every row-streaming decoder below calls it once.
typedef int (*tb_begin_callback)(void *context, int width, int height, int channels);
/// Receives each decoded row in order (`width * channels` bytes, valid only during the call).
typedef void (*tb_row_callback)(void *context, const uint8_t *row, int y);

/// Decodes a JPEG scaled by scale_num/8 (libjpeg's shrink-on-load: 1, 2, 4 or 8 for
/// 1/8 … 1/1) into gray or RGB, handing each row to `row` as it is decoded, so the caller
/// can resample while streaming and never hold the whole frame. CMYK and YCCK files are
/// converted to RGB here, honouring the Adobe marker's inverted storage. A truncated file
/// is an error. The callbacks must not call back into this decode's libjpeg object (another
/// object through its own entry point, as tb_jpeg_writer_rows, is fine: its errors stop there).
///
/// `fast` (non-zero) trades exactness the caller will average away for speed: plain
/// (non-"fancy") chroma upsampling, which libjpeg-turbo merges with the colour conversion;
/// the caller only asks for it when it shrinks the rows further anyway.
int tb_jpeg_decode_rows(const uint8_t *data, size_t size, int scale_num, int fast, void *context,
                        tb_begin_callback begin, tb_row_callback row, char *error);

/// An encoder fed a few rows at a time (tb_jpeg_encode is one of these fed every row at once),
/// so rows shrunk while a decode streams can be encoded without holding the whole image.
typedef struct tb_jpeg_writer tb_jpeg_writer;

/// Starts encoding a `width` × `height` image of gray (1) or RGB (3) pixels at `quality`;
/// NULL with a message in `error` when it cannot. Free it with tb_jpeg_writer_free.
tb_jpeg_writer *tb_jpeg_writer_start(int width, int height, int channels, int quality, char *error);

/// Encodes the next `count` rows (`width * channels` bytes each, packed); rows past the
/// image's height are ignored. After a failure every later call fails with the same message.
int tb_jpeg_writer_rows(tb_jpeg_writer *writer, const uint8_t *rows, int count, char *error);

/// Ends the image once every row is given and hands out its bytes (malloc'ed: free with
/// tb_free); -1 when rows are missing or libjpeg failed.
int tb_jpeg_writer_finish(tb_jpeg_writer *writer, tb_buffer *output, char *error);

/// Frees a writer, finished, failed or abandoned half way (NULL does nothing).
void tb_jpeg_writer_free(tb_jpeg_writer *writer);

/// Encodes gray (1) or RGB (3) pixels as a baseline JPEG with 4:2:0 chroma at `quality`.
/// Nothing but the JFIF header is written: no EXIF, ICC or comment.
int tb_jpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality,
                   tb_buffer *output, char *error);

/// Reads the PNG signature and IHDR (and whether tRNS exists) without decoding pixels, and
/// copies an eXIf chunk that comes before the image data into `exif` (libpng's
/// png_get_eXIf_1), truncated to `exif_capacity`; `exif_length` says how much (0: none).
int tb_png_read_header(const uint8_t *data, size_t size, tb_png_header *header,
                       uint8_t *exif, size_t exif_capacity, size_t *exif_length, char *error);

/// Decodes a PNG of any colour type, bit depth or interlace into 8-bit gray, RGB or RGBA
/// (palette and tRNS expanded, 16-bit scaled, gray with alpha widened to RGBA), handing each
/// row to `row` as it is decoded, so only one row is held. Ancillary chunk problems (an
/// incorrect sRGB profile, a bad ancillary CRC) are only warnings; a truncated file or a bad
/// critical-chunk CRC is an error. An interlaced PNG delivers its rows only after the last pass, so it is
/// decoded into a whole frame first (Adam7 cannot finish any row before its last pass).
int tb_png_decode_rows(const uint8_t *data, size_t size, void *context, tb_begin_callback begin,
                       tb_row_callback row, char *error);

/// Encodes gray (1), RGB (3) or RGBA (4) 8-bit pixels as a non-interlaced PNG with no
/// ancillary chunks. The output depends only on the pixels.
int tb_png_encode(const uint8_t *pixels, int width, int height, int channels,
                  tb_buffer *output, char *error);

/// What a WebP, HEIC or AVIF header says, read without decoding any pixel.
typedef struct {
    int width;
    int height;
    /// 1 when the image has an alpha channel.
    int has_alpha;
    /// 1 for an animated WebP (refused: tenbin stores still images).
    int animated;
} tb_still_header;

/// Reads a WebP's size from its VP8/VP8L/VP8X header (libwebp's WebPGetFeatures).
int tb_webp_read_header(const uint8_t *data, size_t size, tb_still_header *header, char *error);

/// Decodes a still WebP into RGB (RGBA when it has alpha), scaled by libwebp while it
/// decodes to `target_width`×`target_height` (no larger than the image), and hands each
/// row to `row`. Only the scaled frame is held.
int tb_webp_decode_rows(const uint8_t *data, size_t size, int target_width, int target_height,
                        void *context, tb_begin_callback begin, tb_row_callback row, char *error);

/// Encodes RGB (3) or RGBA (4) pixels as a lossy WebP at `quality` (0-100), alpha kept for
/// RGBA; nothing but the image is written (no EXIF, ICC or XMP chunk). The bytes are
/// malloc'ed (free with tb_free).
int tb_webp_encode(const uint8_t *pixels, int width, int height, int channels, int quality,
                   tb_buffer *output, char *error);

/// Reads the primary image's size from a HEIF (HEIC or AVIF) file's boxes, decoding no
/// pixel. libheif (and its HEVC and AV1 decoders) is loaded with dlopen on the first call:
/// linking it would make every tenbin process load a dozen codec libraries at start-up.
int tb_heif_read_header(const uint8_t *data, size_t size, tb_still_header *header, char *error);

/// Decodes a HEIF file's primary image into RGB (RGBA when it has alpha) with the file's
/// own rotation, mirroring and crop applied (libheif's transformations), on the calling
/// thread, and hands each row to `row`. libheif decodes whole frames, so the frame is held.
int tb_heif_decode_rows(const uint8_t *data, size_t size, void *context, tb_begin_callback begin,
                        tb_row_callback row, char *error);

#endif
