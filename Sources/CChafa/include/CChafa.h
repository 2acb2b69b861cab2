#ifndef TENBIN_CCHAFA_H
#define TENBIN_CCHAFA_H

#include <stddef.h>

/// How libchafa draws: its ChafaPixelMode values (chafa-canvas-config.h, libchafa 1.x).
typedef enum {
    TB_CHAFA_SYMBOLS = 0,
    TB_CHAFA_SIXELS = 1,
    TB_CHAFA_KITTY = 2,
    TB_CHAFA_ITERM2 = 3,
} tb_chafa_mode;

/// Loads libchafa on the first call; returns 1 when it can draw, else 0 with the reason in
/// `error` (at least 200 bytes) when `error` is not NULL.
int tb_chafa_available(char *error);

/// Draws `width`×`height` RGBA pixels (not premultiplied, `stride` bytes a row) on a canvas
/// of `columns`×`rows` character cells, each `cell_width`×`cell_height` pixels, and returns
/// the terminal output as a malloc'd buffer of `*length` bytes (free it with free()), or
/// NULL when libchafa is missing or fails. Symbols mode uses 24-bit colour and block, border
/// and space symbols, no wide or inverted ones.
char *tb_chafa_render(const unsigned char *rgba, int width, int height, int stride, tb_chafa_mode mode, int columns, int rows,
                      int cell_width, int cell_height, size_t *length);

#endif
