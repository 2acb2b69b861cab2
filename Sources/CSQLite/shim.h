#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// This returns it so text and blob bindings can ask SQLite to copy their bytes.
static inline sqlite3_destructor_type tb_sqlite_transient(void) { return SQLITE_TRANSIENT; }
