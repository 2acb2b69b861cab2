// Loading the codec libraries on first use (libraries.c): each returns 0 once its library is
// loaded, or -1 with the reason in `error` (`capacity` bytes) when it cannot be.
//
// Kept apart from CImageCodec.h: the pointers libraries.c calls through are named after the
// libraries' functions (tb_jpeg_read_header for jpeg_read_header), which the public header's
// own names would collide with.
#ifndef TB_IMAGE_LIBRARIES_H
#define TB_IMAGE_LIBRARIES_H

#include <stddef.h>

int tb_jpeg_ready(char *error, size_t capacity);
int tb_png_ready(char *error, size_t capacity);
int tb_webp_ready(char *error, size_t capacity);

#endif
