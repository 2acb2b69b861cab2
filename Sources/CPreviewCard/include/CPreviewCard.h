#ifndef TENBIN_CPREVIEWCARD_H
#define TENBIN_CPREVIEWCARD_H

#include <stddef.h>

/// One picture for the card: `width`×`height` pixels of `channels` bytes each (3: RGB, 4: RGBA
/// not premultiplied), rows packed.
typedef struct {
    const unsigned char *pixels;
    int width;
    int height;
    int channels;
} tb_card_picture;

/// What the card shows besides its pictures.
typedef struct {
    /// The question as UTF-8 (NUL-terminated); drawn in at most two lines, ellipsized.
    const char *text;
    /// The font families to draw it in, as fontconfig names them ("IPAPGothic, sans-serif").
    const char *font;
    /// Side 1's share of the votes, 0–100; ignored when `voted` is 0.
    int percent1;
    /// Whether anyone has voted (else the bar is drawn empty).
    int voted;
} tb_card_text;

/// Loads pango and cairo on the first call; returns 1 when cards can be drawn, else 0 with the
/// reason in `error` (at least 200 bytes) when `error` is not NULL.
int tb_card_available(char *error);

/// Draws a `width`×`height` card into `rgb` (`width * height * 3` bytes, packed RGB): the two
/// pictures side by side, each covering its half of the upper part, the text under them and
/// the vote bar at the bottom. Returns 0, or -1 with the reason in `error` (at least 200 bytes).
/// `unknown_glyphs`, when not NULL, receives how many characters of the text no font had.
int tb_card_draw(const tb_card_picture *left, const tb_card_picture *right, const tb_card_text *text, int width, int height,
                 unsigned char *rgb, int *unknown_glyphs, char *error);

#endif
