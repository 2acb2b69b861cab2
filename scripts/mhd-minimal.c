// The least a libmicrohttpd server can do for tenbin serve's two static answers, with
// tenbin's daemon flags (thread pool, epoll, suspend/resume, its memory limit): a blob
// opened, fstat'ed and sent with sendfile for each request, and a page's JSON from memory.
// `make bench SECTIONS=serve` builds and runs it beside tenbin and nginx, so the share of
// the gap to nginx that is libmicrohttpd's own is measured rather than guessed.
//
//   mhd-minimal PORT THREADS BLOB_FILE PAGE_FILE
//   GET /blob → the blob (image/jpeg) from its file; /blob-memory → the same bytes from memory;
//   POST (any path) → the body read, the connection suspended and handed to a second thread,
//   which resumes every connection handed to it since it last woke, and the page is the
//   answer: a vote's path through tenbin serve (suspended while its batch commits, resumed by
//   the committing thread) without the store;
//   anything else → the page (application/json)

#include <fcntl.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *blob_path;
static char *page;
static size_t page_size;
static char *blob;
static size_t blob_size;

// The context of a GET: the first call only marks the request.
static int seen;

// A POST's state: its body is being read, it waits for the second thread, or it was resumed.
struct deferred {
    int suspended;
    int resumed;  // written by the second thread under `lock`, read after the resume
    struct MHD_Connection *connection;
    struct deferred *next;
};

// Connections handed to the second thread, newest first.
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t handed = PTHREAD_COND_INITIALIZER;
static struct deferred *waiting;

// The second thread: takes every connection handed over since it last woke and resumes each.
static void *resumer(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (waiting == NULL) pthread_cond_wait(&handed, &lock);
        struct deferred *batch = waiting;
        waiting = NULL;
        for (struct deferred *each = batch; each != NULL; each = each->next) each->resumed = 1;
        pthread_mutex_unlock(&lock);
        while (batch != NULL) {
            struct deferred *next = batch->next;
            MHD_resume_connection(batch->connection);
            batch = next;
        }
    }
    return NULL;
}

// A POST, call by call: the body is read, then the connection waits for the second thread.
static enum MHD_Result defer_post(struct MHD_Connection *connection, size_t *upload_size, void **request) {
    struct deferred *state = *request;
    if (*upload_size > 0) {
        *upload_size = 0;
        return MHD_YES;
    }
    pthread_mutex_lock(&lock);
    int resumed = state->resumed;
    if (!state->suspended) {
        state->suspended = 1;
        state->connection = connection;
        MHD_suspend_connection(connection);
        state->next = waiting;
        waiting = state;
        pthread_cond_signal(&handed);
    }
    pthread_mutex_unlock(&lock);
    if (!resumed) return MHD_YES;
    struct MHD_Response *response = MHD_create_response_from_buffer(page_size, page, MHD_RESPMEM_PERSISTENT);
    if (response == NULL) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result queued = MHD_queue_response(connection, 200, response);
    MHD_destroy_response(response);
    return queued;
}

static void completed(void *context, struct MHD_Connection *connection, void **request, enum MHD_RequestTerminationCode code) {
    (void)context, (void)connection, (void)code;
    if (*request != NULL && *request != &seen) free(*request);
    *request = NULL;
}

// Reads a whole file into memory (0), or -1.
static int slurp(const char *path, char **bytes, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return -1;
    fseek(file, 0, SEEK_END);
    *size = (size_t)ftell(file);
    rewind(file);
    *bytes = malloc(*size);
    int status = *bytes != NULL && fread(*bytes, 1, *size, file) == *size ? 0 : -1;
    fclose(file);
    return status;
}

static enum MHD_Result answer(void *context, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **request) {
    (void)context, (void)version, (void)upload;
    // As tenbin does: the first call only marks the request, the answer comes on the second
    // (libmicrohttpd closes a connection answered before it knew the request had no body).
    if (*request == NULL) {
        *request = strcmp(method, "POST") == 0 ? calloc(1, sizeof(struct deferred)) : &seen;
        return *request == NULL ? MHD_NO : MHD_YES;
    }
    if (*request != &seen) return defer_post(connection, upload_size, request);
    struct MHD_Response *response;
    const char *type = "application/json";
    if (strcmp(url, "/blob") == 0) {
        int fd = open(blob_path, O_RDONLY | O_CLOEXEC);
        struct stat info;
        if (fd < 0 || fstat(fd, &info) != 0) return MHD_NO;
        response = MHD_create_response_from_fd64((uint64_t)info.st_size, fd);
        type = "image/jpeg";
    } else if (strcmp(url, "/blob-memory") == 0) {
        // The same bytes from memory: libmicrohttpd then sends head and body in one call.
        response = MHD_create_response_from_buffer(blob_size, blob, MHD_RESPMEM_PERSISTENT);
        type = "image/jpeg";
    } else {
        response = MHD_create_response_from_buffer(page_size, page, MHD_RESPMEM_PERSISTENT);
    }
    if (response == NULL) return MHD_NO;
    MHD_add_response_header(response, "Content-Type", type);
    enum MHD_Result queued = MHD_queue_response(connection, 200, response);
    MHD_destroy_response(response);
    return queued;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: mhd-minimal PORT THREADS BLOB_FILE PAGE_FILE\n");
        return 64;
    }
    blob_path = argv[3];
    if (slurp(argv[4], &page, &page_size) != 0 || slurp(blob_path, &blob, &blob_size) != 0) {
        fprintf(stderr, "mhd-minimal: cannot read %s or %s\n", argv[4], blob_path);
        return 1;
    }
    pthread_t thread;
    if (pthread_create(&thread, NULL, resumer, NULL) != 0) return 1;
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC, (uint16_t)atoi(argv[1]),
        NULL, NULL, answer, NULL, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)atoi(argv[2]), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)(32 * 1024), MHD_OPTION_CONNECTION_LIMIT, 10000u, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
        MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
    if (daemon == NULL) return 1;
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigprocmask(SIG_BLOCK, &signals, NULL);
    int signal;
    sigwait(&signals, &signal);
    MHD_stop_daemon(daemon);
    return 0;
}
