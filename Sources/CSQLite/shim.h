#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// This returns it so text and blob bindings can ask SQLite to copy their bytes.
static inline sqlite3_destructor_type tb_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_db_config is variadic, which Swift cannot call: this asks that closing the
// connection never checkpoint the write-ahead log (nor remove it).
static inline int tb_sqlite_no_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

// sqlite3_config is variadic too. Debian's SQLite keeps memory statistics by default, which
// takes a process-wide mutex around every allocation and free it makes; tenbin reads none of
// them. Only takes effect before SQLite initializes (the process's first open): SQLITE_OK
// then, SQLITE_MISUSE after.
static inline int tb_sqlite_no_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
