#define _GNU_SOURCE
#include <unistd.h>

#include "CFileSync.h"

int tb_syncfs(int fd) { return syncfs(fd); }
