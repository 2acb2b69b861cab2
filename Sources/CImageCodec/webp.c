// libwebp entry points. libwebp reports errors by status codes, not longjmp; it sits here
// beside libjpeg and libpng so every image decoder has one C home and one row interface.

#include "CImageCodec.h"
#include "libraries.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/encode.h>

static const char *tb_webp_status(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "the bitstream is corrupt";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "it uses a feature libwebp does not support";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the file is truncated (WebP data ends early)";
    default: return "unknown error";
    }
}

int tb_webp_read_header(const uint8_t *data, size_t size, tb_still_header *header, char *error) {
    if (tb_webp_ready(error, TB_ERROR_CAPACITY) != 0) return -1;
    error[0] = 0;
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(data, size, &features);
    if (status != VP8_STATUS_OK) {
        snprintf(error, TB_ERROR_CAPACITY, "%s", tb_webp_status(status));
        return -1;
    }
    memset(header, 0, sizeof(*header));
    header->width = features.width;
    header->height = features.height;
    header->has_alpha = features.has_alpha ? 1 : 0;
    header->animated = features.has_animation ? 1 : 0;
    return 0;
}

int tb_webp_decode_rows(const uint8_t *data, size_t size, int target_width, int target_height,
                        void *context, tb_begin_callback begin, tb_row_callback deliver, char *error) {
    if (tb_webp_ready(error, TB_ERROR_CAPACITY) != 0) return -1;
    error[0] = 0;
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        snprintf(error, TB_ERROR_CAPACITY, "libwebp's version does not match its header");
        return -1;
    }
    VP8StatusCode status = WebPGetFeatures(data, size, &config.input);
    if (status != VP8_STATUS_OK) {
        snprintf(error, TB_ERROR_CAPACITY, "%s", tb_webp_status(status));
        return -1;
    }
    const int channels = config.input.has_alpha ? 4 : 3;
    config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
    if (target_width < config.input.width || target_height < config.input.height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = target_width;
        config.options.scaled_height = target_height;
    }
    // One thread: tenbin decodes several images side by side already.
    config.options.use_threads = 0;
    status = WebPDecode(data, size, &config);
    if (status != VP8_STATUS_OK) {
        snprintf(error, TB_ERROR_CAPACITY, "%s", tb_webp_status(status));
        WebPFreeDecBuffer(&config.output);
        return -1;
    }
    const WebPRGBABuffer *rgba = &config.output.u.RGBA;
    if (begin(context, config.output.width, config.output.height, channels) != 0) {
        snprintf(error, TB_ERROR_CAPACITY, "decoding was stopped");
        WebPFreeDecBuffer(&config.output);
        return -1;
    }
    for (int y = 0; y < config.output.height; y++) deliver(context, rgba->rgba + (size_t)rgba->stride * (size_t)y, y);
    WebPFreeDecBuffer(&config.output);
    return 0;
}

int tb_webp_encode(const uint8_t *pixels, int width, int height, int channels, int quality,
                   tb_buffer *output, char *error) {
    if (tb_webp_ready(error, TB_ERROR_CAPACITY) != 0) return -1;
    uint8_t *bytes = NULL;
    size_t length = 0;
    if (channels == 3) {
        length = WebPEncodeRGB(pixels, width, height, width * 3, (float)quality, &bytes);
    } else if (channels == 4) {
        length = WebPEncodeRGBA(pixels, width, height, width * 4, (float)quality, &bytes);
    } else {
        snprintf(error, TB_ERROR_CAPACITY, "WebP encoding takes RGB or RGBA pixels, not %d channels", channels);
        return -1;
    }
    if (length == 0 || bytes == NULL) {
        snprintf(error, TB_ERROR_CAPACITY, "libwebp could not encode a %dx%d image", width, height);
        return -1;
    }
    // libwebp's buffer comes from its own allocator (WebPFree); the module hands out malloc'ed
    // bytes only, so they are copied once (a thumbnail: a few KiB).
    output->bytes = malloc(length);
    if (output->bytes == NULL) {
        WebPFree(bytes);
        snprintf(error, TB_ERROR_CAPACITY, "out of memory");
        return -1;
    }
    memcpy(output->bytes, bytes, length);
    output->length = length;
    WebPFree(bytes);
    return 0;
}
