// Debian's libpq-dev installs its headers under /usr/include/postgresql; libpq-fe.h includes
// postgres_ext.h with quotes, which resolves beside it.
#include <postgresql/libpq-fe.h>
