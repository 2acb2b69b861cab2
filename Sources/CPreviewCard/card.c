// Preview cards (`/p/ID/card.jpg`) drawn with cairo, their text laid out by pango, both loaded
// on first use rather than linked.
//
// pango and cairo bring GLib, HarfBuzz, FreeType and fontconfig with them: linked, the dynamic
// loader would map and relocate all of them when any tenbin process starts, which `tenbin vote`
// would pay for without drawing a card. So libpangocairo is opened with dlopen (CLibraryLoader)
// the first time a card is drawn; dlsym on its handle finds pango's and cairo's functions too
// (they are its dependencies). All of that, and every pango and cairo type, stays in this file.
// The declarations below follow cairo 1.x's and pango 1.x's public headers (cairo.h,
// pango-layout.h, pango-font.h, pangocairo.h); both keep their ABI stable across 1.x.

#include "CPreviewCard.h"

#include "CLibraryLoader.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    TB_CAIRO_FORMAT_ARGB32 = 0,  // cairo_format_t
    TB_CAIRO_FORMAT_RGB24 = 1,
    TB_CAIRO_STATUS_SUCCESS = 0,  // cairo_status_t
    TB_CAIRO_FILTER_GOOD = 1,  // cairo_filter_t
    TB_PANGO_SCALE = 1024,
    TB_PANGO_WRAP_WORD_CHAR = 2,  // PangoWrapMode
    TB_PANGO_ELLIPSIZE_END = 3,  // PangoEllipsizeMode
    TB_PANGO_ALIGN_LEFT = 0,  // PangoAlignment
    TB_PANGO_ALIGN_CENTER = 1,
    TB_PANGO_ALIGN_RIGHT = 2,
    TB_PANGO_WEIGHT_BOLD = 700,  // PangoWeight
};

static struct {
    void *(*image_surface_create)(int format, int width, int height);
    unsigned char *(*image_surface_get_data)(void *surface);
    int (*image_surface_get_stride)(void *surface);
    void (*surface_flush)(void *surface);
    void (*surface_mark_dirty)(void *surface);
    int (*surface_status)(void *surface);
    void (*surface_destroy)(void *surface);
    void *(*create)(void *surface);
    int (*status)(void *cr);
    void (*destroy)(void *cr);
    void (*save)(void *cr);
    void (*restore)(void *cr);
    void (*set_source_rgb)(void *cr, double red, double green, double blue);
    void (*set_source_surface)(void *cr, void *surface, double x, double y);
    void *(*get_source)(void *cr);
    void (*pattern_set_filter)(void *pattern, int filter);
    void (*rectangle)(void *cr, double x, double y, double width, double height);
    void (*fill)(void *cr);
    void (*clip)(void *cr);
    void (*paint)(void *cr);
    void (*translate)(void *cr, double x, double y);
    void (*scale)(void *cr, double x, double y);
    void (*move_to)(void *cr, double x, double y);
    void *(*create_layout)(void *cr);
    void (*show_layout)(void *cr, void *layout);
    void (*layout_set_text)(void *layout, const char *text, int length);
    void (*layout_set_font_description)(void *layout, const void *description);
    void (*layout_set_width)(void *layout, int width);
    void (*layout_set_height)(void *layout, int height);
    void (*layout_set_wrap)(void *layout, int wrap);
    void (*layout_set_ellipsize)(void *layout, int ellipsize);
    void (*layout_set_alignment)(void *layout, int alignment);
    void (*layout_get_pixel_size)(void *layout, int *width, int *height);
    int (*layout_get_unknown_glyphs_count)(void *layout);
    void *(*font_description_from_string)(const char *text);
    void (*font_description_set_absolute_size)(void *description, double size);
    void (*font_description_set_weight)(void *description, int weight);
    void (*font_description_free)(void *description);
    void (*object_unref)(void *object);
} tb_card;

#define TB_CARD_SYMBOL(field, name) {name, (void **)&tb_card.field},
static const tb_library_symbol tb_card_symbols[] = {
    TB_CARD_SYMBOL(image_surface_create, "cairo_image_surface_create")
    TB_CARD_SYMBOL(image_surface_get_data, "cairo_image_surface_get_data")
    TB_CARD_SYMBOL(image_surface_get_stride, "cairo_image_surface_get_stride")
    TB_CARD_SYMBOL(surface_flush, "cairo_surface_flush")
    TB_CARD_SYMBOL(surface_mark_dirty, "cairo_surface_mark_dirty")
    TB_CARD_SYMBOL(surface_status, "cairo_surface_status")
    TB_CARD_SYMBOL(surface_destroy, "cairo_surface_destroy")
    TB_CARD_SYMBOL(create, "cairo_create")
    TB_CARD_SYMBOL(status, "cairo_status")
    TB_CARD_SYMBOL(destroy, "cairo_destroy")
    TB_CARD_SYMBOL(save, "cairo_save")
    TB_CARD_SYMBOL(restore, "cairo_restore")
    TB_CARD_SYMBOL(set_source_rgb, "cairo_set_source_rgb")
    TB_CARD_SYMBOL(set_source_surface, "cairo_set_source_surface")
    TB_CARD_SYMBOL(get_source, "cairo_get_source")
    TB_CARD_SYMBOL(pattern_set_filter, "cairo_pattern_set_filter")
    TB_CARD_SYMBOL(rectangle, "cairo_rectangle")
    TB_CARD_SYMBOL(fill, "cairo_fill")
    TB_CARD_SYMBOL(clip, "cairo_clip")
    TB_CARD_SYMBOL(paint, "cairo_paint")
    TB_CARD_SYMBOL(translate, "cairo_translate")
    TB_CARD_SYMBOL(scale, "cairo_scale")
    TB_CARD_SYMBOL(move_to, "cairo_move_to")
    TB_CARD_SYMBOL(create_layout, "pango_cairo_create_layout")
    TB_CARD_SYMBOL(show_layout, "pango_cairo_show_layout")
    TB_CARD_SYMBOL(layout_set_text, "pango_layout_set_text")
    TB_CARD_SYMBOL(layout_set_font_description, "pango_layout_set_font_description")
    TB_CARD_SYMBOL(layout_set_width, "pango_layout_set_width")
    TB_CARD_SYMBOL(layout_set_height, "pango_layout_set_height")
    TB_CARD_SYMBOL(layout_set_wrap, "pango_layout_set_wrap")
    TB_CARD_SYMBOL(layout_set_ellipsize, "pango_layout_set_ellipsize")
    TB_CARD_SYMBOL(layout_set_alignment, "pango_layout_set_alignment")
    TB_CARD_SYMBOL(layout_get_pixel_size, "pango_layout_get_pixel_size")
    TB_CARD_SYMBOL(layout_get_unknown_glyphs_count, "pango_layout_get_unknown_glyphs_count")
    TB_CARD_SYMBOL(font_description_from_string, "pango_font_description_from_string")
    TB_CARD_SYMBOL(font_description_set_absolute_size, "pango_font_description_set_absolute_size")
    TB_CARD_SYMBOL(font_description_set_weight, "pango_font_description_set_weight")
    TB_CARD_SYMBOL(font_description_free, "pango_font_description_free")
    // GObject is pango's dependency: dlsym on libpangocairo's handle searches it too.
    TB_CARD_SYMBOL(object_unref, "g_object_unref")
};

static tb_library tb_card_library = {
    .title = "libpangocairo",
    // Debian 12 ships libpangocairo-1.0.so.0 (package libpangocairo-1.0-0).
    .names = {"libpangocairo-1.0.so.0", "libpangocairo-1.0.so"},
    .unloadable = "cannot draw preview cards: cannot load pango and cairo ({reason}); install libpangocairo-1.0-0",
    .no_reason = "unknown error",
    .missing = "{library} has no {function}",
    TB_LIBRARY_FUNCTIONS(tb_card_symbols),
};

int tb_card_available(char *error) {
    return tb_library_load(&tb_card_library, error, 200) == 0;
}

// The card's colours, as cairo takes them (0–1).
typedef struct {
    double red, green, blue;
} tb_colour;

static const tb_colour tb_background = {0.11, 0.11, 0.13};
static const tb_colour tb_text_colour = {0.97, 0.97, 0.97};
static const tb_colour tb_side1 = {0.80, 0.29, 0.05};
static const tb_colour tb_side2 = {0.07, 0.42, 0.75};
static const tb_colour tb_no_votes = {0.33, 0.33, 0.36};

static void tb_set_colour(void *cr, tb_colour colour) {
    tb_card.set_source_rgb(cr, colour.red, colour.green, colour.blue);
}

// A cairo surface holding `picture`, composited over the card's background (a JPEG card has no
// transparency); NULL when cairo cannot make one.
static void *tb_picture_surface(const tb_card_picture *picture) {
    void *surface = tb_card.image_surface_create(TB_CAIRO_FORMAT_RGB24, picture->width, picture->height);
    if (tb_card.surface_status(surface) != TB_CAIRO_STATUS_SUCCESS) {
        tb_card.surface_destroy(surface);  // cairo's error surface: destroying it is allowed
        return NULL;
    }
    tb_card.surface_flush(surface);
    unsigned char *data = tb_card.image_surface_get_data(surface);
    int stride = tb_card.image_surface_get_stride(surface);
    const int background[3] = {(int)(tb_background.red * 255), (int)(tb_background.green * 255), (int)(tb_background.blue * 255)};
    for (int y = 0; y < picture->height; y++) {
        const unsigned char *source = picture->pixels + (size_t)y * picture->width * picture->channels;
        uint32_t *row = (uint32_t *)(data + (size_t)y * stride);
        for (int x = 0; x < picture->width; x++, source += picture->channels) {
            int rgb[3];
            int alpha = picture->channels == 4 ? source[3] : picture->channels == 2 ? source[1] : 255;
            for (int c = 0; c < 3; c++) {
                int value = picture->channels >= 3 ? source[c] : source[0];
                rgb[c] = (value * alpha + background[c] * (255 - alpha) + 127) / 255;
            }
            row[x] = 0xff000000u | ((uint32_t)rgb[0] << 16) | ((uint32_t)rgb[1] << 8) | (uint32_t)rgb[2];
        }
    }
    tb_card.surface_mark_dirty(surface);
    return surface;
}

// Draws `picture` so that it covers the box (scaled, centred, the overflow cut off).
static int tb_draw_cover(void *cr, const tb_card_picture *picture, double x, double y, double width, double height) {
    if (picture->pixels == NULL || picture->width < 1 || picture->height < 1) return 0;
    void *surface = tb_picture_surface(picture);
    if (surface == NULL) return -1;
    double scale = width / picture->width;
    if (height / picture->height > scale) scale = height / picture->height;
    tb_card.save(cr);
    tb_card.rectangle(cr, x, y, width, height);
    tb_card.clip(cr);
    tb_card.translate(cr, x + width / 2, y + height / 2);
    tb_card.scale(cr, scale, scale);
    tb_card.set_source_surface(cr, surface, -picture->width / 2.0, -picture->height / 2.0);
    tb_card.pattern_set_filter(tb_card.get_source(cr), TB_CAIRO_FILTER_GOOD);
    tb_card.paint(cr);
    tb_card.restore(cr);
    tb_card.surface_destroy(surface);  // the context released its reference at restore
    return 0;
}

// Lays out `text` in `font` at `size` pixels, at most `width` wide and `lines` lines high
// (ellipsized after), and draws it with its top at `y`; returns pango's unknown glyphs.
static int tb_draw_text(void *cr, const char *text, const char *font, double size, int bold, int alignment, double x, double y,
                        double width, int lines, int *drawn_height) {
    void *layout = tb_card.create_layout(cr);
    if (layout == NULL) return 0;
    void *description = tb_card.font_description_from_string(font);
    tb_card.font_description_set_absolute_size(description, size * TB_PANGO_SCALE);
    if (bold) tb_card.font_description_set_weight(description, TB_PANGO_WEIGHT_BOLD);
    tb_card.layout_set_font_description(layout, description);  // the layout keeps a copy
    tb_card.font_description_free(description);
    tb_card.layout_set_width(layout, (int)(width * TB_PANGO_SCALE));
    tb_card.layout_set_height(layout, -lines);  // negative: at most this many lines
    tb_card.layout_set_wrap(layout, TB_PANGO_WRAP_WORD_CHAR);
    tb_card.layout_set_ellipsize(layout, TB_PANGO_ELLIPSIZE_END);
    tb_card.layout_set_alignment(layout, alignment);
    tb_card.layout_set_text(layout, text, -1);
    int layout_width = 0, layout_height = 0;
    tb_card.layout_get_pixel_size(layout, &layout_width, &layout_height);
    if (drawn_height != NULL) {
        *drawn_height = layout_height;
    } else {
        tb_card.move_to(cr, x, y);
        tb_card.show_layout(cr, layout);
    }
    int unknown = tb_card.layout_get_unknown_glyphs_count(layout);
    tb_card.object_unref(layout);
    return unknown;
}

int tb_card_draw(const tb_card_picture *left, const tb_card_picture *right, const tb_card_text *text, int width, int height,
                 unsigned char *rgb, int *unknown_glyphs, char *error) {
    if (unknown_glyphs != NULL) *unknown_glyphs = 0;
    if (!tb_card_available(error)) return -1;
    void *surface = tb_card.image_surface_create(TB_CAIRO_FORMAT_RGB24, width, height);
    void *cr = tb_card.create(surface);
    if (tb_card.status(cr) != TB_CAIRO_STATUS_SUCCESS) {
        snprintf(error, 200, "cairo cannot make a %d×%d canvas (out of memory?)", width, height);
        tb_card.destroy(cr);
        tb_card.surface_destroy(surface);
        return -1;
    }
    // Proportions of a 1200×630 card: pictures over 71 % of the height, then the text, then
    // the bar.
    const double gap = width / 150.0;
    const double pictures_height = height * 0.71;
    const double bar_height = height * 0.085;
    const double bar_top = height - bar_height;
    const double margin = width / 30.0;

    tb_set_colour(cr, tb_background);
    tb_card.paint(cr);
    int failed = tb_draw_cover(cr, left, 0, 0, (width - gap) / 2, pictures_height);
    failed |= tb_draw_cover(cr, right, (width + gap) / 2, 0, (width - gap) / 2, pictures_height);

    // The question, centred in the band between the pictures and the bar.
    double band_top = pictures_height, band_height = bar_top - pictures_height;
    double size = band_height * 0.34;
    int text_height = 0;
    tb_draw_text(cr, text->text, text->font, size, 1, TB_PANGO_ALIGN_CENTER, 0, 0, width - 2 * margin, 2, &text_height);
    if (text_height > band_height) text_height = (int)band_height;
    tb_set_colour(cr, tb_text_colour);
    int unknown = tb_draw_text(cr, text->text, text->font, size, 1, TB_PANGO_ALIGN_CENTER, margin,
                               band_top + (band_height - text_height) / 2, width - 2 * margin, 2, NULL);

    // The bar: side 1's share from the left, side 2's from the right, their percentages on it.
    if (text->voted) {
        double split = width * (text->percent1 < 0 ? 0 : text->percent1 > 100 ? 100 : text->percent1) / 100.0;
        tb_set_colour(cr, tb_side1);
        tb_card.rectangle(cr, 0, bar_top, split, bar_height);
        tb_card.fill(cr);
        tb_set_colour(cr, tb_side2);
        tb_card.rectangle(cr, split, bar_top, width - split, bar_height);
        tb_card.fill(cr);
        char label[8];
        double label_size = bar_height * 0.6, label_top = bar_top + (bar_height - label_size * 1.2) / 2;
        tb_set_colour(cr, tb_text_colour);
        snprintf(label, sizeof label, "%d%%", text->percent1);
        unknown += tb_draw_text(cr, label, text->font, label_size, 1, TB_PANGO_ALIGN_LEFT, margin / 2, label_top, width / 3.0, 1, NULL);
        snprintf(label, sizeof label, "%d%%", 100 - text->percent1);
        unknown += tb_draw_text(cr, label, text->font, label_size, 1, TB_PANGO_ALIGN_RIGHT, width - margin / 2 - width / 3.0,
                                label_top, width / 3.0, 1, NULL);
    } else {
        tb_set_colour(cr, tb_no_votes);
        tb_card.rectangle(cr, 0, bar_top, width, bar_height);
        tb_card.fill(cr);
    }
    if (unknown_glyphs != NULL) *unknown_glyphs = unknown;

    int status = tb_card.status(cr);
    tb_card.destroy(cr);
    tb_card.surface_flush(surface);
    if (failed || status != TB_CAIRO_STATUS_SUCCESS) {
        snprintf(error, 200, "cairo failed to draw the card (status %d; out of memory?)", status);
        tb_card.surface_destroy(surface);
        return -1;
    }
    const unsigned char *data = tb_card.image_surface_get_data(surface);
    int stride = tb_card.image_surface_get_stride(surface);
    for (int y = 0; y < height; y++) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * stride);
        unsigned char *out = rgb + (size_t)y * width * 3;
        for (int x = 0; x < width; x++) {
            out[3 * x] = (unsigned char)(row[x] >> 16);
            out[3 * x + 1] = (unsigned char)(row[x] >> 8);
            out[3 * x + 2] = (unsigned char)row[x];
        }
    }
    tb_card.surface_destroy(surface);
    return 0;
}
