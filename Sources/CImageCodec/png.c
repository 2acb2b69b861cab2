// libpng entry points. libpng's error handler must not return: it longjmps to the target
// set in each function below, so no jump ever crosses a Swift frame.

#include "CImageCodec.h"
#include "libraries.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
    char *error;
} tb_png_source;

static void tb_png_error(png_structp png, png_const_charp message) {
    tb_png_source *source = png_get_error_ptr(png);
    if (source->error[0] == 0) snprintf(source->error, TB_ERROR_CAPACITY, "%s", message);
    png_longjmp(png, 1);
}

// Warnings (an incorrect sRGB profile, a bad CRC in an ancillary chunk that libpng then
// skips) do not make a picture wrong, so they are not reported.
static void tb_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void tb_png_read(png_structp png, png_bytep out, size_t count) {
    tb_png_source *source = png_get_io_ptr(png);
    if (count > source->size - source->offset) {
        snprintf(source->error, TB_ERROR_CAPACITY, "the file is truncated (PNG data ends early)");
        png_error(png, "truncated");
    }
    memcpy(out, source->data + source->offset, count);
    source->offset += count;
}

static int tb_png_check_signature(const uint8_t *data, size_t size, char *error) {
    if (size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        snprintf(error, TB_ERROR_CAPACITY, "not a PNG signature");
        return -1;
    }
    // libpng 1.6.39 allocates some chunks (eXIf among them) at the length the chunk claims
    // before reading a byte of it, so a 130-byte file claiming a 1.6 GB eXIf made it ask for
    // 1.6 GB (found by `make fuzz`); its own chunk limit (8 MB) only warns, then allocates.
    // A chunk's data cannot be longer than the bytes left in the file: walking the chunk
    // lengths first refuses such a file before libpng sees it. A chunk is its length and type
    // (8 bytes), its data and a CRC (4 bytes); the walk goes on while a whole length and type
    // are left, so a file that ends right after the header that makes libpng allocate is
    // refused too (found by `make fuzz` again). A file cut inside a chunk's CRC passes the
    // walk, which stops there, and libpng reports it as truncated when it reads that CRC.
    size_t offset = 8;
    while (size - offset >= 8) {
        const uint8_t *chunk = data + offset;
        const size_t length = (size_t)chunk[0] << 24 | (size_t)chunk[1] << 16 | (size_t)chunk[2] << 8 | chunk[3];
        if (length > size - offset - 8) {
            // Name the chunk only when its type is the four letters PNG allows.
            int named = 1;
            for (int i = 4; i < 8; i++) named &= isalpha(chunk[i]) ? 1 : 0;
            snprintf(error, TB_ERROR_CAPACITY, "the file is truncated (%s%.4s chunk claims %zu bytes, past the end)",
                     named ? "its " : "a chunk", named ? (const char *)chunk + 4 : "", length);
            return -1;
        }
        if (memcmp(chunk + 4, "IEND", 4) == 0 || size - offset - 8 - length < 4) break;
        offset += 12 + length;
    }
    return 0;
}

// Creates libpng's read structures over `source` with tenbin's settings. No libpng call
// here can longjmp (the error handler is only reached by reading), so no jump target is
// needed yet; the caller sets one before reading.
static int tb_png_open(tb_png_source *source, png_structp *png_out, png_infop *info_out) {
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, source, tb_png_error, tb_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (info == NULL) {
        if (png != NULL) png_destroy_read_struct(&png, NULL, NULL);
        snprintf(source->error, TB_ERROR_CAPACITY, "out of memory");
        return -1;
    }
    png_set_read_fn(png, source, tb_png_read);
    png_set_benign_errors(png, 1);
    png_set_option(png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
    // tenbin checks its own, configurable limits from the header; lift libpng's so the
    // header of an oversized image is read and refused by tenbin with a clear message.
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    *png_out = png;
    *info_out = info;
    return 0;
}

int tb_png_read_header(const uint8_t *data, size_t size, tb_png_header *header,
                       uint8_t *exif, size_t exif_capacity, size_t *exif_length, char *error) {
    if (tb_png_ready(error, TB_ERROR_CAPACITY) != 0) return -1;
    error[0] = 0;
    *exif_length = 0;
    if (tb_png_check_signature(data, size, error) != 0) return -1;
    tb_png_source source = {data, size, 0, error};
    png_structp png;
    png_infop info;
    if (tb_png_open(&source, &png, &info) != 0) return -1;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    png_read_info(png, info);
    memset(header, 0, sizeof(*header));
    header->width = (int)png_get_image_width(png, info);
    header->height = (int)png_get_image_height(png, info);
    header->bit_depth = png_get_bit_depth(png, info);
    header->color_type = png_get_color_type(png, info);
    header->interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
    header->has_trns = png_get_valid(png, info, PNG_INFO_tRNS) ? 1 : 0;
    // png_read_info stops at the first IDAT, so only an eXIf before the pixels is seen here.
    png_uint_32 length = 0;
    png_bytep payload = NULL;
    if (png_get_eXIf_1(png, info, &length, &payload) != 0 && payload != NULL) {
        size_t copied = length < exif_capacity ? length : exif_capacity;
        memcpy(exif, payload, copied);
        *exif_length = copied;
    }
    png_destroy_read_struct(&png, &info, NULL);
    return 0;
}

int tb_png_decode_rows(const uint8_t *data, size_t size, void *context, tb_begin_callback begin,
                       tb_row_callback deliver, char *error) {
    if (tb_png_ready(error, TB_ERROR_CAPACITY) != 0) return -1;
    error[0] = 0;
    if (tb_png_check_signature(data, size, error) != 0) return -1;
    tb_png_source source = {data, size, 0, error};
    // Changed after setjmp and read after longjmp, hence volatile.
    uint8_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    png_structp png;
    png_infop info;
    if (tb_png_open(&source, &png, &info) != 0) return -1;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(pixels);
        free(rows);
        return -1;
    }
    png_read_info(png, info);

    const int color_type = png_get_color_type(png, info);
    const int bit_depth = png_get_bit_depth(png, info);
    const int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) ? 1 : 0;
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (has_trns) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16) png_set_scale_16(png);
    if ((color_type == PNG_COLOR_TYPE_GRAY && has_trns) || color_type == PNG_COLOR_TYPE_GRAY_ALPHA)
        png_set_gray_to_rgb(png);
    const int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);

    const png_uint_32 width = png_get_image_width(png, info);
    const png_uint_32 height = png_get_image_height(png, info);
    const int channels = png_get_channels(png, info);
    const size_t stride = png_get_rowbytes(png, info);
    if (channels != 1 && channels != 3 && channels != 4) {
        snprintf(error, TB_ERROR_CAPACITY, "unexpected %d channels after expansion", channels);
        png_error(png, error);
    }
    if (begin(context, (int)width, (int)height, channels) != 0) {
        snprintf(error, TB_ERROR_CAPACITY, "decoding was stopped");
        png_error(png, error);
    }
    if (passes > 1) {
        // Adam7 finishes no row before its last pass: the whole frame must be held.
        pixels = malloc(stride * height);
        rows = malloc(sizeof(png_bytep) * height);
        if (pixels == NULL || rows == NULL) {
            snprintf(error, TB_ERROR_CAPACITY, "out of memory for %ux%u pixels", width, height);
            png_error(png, error);
        }
        for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + stride * y;
        png_read_image(png, rows);
        for (png_uint_32 y = 0; y < height; y++) deliver(context, rows[y], (int)y);
    } else {
        pixels = malloc(stride);
        if (pixels == NULL) {
            snprintf(error, TB_ERROR_CAPACITY, "out of memory");
            png_error(png, error);
        }
        for (png_uint_32 y = 0; y < height; y++) {
            png_read_row(png, pixels, NULL);
            deliver(context, pixels, (int)y);
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(pixels);
    free(rows);
    return 0;
}

typedef struct {
    uint8_t *bytes;
    size_t length;
    size_t capacity;
    char *error;
} tb_png_sink;

static void tb_png_write(png_structp png, png_bytep data, size_t count) {
    tb_png_sink *sink = png_get_io_ptr(png);
    if (count > sink->capacity - sink->length) {
        size_t capacity = sink->capacity ? sink->capacity : 65536;
        while (count > capacity - sink->length) capacity *= 2;
        uint8_t *grown = realloc(sink->bytes, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        sink->bytes = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->bytes + sink->length, data, count);
    sink->length += count;
}

static void tb_png_flush(png_structp png) { (void)png; }

int tb_png_encode(const uint8_t *pixels, int width, int height, int channels,
                  tb_buffer *output, char *error) {
    if (tb_png_ready(error, TB_ERROR_CAPACITY) != 0) return -1;
    error[0] = 0;
    int color_type;
    switch (channels) {
    case 1: color_type = PNG_COLOR_TYPE_GRAY; break;
    case 3: color_type = PNG_COLOR_TYPE_RGB; break;
    case 4: color_type = PNG_COLOR_TYPE_RGBA; break;
    default:
        snprintf(error, TB_ERROR_CAPACITY, "PNG output needs 1, 3 or 4 channels, not %d", channels);
        return -1;
    }
    // The sink lives in memory that longjmp cannot roll back, so its buffer is always known.
    tb_png_sink sink = {NULL, 0, 0, error};
    tb_png_source errors = {NULL, 0, 0, error};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &errors, tb_png_error, tb_png_warning);
    if (png == NULL) {
        snprintf(error, TB_ERROR_CAPACITY, "out of memory");
        return -1;
    }
    png_infop info = png_create_info_struct(png);
    if (info == NULL) {
        png_destroy_write_struct(&png, NULL);
        snprintf(error, TB_ERROR_CAPACITY, "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(sink.bytes);
        return -1;
    }
    png_set_write_fn(png, &sink, tb_png_write, tb_png_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const size_t stride = (size_t)width * (size_t)channels;
    for (int y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(pixels + stride * (size_t)y));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    output->bytes = sink.bytes;
    output->length = sink.length;
    return 0;
}
