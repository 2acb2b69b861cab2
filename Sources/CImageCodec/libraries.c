// libjpeg, libpng and libwebp, loaded with dlopen on first use rather than linked
// (CLibraryLoader), as libheif is.
//
// Linked, the dynamic loader mapped and relocated the three (and zlib, which libpng needs) when
// any tenbin process started: `tenbin vote`, `list` and `search` never decode an image, and
// four of the eight libraries a vote loaded were these, about a quarter of a millisecond of its
// start (docs/benchmarks.md). Each function the codecs call is defined here under its own name
// as a trampoline through a pointer looked up once, so jpeg.c, png.c and webp.c call the
// libraries as their headers declare them, after loading them at each entry point
// (tb_*_ready). A parameter list that differs from a header's declaration fails to compile.

#include "libraries.h"

#include "CLibraryLoader.h"

#include <setjmp.h>
#include <stdio.h>

#include <jpeglib.h>
#include <png.h>
// libwebp's header declares its functions visible; the hidden trampolines below must match.
#define WEBP_EXTERN extern
#include <webp/decode.h>
#include <webp/encode.h>

// X(return type, name, parameters, arguments) for functions returning a value,
// V(name, parameters, arguments) for those returning nothing.
#define TB_JPEG_FUNCTIONS(X, V)                                                                          \
    V(jpeg_CreateCompress, (j_compress_ptr cinfo, int version, size_t size), (cinfo, version, size))     \
    V(jpeg_CreateDecompress, (j_decompress_ptr cinfo, int version, size_t size), (cinfo, version, size)) \
    V(jpeg_destroy_compress, (j_compress_ptr cinfo), (cinfo))                                            \
    V(jpeg_destroy_decompress, (j_decompress_ptr cinfo), (cinfo))                                        \
    V(jpeg_finish_compress, (j_compress_ptr cinfo), (cinfo))                                             \
    X(boolean, jpeg_finish_decompress, (j_decompress_ptr cinfo), (cinfo))                                \
    V(jpeg_mem_src, (j_decompress_ptr cinfo, const unsigned char *buffer, unsigned long size),           \
      (cinfo, buffer, size))                                                                             \
    X(int, jpeg_read_header, (j_decompress_ptr cinfo, boolean require_image), (cinfo, require_image))    \
    X(JDIMENSION, jpeg_read_scanlines, (j_decompress_ptr cinfo, JSAMPARRAY lines, JDIMENSION count),     \
      (cinfo, lines, count))                                                                             \
    V(jpeg_save_markers, (j_decompress_ptr cinfo, int marker, unsigned int limit), (cinfo, marker, limit)) \
    V(jpeg_set_defaults, (j_compress_ptr cinfo), (cinfo))                                                \
    V(jpeg_set_quality, (j_compress_ptr cinfo, int quality, boolean baseline), (cinfo, quality, baseline)) \
    V(jpeg_start_compress, (j_compress_ptr cinfo, boolean all_tables), (cinfo, all_tables))              \
    X(boolean, jpeg_start_decompress, (j_decompress_ptr cinfo), (cinfo))                                  \
    X(struct jpeg_error_mgr *, jpeg_std_error, (struct jpeg_error_mgr * err), (err))                     \
    X(JDIMENSION, jpeg_write_scanlines, (j_compress_ptr cinfo, JSAMPARRAY lines, JDIMENSION count),      \
      (cinfo, lines, count))

#define TB_PNG_FUNCTIONS(X, V)                                                                           \
    X(png_infop, png_create_info_struct, (png_const_structrp png), (png))                                 \
    X(png_structp, png_create_read_struct,                                                               \
      (png_const_charp version, png_voidp error_ptr, png_error_ptr error_fn, png_error_ptr warn_fn),    \
      (version, error_ptr, error_fn, warn_fn))                                                           \
    X(png_structp, png_create_write_struct,                                                              \
      (png_const_charp version, png_voidp error_ptr, png_error_ptr error_fn, png_error_ptr warn_fn),    \
      (version, error_ptr, error_fn, warn_fn))                                                           \
    V(png_destroy_read_struct, (png_structpp png, png_infopp info, png_infopp end), (png, info, end))    \
    V(png_destroy_write_struct, (png_structpp png, png_infopp info), (png, info))                        \
    X(png_byte, png_get_bit_depth, (png_const_structrp png, png_const_inforp info), (png, info))         \
    X(png_byte, png_get_channels, (png_const_structrp png, png_const_inforp info), (png, info))          \
    X(png_byte, png_get_color_type, (png_const_structrp png, png_const_inforp info), (png, info))        \
    X(png_uint_32, png_get_eXIf_1,                                                                       \
      (png_const_structrp png, png_const_inforp info, png_uint_32 * count, png_bytep * exif),           \
      (png, info, count, exif))                                                                          \
    X(png_voidp, png_get_error_ptr, (png_const_structrp png), (png))                                     \
    X(png_uint_32, png_get_image_height, (png_const_structrp png, png_const_inforp info), (png, info))   \
    X(png_uint_32, png_get_image_width, (png_const_structrp png, png_const_inforp info), (png, info))    \
    X(png_byte, png_get_interlace_type, (png_const_structrp png, png_const_inforp info), (png, info))    \
    X(png_voidp, png_get_io_ptr, (png_const_structrp png), (png))                                        \
    X(size_t, png_get_rowbytes, (png_const_structrp png, png_const_inforp info), (png, info))            \
    X(png_uint_32, png_get_valid, (png_const_structrp png, png_const_inforp info, png_uint_32 flag),     \
      (png, info, flag))                                                                                 \
    X(jmp_buf *, png_set_longjmp_fn, (png_structrp png, png_longjmp_ptr function, size_t size),          \
      (png, function, size))                                                                             \
    V(png_read_end, (png_structrp png, png_inforp info), (png, info))                                    \
    V(png_read_image, (png_structrp png, png_bytepp image), (png, image))                                \
    V(png_read_info, (png_structrp png, png_inforp info), (png, info))                                   \
    V(png_read_row, (png_structrp png, png_bytep row, png_bytep display), (png, row, display))           \
    V(png_read_update_info, (png_structrp png, png_inforp info), (png, info))                            \
    V(png_set_IHDR,                                                                                      \
      (png_const_structrp png, png_inforp info, png_uint_32 width, png_uint_32 height, int depth,        \
       int color, int interlace, int compression, int filter),                                           \
      (png, info, width, height, depth, color, interlace, compression, filter))                           \
    V(png_set_benign_errors, (png_structrp png, int allowed), (png, allowed))                            \
    V(png_set_expand_gray_1_2_4_to_8, (png_structrp png), (png))                                         \
    V(png_set_gray_to_rgb, (png_structrp png), (png))                                                    \
    X(int, png_set_interlace_handling, (png_structrp png), (png))                                        \
    X(int, png_set_option, (png_structrp png, int option, int onoff), (png, option, onoff))              \
    V(png_set_palette_to_rgb, (png_structrp png), (png))                                                 \
    V(png_set_read_fn, (png_structrp png, png_voidp io, png_rw_ptr read), (png, io, read))               \
    V(png_set_scale_16, (png_structrp png), (png))                                                       \
    V(png_set_tRNS_to_alpha, (png_structrp png), (png))                                                  \
    V(png_set_user_limits, (png_structrp png, png_uint_32 width, png_uint_32 height), (png, width, height)) \
    V(png_set_write_fn, (png_structrp png, png_voidp io, png_rw_ptr write, png_flush_ptr flush),         \
      (png, io, write, flush))                                                                           \
    X(int, png_sig_cmp, (png_const_bytep signature, size_t start, size_t count), (signature, start, count)) \
    V(png_write_end, (png_structrp png, png_inforp info), (png, info))                                   \
    V(png_write_info, (png_structrp png, png_const_inforp info), (png, info))                            \
    V(png_write_row, (png_structrp png, png_const_bytep row), (png, row))

// png_error and png_longjmp never return: their trampolines are written out below.
#define TB_PNG_NORETURN(N)                                                                               \
    N(png_error, (png_const_structrp png, png_const_charp message), (png, message))                      \
    N(png_longjmp, (png_const_structrp png, int value), (png, value))

#define TB_WEBP_FUNCTIONS(X, V)                                                                          \
    X(VP8StatusCode, WebPDecode, (const uint8_t *data, size_t size, WebPDecoderConfig *config),         \
      (data, size, config))                                                                              \
    X(size_t, WebPEncodeRGB,                                                                             \
      (const uint8_t *rgb, int width, int height, int stride, float quality, uint8_t **output),          \
      (rgb, width, height, stride, quality, output))                                                     \
    X(size_t, WebPEncodeRGBA,                                                                            \
      (const uint8_t *rgba, int width, int height, int stride, float quality, uint8_t **output),         \
      (rgba, width, height, stride, quality, output))                                                    \
    V(WebPFree, (void *pointer), (pointer))                                                              \
    V(WebPFreeDecBuffer, (WebPDecBuffer * buffer), (buffer))                                             \
    X(VP8StatusCode, WebPGetFeaturesInternal,                                                            \
      (const uint8_t *data, size_t size, WebPBitstreamFeatures *features, int version),                  \
      (data, size, features, version))                                                                   \
    X(int, WebPInitDecoderConfigInternal, (WebPDecoderConfig * config, int version), (config, version))

#define TB_POINTER_X(type, name, parameters, arguments) TB_LIBRARY_POINTER(name)
#define TB_POINTER_V(name, parameters, arguments) TB_LIBRARY_POINTER(name)
#define TB_SYMBOL_X(type, name, parameters, arguments) TB_LIBRARY_SYMBOL(name)
#define TB_SYMBOL_V(name, parameters, arguments) TB_LIBRARY_SYMBOL(name)

TB_JPEG_FUNCTIONS(TB_POINTER_X, TB_POINTER_V)
TB_PNG_FUNCTIONS(TB_POINTER_X, TB_POINTER_V)
TB_PNG_NORETURN(TB_POINTER_V)
TB_WEBP_FUNCTIONS(TB_POINTER_X, TB_POINTER_V)

static const tb_library_symbol tb_jpeg_symbols[] = {TB_JPEG_FUNCTIONS(TB_SYMBOL_X, TB_SYMBOL_V)};
static const tb_library_symbol tb_png_symbols[] = {
    TB_PNG_FUNCTIONS(TB_SYMBOL_X, TB_SYMBOL_V) TB_PNG_NORETURN(TB_SYMBOL_V)};
static const tb_library_symbol tb_webp_symbols[] = {TB_WEBP_FUNCTIONS(TB_SYMBOL_X, TB_SYMBOL_V)};

// Debian 12's sonames (packages libjpeg62-turbo, libpng16-16, libwebp7); the unversioned
// names cover others.
static tb_library tb_jpeg = {
    .title = "libjpeg",
    .names = {"libjpeg.so.62", "libjpeg.so"},
    .unloadable = "JPEG needs libjpeg (Debian package libjpeg62-turbo): {reason}",
    .no_reason = "cannot load it",
    .missing = "libjpeg has no {function}",
    TB_LIBRARY_FUNCTIONS(tb_jpeg_symbols),
};

static tb_library tb_png = {
    .title = "libpng",
    .names = {"libpng16.so.16", "libpng16.so"},
    .unloadable = "PNG needs libpng (Debian package libpng16-16): {reason}",
    .no_reason = "cannot load it",
    .missing = "libpng has no {function}",
    TB_LIBRARY_FUNCTIONS(tb_png_symbols),
};

static tb_library tb_webp = {
    .title = "libwebp",
    .names = {"libwebp.so.7", "libwebp.so"},
    .unloadable = "WebP needs libwebp (Debian package libwebp7): {reason}",
    .no_reason = "cannot load it",
    .missing = "libwebp has no {function}",
    TB_LIBRARY_FUNCTIONS(tb_webp_symbols),
};

int tb_jpeg_ready(char *error, size_t capacity) { return tb_library_load(&tb_jpeg, error, capacity); }
int tb_png_ready(char *error, size_t capacity) { return tb_library_load(&tb_png, error, capacity); }
int tb_webp_ready(char *error, size_t capacity) { return tb_library_load(&tb_webp, error, capacity); }

#define TB_JPEG_TRAMPOLINE_X(type, name, parameters, arguments)                                         \
    TB_LIBRARY_TRAMPOLINE(tb_jpeg, type, name, parameters, arguments)
#define TB_JPEG_TRAMPOLINE_V(name, parameters, arguments) TB_LIBRARY_TRAMPOLINE_VOID(tb_jpeg, name, parameters, arguments)
TB_JPEG_FUNCTIONS(TB_JPEG_TRAMPOLINE_X, TB_JPEG_TRAMPOLINE_V)

#define TB_PNG_TRAMPOLINE_X(type, name, parameters, arguments)                                          \
    TB_LIBRARY_TRAMPOLINE(tb_png, type, name, parameters, arguments)
#define TB_PNG_TRAMPOLINE_V(name, parameters, arguments) TB_LIBRARY_TRAMPOLINE_VOID(tb_png, name, parameters, arguments)
TB_PNG_FUNCTIONS(TB_PNG_TRAMPOLINE_X, TB_PNG_TRAMPOLINE_V)

#define TB_PNG_TRAMPOLINE_N(name, parameters, arguments)                                                \
    __attribute__((visibility("hidden"), noreturn)) void name parameters {                              \
        tb_library_require(&tb_png, #name);                                                             \
        tb_##name arguments;                                                                            \
        __builtin_unreachable();                                                                        \
    }
TB_PNG_NORETURN(TB_PNG_TRAMPOLINE_N)

#define TB_WEBP_TRAMPOLINE_X(type, name, parameters, arguments)                                         \
    TB_LIBRARY_TRAMPOLINE(tb_webp, type, name, parameters, arguments)
#define TB_WEBP_TRAMPOLINE_V(name, parameters, arguments) TB_LIBRARY_TRAMPOLINE_VOID(tb_webp, name, parameters, arguments)
TB_WEBP_FUNCTIONS(TB_WEBP_TRAMPOLINE_X, TB_WEBP_TRAMPOLINE_V)
