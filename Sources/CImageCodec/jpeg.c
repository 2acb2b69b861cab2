// libjpeg-turbo entry points. Each function owns its setjmp target: libjpeg's error_exit
// must not return, and longjmp must not cross a Swift frame, so errors stop here and come
// back to Swift as -1 plus a message.

#include "CImageCodec.h"
#include "libraries.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

void tb_free(void *pointer) { free(pointer); }

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char *error;
} tb_jpeg_error;

// Formats libjpeg's message into the caller's buffer and jumps back to the entry point.
static void tb_jpeg_error_exit(j_common_ptr cinfo) {
    tb_jpeg_error *err = (tb_jpeg_error *)cinfo->err;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    snprintf(err->error, TB_ERROR_CAPACITY, "%s", message);
    longjmp(err->jump, 1);
}

// libjpeg reports a truncated file only as a warning and fills the rest with gray; a
// truncated upload must be refused, so that one warning becomes an error. Other warnings
// (extraneous bytes before a marker, common in real cameras' files) are tolerated.
static void tb_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) {
        tb_jpeg_error *err = (tb_jpeg_error *)cinfo->err;
        snprintf(err->error, TB_ERROR_CAPACITY, "the file is truncated (premature end of JPEG data)");
        longjmp(err->jump, 1);
    }
}

static void tb_jpeg_install_errors(j_common_ptr cinfo, tb_jpeg_error *err, char *error) {
    cinfo->err = jpeg_std_error(&err->base);
    err->base.error_exit = tb_jpeg_error_exit;
    err->base.emit_message = tb_jpeg_emit_message;
    err->error = error;
    error[0] = 0;
}

static const uint8_t exif_signature[6] = {'E', 'x', 'i', 'f', 0, 0};

int tb_jpeg_read_header(const uint8_t *data, size_t size, tb_jpeg_header *header,
                        uint8_t *exif, size_t exif_capacity, char *error) {
    if (tb_jpeg_ready(error, TB_ERROR_CAPACITY) != 0) return -1;
    struct jpeg_decompress_struct cinfo;
    tb_jpeg_error err;
    tb_jpeg_install_errors((j_common_ptr)&cinfo, &err, error);
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);

    memset(header, 0, sizeof(*header));
    header->width = (int)cinfo.image_width;
    header->height = (int)cinfo.image_height;
    header->components = cinfo.num_components;
    header->progressive = cinfo.progressive_mode ? 1 : 0;
    for (jpeg_saved_marker_ptr m = cinfo.marker_list; m != NULL; m = m->next) {
        if (m->marker != JPEG_APP0 + 1 || m->data_length < sizeof(exif_signature)) continue;
        if (memcmp(m->data, exif_signature, sizeof(exif_signature)) != 0) continue;
        size_t length = m->data_length - sizeof(exif_signature);
        if (length > exif_capacity) length = exif_capacity;
        memcpy(exif, m->data + sizeof(exif_signature), length);
        header->exif_length = length;
        break;
    }
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

// Converts one row of CMYK samples to RGB in place order (4 bytes in, 3 out). Adobe
// applications store CMYK inverted (0 = full ink); libjpeg passes that through untouched.
static void tb_cmyk_row_to_rgb(const JSAMPLE *in, uint8_t *out, JDIMENSION width, int inverted) {
    for (JDIMENSION x = 0; x < width; x++) {
        unsigned c = in[0], m = in[1], y = in[2], k = in[3];
        if (!inverted) {
            c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k;
        }
        // With inverted storage, each channel already holds (255 - ink).
        out[0] = (uint8_t)((c * k + 127) / 255);
        out[1] = (uint8_t)((m * k + 127) / 255);
        out[2] = (uint8_t)((y * k + 127) / 255);
        in += 4;
        out += 3;
    }
}

int tb_jpeg_decode_rows(const uint8_t *data, size_t size, int scale_num, int fast, void *context,
                        tb_begin_callback begin, tb_row_callback deliver, char *error) {
    if (tb_jpeg_ready(error, TB_ERROR_CAPACITY) != 0) return -1;
    struct jpeg_decompress_struct cinfo;
    tb_jpeg_error err;
    // Changed after setjmp and read after longjmp, hence volatile.
    JSAMPLE *volatile rows = NULL;
    uint8_t *volatile converted = NULL;
    tb_jpeg_install_errors((j_common_ptr)&cinfo, &err, error);
    if (setjmp(err.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(rows);
        free(converted);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 14, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);

    int cmyk = 0;
    switch (cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo.out_color_space = JCS_GRAYSCALE;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo.out_color_space = JCS_CMYK;
        cmyk = 1;
        break;
    default:
        cinfo.out_color_space = JCS_RGB;
        break;
    }
    cinfo.scale_num = (unsigned)scale_num;
    cinfo.scale_denom = 8;
    // Measured (make bench SECTIONS=reencode): plain upsampling loses nothing once the rows
    // are shrunk; JDCT_IFAST cost 0.25 dB PSNR for no measurable speed, so the IDCT stays
    // the accurate one.
    if (fast) cinfo.do_fancy_upsampling = FALSE;
    jpeg_start_decompress(&cinfo);

    const int channels = cmyk ? 3 : cinfo.output_components;
    if (begin(context, (int)cinfo.output_width, (int)cinfo.output_height, channels) != 0) {
        snprintf(error, TB_ERROR_CAPACITY, "decoding was stopped");
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    // Read as many rows per call as libjpeg produces at once (its recommended batch).
    const int batch = cinfo.rec_outbuf_height > 0 ? cinfo.rec_outbuf_height : 1;
    const size_t stride = (size_t)cinfo.output_width * (size_t)cinfo.output_components;
    rows = malloc(stride * (size_t)batch);
    if (cmyk) converted = malloc((size_t)cinfo.output_width * 3);
    if (rows == NULL || (cmyk && converted == NULL)) {
        snprintf(error, TB_ERROR_CAPACITY, "out of memory");
        jpeg_destroy_decompress(&cinfo);
        free(rows);
        free(converted);
        return -1;
    }
    JSAMPROW pointers[16];
    for (int i = 0; i < batch && i < 16; i++) pointers[i] = rows + stride * (size_t)i;
    while (cinfo.output_scanline < cinfo.output_height) {
        const int first = (int)cinfo.output_scanline;
        JDIMENSION read = jpeg_read_scanlines(&cinfo, pointers, (JDIMENSION)(batch < 16 ? batch : 16));
        for (JDIMENSION i = 0; i < read; i++) {
            if (cmyk) {
                tb_cmyk_row_to_rgb(pointers[i], converted, cinfo.output_width, cinfo.saw_Adobe_marker);
                deliver(context, converted, first + (int)i);
            } else {
                deliver(context, pointers[i], first + (int)i);
            }
        }
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(rows);
    free(converted);
    return 0;
}

// Where an encoder's bytes go: one malloc'ed block, doubled when full. libjpeg's own
// jpeg_mem_dest frees its old block when it grows and tells the caller the new one only at
// jpeg_finish_compress, so an encoder abandoned half way could neither free nor keep its
// bytes safely; this one always knows its block.
typedef struct {
    struct jpeg_destination_mgr base;
    unsigned char *bytes;
    size_t capacity;
    size_t length;
} tb_jpeg_destination;

static void tb_destination_start(j_compress_ptr cinfo) {
    tb_jpeg_destination *destination = (tb_jpeg_destination *)cinfo->dest;
    destination->base.next_output_byte = destination->bytes;
    destination->base.free_in_buffer = destination->capacity;
}

// Called when the block is full (libjpeg's contract: every byte of it is written).
static boolean tb_destination_grow(j_compress_ptr cinfo) {
    tb_jpeg_destination *destination = (tb_jpeg_destination *)cinfo->dest;
    size_t grown = destination->capacity * 2;
    unsigned char *bytes = realloc(destination->bytes, grown);
    if (bytes == NULL) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    destination->base.next_output_byte = bytes + destination->capacity;
    destination->base.free_in_buffer = grown - destination->capacity;
    destination->bytes = bytes;
    destination->capacity = grown;
    return TRUE;
}

static void tb_destination_end(j_compress_ptr cinfo) {
    tb_jpeg_destination *destination = (tb_jpeg_destination *)cinfo->dest;
    destination->length = destination->capacity - destination->base.free_in_buffer;
}

// An encoder fed rows as they are made. Each entry point below sets its own setjmp target,
// so libjpeg's longjmp only ever lands in the C function that called libjpeg.
struct tb_jpeg_writer {
    struct jpeg_compress_struct cinfo;
    tb_jpeg_error err;
    tb_jpeg_destination destination;
    size_t stride;
    // Set once libjpeg failed or the image is finished: the compressor is then destroyed.
    int done;
    char message[TB_ERROR_CAPACITY];
};

// Ends a writer's compressor after libjpeg failed and copies its message for the caller.
static int tb_jpeg_writer_fail(tb_jpeg_writer *writer, char *error) {
    jpeg_destroy_compress(&writer->cinfo);
    writer->done = 1;
    snprintf(error, TB_ERROR_CAPACITY, "%s", writer->message);
    return -1;
}

tb_jpeg_writer *tb_jpeg_writer_start(int width, int height, int channels, int quality, char *error) {
    if (tb_jpeg_ready(error, TB_ERROR_CAPACITY) != 0) return NULL;
    error[0] = 0;
    if (channels != 1 && channels != 3) {
        snprintf(error, TB_ERROR_CAPACITY, "JPEG output needs 1 or 3 channels, not %d", channels);
        return NULL;
    }
    tb_jpeg_writer *writer = calloc(1, sizeof *writer);
    if (writer != NULL) {
        // A quality-50 photo of 2048 px takes 150-400 KB: start at 64 KB, doubled as needed.
        writer->destination.capacity = 65536;
        writer->destination.bytes = malloc(writer->destination.capacity);
    }
    if (writer == NULL || writer->destination.bytes == NULL) {
        free(writer);
        snprintf(error, TB_ERROR_CAPACITY, "out of memory");
        return NULL;
    }
    tb_jpeg_install_errors((j_common_ptr)&writer->cinfo, &writer->err, writer->message);
    if (setjmp(writer->err.jump)) {
        tb_jpeg_writer_fail(writer, error);
        tb_jpeg_writer_free(writer);
        return NULL;
    }
    jpeg_create_compress(&writer->cinfo);
    writer->destination.base.init_destination = tb_destination_start;
    writer->destination.base.empty_output_buffer = tb_destination_grow;
    writer->destination.base.term_destination = tb_destination_end;
    writer->cinfo.dest = &writer->destination.base;
    writer->cinfo.image_width = (JDIMENSION)width;
    writer->cinfo.image_height = (JDIMENSION)height;
    writer->cinfo.input_components = channels;
    writer->cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&writer->cinfo);
    jpeg_set_quality(&writer->cinfo, quality, TRUE);
    jpeg_start_compress(&writer->cinfo, TRUE);
    writer->stride = (size_t)width * (size_t)channels;
    return writer;
}

int tb_jpeg_writer_rows(tb_jpeg_writer *writer, const uint8_t *rows, int count, char *error) {
    error[0] = 0;
    if (writer->done) {
        snprintf(error, TB_ERROR_CAPACITY, "%s", writer->message[0] ? writer->message : "the JPEG is finished");
        return -1;
    }
    if (setjmp(writer->err.jump)) return tb_jpeg_writer_fail(writer, error);
    for (int i = 0; i < count && writer->cinfo.next_scanline < writer->cinfo.image_height; i++) {
        JSAMPROW row[1] = {(JSAMPROW)(rows + writer->stride * (size_t)i)};
        jpeg_write_scanlines(&writer->cinfo, row, 1);
    }
    return 0;
}

int tb_jpeg_writer_finish(tb_jpeg_writer *writer, tb_buffer *output, char *error) {
    error[0] = 0;
    if (writer->done) {
        snprintf(error, TB_ERROR_CAPACITY, "%s", writer->message[0] ? writer->message : "the JPEG is finished");
        return -1;
    }
    if (writer->cinfo.next_scanline < writer->cinfo.image_height) {
        snprintf(error, TB_ERROR_CAPACITY, "only %u of %u rows were given", writer->cinfo.next_scanline,
                 writer->cinfo.image_height);
        return -1;
    }
    if (setjmp(writer->err.jump)) return tb_jpeg_writer_fail(writer, error);
    jpeg_finish_compress(&writer->cinfo);
    jpeg_destroy_compress(&writer->cinfo);
    writer->done = 1;
    output->bytes = writer->destination.bytes;
    output->length = writer->destination.length;
    writer->destination.bytes = NULL;  // the caller's now
    return 0;
}

void tb_jpeg_writer_free(tb_jpeg_writer *writer) {
    if (writer == NULL) return;
    if (!writer->done) jpeg_destroy_compress(&writer->cinfo);
    free(writer->destination.bytes);
    free(writer);
}

int tb_jpeg_encode(const uint8_t *pixels, int width, int height, int channels, int quality,
                   tb_buffer *output, char *error) {
    tb_jpeg_writer *writer = tb_jpeg_writer_start(width, height, channels, quality, error);
    if (writer == NULL) return -1;
    int status = tb_jpeg_writer_rows(writer, pixels, height, error);
    if (status == 0) status = tb_jpeg_writer_finish(writer, output, error);
    tb_jpeg_writer_free(writer);
    return status;
}
