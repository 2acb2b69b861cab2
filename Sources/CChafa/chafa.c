// Terminal pictures through libchafa, loaded on first use rather than linked.
//
// libchafa brings GLib with it: linked, the dynamic loader would map and relocate both when
// any tenbin process starts, which `tenbin vote` would pay for without drawing anything. And
// a machine without libchafa should still run tenbin, drawing half blocks. So the library is
// opened with dlopen (CLibraryLoader) the first time a picture is drawn and every call goes
// through a looked-up pointer; all of that, and every libchafa type, stays in this file. The declarations below
// follow libchafa 1.x's public headers (chafa-canvas.h, chafa-canvas-config.h, chafa-common.h,
// chafa-symbol-map.h); its ABI is stable across 1.x.

#include "CChafa.h"

#include "CLibraryLoader.h"

#include <stdlib.h>
#include <string.h>

// GLib's GString, whose layout is part of GLib's stable ABI.
typedef struct {
    char *str;
    size_t len;
    size_t allocated_len;
} tb_gstring;

enum {
    TB_CHAFA_CANVAS_MODE_TRUECOLOR = 0,  // ChafaCanvasMode
    TB_CHAFA_PIXEL_RGBA8_UNASSOCIATED = 4,  // ChafaPixelType
    TB_CHAFA_SYMBOL_TAG_SPACE = 1 << 0,  // ChafaSymbolTags
    TB_CHAFA_SYMBOL_TAG_BLOCK = 1 << 3,
    TB_CHAFA_SYMBOL_TAG_BORDER = 1 << 4,
    TB_CHAFA_SYMBOL_TAG_INVERTED = 1 << 10,
    TB_CHAFA_SYMBOL_TAG_WIDE = 1 << 18,
};

static struct {
    void *(*config_new)(void);
    void (*config_unref)(void *config);
    void (*config_set_geometry)(void *config, int width, int height);
    void (*config_set_cell_geometry)(void *config, int width, int height);
    void (*config_set_canvas_mode)(void *config, int mode);
    void (*config_set_pixel_mode)(void *config, int mode);
    void (*config_set_symbol_map)(void *config, const void *map);
    void *(*symbol_map_new)(void);
    void (*symbol_map_unref)(void *map);
    void (*symbol_map_add_by_tags)(void *map, int tags);
    void (*symbol_map_remove_by_tags)(void *map, int tags);
    void *(*canvas_new)(const void *config);
    void (*canvas_unref)(void *canvas);
    void (*canvas_draw_all_pixels)(void *canvas, int type, const unsigned char *pixels, int width, int height, int stride);
    tb_gstring *(*canvas_print)(void *canvas, void *term_info);
    char *(*g_string_free)(tb_gstring *string, int free_segment);
} tb_chafa;

#define TB_CHAFA_SYMBOL(field, name) {name, (void **)&tb_chafa.field},
static const tb_library_symbol tb_chafa_symbols[] = {
    TB_CHAFA_SYMBOL(config_new, "chafa_canvas_config_new")
    TB_CHAFA_SYMBOL(config_unref, "chafa_canvas_config_unref")
    TB_CHAFA_SYMBOL(config_set_geometry, "chafa_canvas_config_set_geometry")
    TB_CHAFA_SYMBOL(config_set_cell_geometry, "chafa_canvas_config_set_cell_geometry")
    TB_CHAFA_SYMBOL(config_set_canvas_mode, "chafa_canvas_config_set_canvas_mode")
    TB_CHAFA_SYMBOL(config_set_pixel_mode, "chafa_canvas_config_set_pixel_mode")
    TB_CHAFA_SYMBOL(config_set_symbol_map, "chafa_canvas_config_set_symbol_map")
    TB_CHAFA_SYMBOL(symbol_map_new, "chafa_symbol_map_new")
    TB_CHAFA_SYMBOL(symbol_map_unref, "chafa_symbol_map_unref")
    TB_CHAFA_SYMBOL(symbol_map_add_by_tags, "chafa_symbol_map_add_by_tags")
    TB_CHAFA_SYMBOL(symbol_map_remove_by_tags, "chafa_symbol_map_remove_by_tags")
    TB_CHAFA_SYMBOL(canvas_new, "chafa_canvas_new")
    TB_CHAFA_SYMBOL(canvas_unref, "chafa_canvas_unref")
    TB_CHAFA_SYMBOL(canvas_draw_all_pixels, "chafa_canvas_draw_all_pixels")
    TB_CHAFA_SYMBOL(canvas_print, "chafa_canvas_print")
    // GLib is libchafa's dependency: dlsym on libchafa's handle searches it too.
    TB_CHAFA_SYMBOL(g_string_free, "g_string_free")
};

static tb_library tb_chafa_library = {
    .title = "libchafa",
    // Debian 12 ships libchafa.so.0 (package libchafa0); the unversioned name covers others.
    .names = {"libchafa.so.0", "libchafa.so"},
    .unloadable = "cannot load libchafa: {reason}",
    .no_reason = "unknown error",
    .missing = "libchafa has no {function}",
    TB_LIBRARY_FUNCTIONS(tb_chafa_symbols),
};

int tb_chafa_available(char *error) {
    return tb_library_load(&tb_chafa_library, error, 200) == 0;
}

char *tb_chafa_render(const unsigned char *rgba, int width, int height, int stride, tb_chafa_mode mode, int columns, int rows,
                      int cell_width, int cell_height, size_t *length) {
    *length = 0;
    if (!tb_chafa_available(NULL) || width < 1 || height < 1 || columns < 1 || rows < 1) return NULL;
    void *config = tb_chafa.config_new();
    if (config == NULL) return NULL;
    tb_chafa.config_set_geometry(config, columns, rows);
    tb_chafa.config_set_cell_geometry(config, cell_width, cell_height);
    tb_chafa.config_set_canvas_mode(config, TB_CHAFA_CANVAS_MODE_TRUECOLOR);
    tb_chafa.config_set_pixel_mode(config, (int)mode);
    void *map = tb_chafa.symbol_map_new();
    if (map != NULL) {
        tb_chafa.symbol_map_add_by_tags(map, TB_CHAFA_SYMBOL_TAG_BLOCK | TB_CHAFA_SYMBOL_TAG_BORDER | TB_CHAFA_SYMBOL_TAG_SPACE);
        tb_chafa.symbol_map_remove_by_tags(map, TB_CHAFA_SYMBOL_TAG_WIDE | TB_CHAFA_SYMBOL_TAG_INVERTED);
        tb_chafa.config_set_symbol_map(config, map);  // the config keeps its own copy
        tb_chafa.symbol_map_unref(map);
    }
    void *canvas = tb_chafa.canvas_new(config);
    tb_chafa.config_unref(config);  // the canvas keeps its own copy
    if (canvas == NULL) return NULL;
    tb_chafa.canvas_draw_all_pixels(canvas, TB_CHAFA_PIXEL_RGBA8_UNASSOCIATED, rgba, width, height, stride);
    // NULL terminal info: libchafa's fallback, which knows every sequence these modes need.
    tb_gstring *printed = tb_chafa.canvas_print(canvas, NULL);
    tb_chafa.canvas_unref(canvas);
    if (printed == NULL) return NULL;
    char *copy = malloc(printed->len + 1);
    if (copy != NULL) {
        memcpy(copy, printed->str, printed->len);
        copy[printed->len] = 0;
        *length = printed->len;
    }
    tb_chafa.g_string_free(printed, 1);  // returns NULL when it frees the text too
    return copy;
}
