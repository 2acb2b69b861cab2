// libheif entry points (HEIC and AVIF), loaded with dlopen on first use rather than linked.
//
// libheif pulls in its HEVC and AV1 codecs (libde265, libx265, libaom, libdav1d: a dozen
// shared libraries, several megabytes); linking it would make the dynamic loader map and
// relocate them when any tenbin process starts, `tenbin vote` included, and Debian ships no
// static libheif to link into the release build. dlopen (CLibraryLoader) defers that to the
// first HEIF upload. The header gives the types; every call goes through a pointer looked up here.

#include "CImageCodec.h"

#include "CLibraryLoader.h"

#include <stdio.h>
#include <string.h>

#include <libheif/heif.h>

// One pointer per libheif function used, typed from its declaration in heif.h.
#define TB_HEIF_FUNCTIONS(X)                                                                  \
    X(heif_context_alloc)                                                                     \
    X(heif_context_free)                                                                      \
    X(heif_context_read_from_memory_without_copy)                                             \
    X(heif_context_set_max_decoding_threads)                                                  \
    X(heif_context_get_primary_image_handle)                                                  \
    X(heif_image_handle_release)                                                              \
    X(heif_image_handle_get_width)                                                            \
    X(heif_image_handle_get_height)                                                           \
    X(heif_image_handle_has_alpha_channel)                                                    \
    X(heif_decode_image)                                                                      \
    X(heif_image_get_width)                                                                   \
    X(heif_image_get_height)                                                                  \
    X(heif_image_get_plane_readonly)                                                          \
    X(heif_image_release)

TB_HEIF_FUNCTIONS(TB_LIBRARY_POINTER)

static const tb_library_symbol tb_heif_symbols[] = {TB_HEIF_FUNCTIONS(TB_LIBRARY_SYMBOL)};

static tb_library tb_heif = {
    .title = "libheif",
    // Debian 12 ships libheif.so.1 (package libheif1); the unversioned name covers others.
    .names = {"libheif.so.1", "libheif.so"},
    .unloadable = "HEIC/AVIF needs libheif (Debian package libheif1): {reason}",
    .no_reason = "cannot load it",
    .missing = "libheif has no {function}",
    TB_LIBRARY_FUNCTIONS(tb_heif_symbols),
};

// Loads libheif once; -1 with the reason in `error` when it cannot be used.
static int tb_heif_ready(char *error) {
    return tb_library_load(&tb_heif, error, TB_ERROR_CAPACITY);
}

static int tb_heif_failed(struct heif_error result, char *error) {
    if (result.code == heif_error_Ok) return 0;
    snprintf(error, TB_ERROR_CAPACITY, "%s", result.message ? result.message : "libheif failed");
    return -1;
}

// Reads the file's boxes and opens its primary image; the caller releases both.
static int tb_heif_open(const uint8_t *data, size_t size, struct heif_context **context,
                        struct heif_image_handle **handle, char *error) {
    *context = tb_heif_context_alloc();
    *handle = NULL;
    if (*context == NULL) {
        snprintf(error, TB_ERROR_CAPACITY, "out of memory");
        return -1;
    }
    // Decode on the calling thread: tenbin decodes several images side by side already.
    tb_heif_context_set_max_decoding_threads(*context, 0);
    if (tb_heif_failed(tb_heif_context_read_from_memory_without_copy(*context, data, size, NULL), error) != 0 ||
        tb_heif_failed(tb_heif_context_get_primary_image_handle(*context, handle), error) != 0) {
        if (*handle != NULL) tb_heif_image_handle_release(*handle);
        tb_heif_context_free(*context);
        return -1;
    }
    return 0;
}

int tb_heif_read_header(const uint8_t *data, size_t size, tb_still_header *header, char *error) {
    error[0] = 0;
    if (tb_heif_ready(error) != 0) return -1;
    struct heif_context *context;
    struct heif_image_handle *handle;
    if (tb_heif_open(data, size, &context, &handle, error) != 0) return -1;
    memset(header, 0, sizeof(*header));
    header->width = tb_heif_image_handle_get_width(handle);
    header->height = tb_heif_image_handle_get_height(handle);
    header->has_alpha = tb_heif_image_handle_has_alpha_channel(handle) ? 1 : 0;
    tb_heif_image_handle_release(handle);
    tb_heif_context_free(context);
    return 0;
}

int tb_heif_decode_rows(const uint8_t *data, size_t size, void *context, tb_begin_callback begin,
                        tb_row_callback deliver, char *error) {
    error[0] = 0;
    if (tb_heif_ready(error) != 0) return -1;
    struct heif_context *heif;
    struct heif_image_handle *handle;
    if (tb_heif_open(data, size, &heif, &handle, error) != 0) return -1;
    const int channels = tb_heif_image_handle_has_alpha_channel(handle) ? 4 : 3;
    struct heif_image *image = NULL;
    int status = tb_heif_failed(
        tb_heif_decode_image(handle, &image, heif_colorspace_RGB,
                             channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, NULL),
        error);
    if (status == 0) {
        int stride = 0;
        const uint8_t *plane = tb_heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
        const int width = tb_heif_image_get_width(image, heif_channel_interleaved);
        const int height = tb_heif_image_get_height(image, heif_channel_interleaved);
        if (plane == NULL || width <= 0 || height <= 0 || stride < width * channels) {
            snprintf(error, TB_ERROR_CAPACITY, "libheif returned no 8-bit RGB pixels");
            status = -1;
        } else if (begin(context, width, height, channels) != 0) {
            snprintf(error, TB_ERROR_CAPACITY, "decoding was stopped");
            status = -1;
        } else {
            for (int y = 0; y < height; y++) deliver(context, plane + (size_t)stride * (size_t)y, y);
        }
    }
    if (image != NULL) tb_heif_image_release(image);
    tb_heif_image_handle_release(handle);
    tb_heif_context_free(heif);
    return status;
}
