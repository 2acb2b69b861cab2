// The epoll set behind the server's HangUpWatch (Swift's Glibc module has no sys/epoll.h).
#include "CMicroHTTPD.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

int tb_hangup_create(int *wake) {
    int poll = epoll_create1(EPOLL_CLOEXEC);
    if (poll < 0) return -1;
    *wake = eventfd(0, EFD_CLOEXEC);
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = 0};
    if (*wake < 0 || epoll_ctl(poll, EPOLL_CTL_ADD, *wake, &event) != 0) {
        int saved = errno;
        if (*wake >= 0) close(*wake);
        close(poll);
        errno = saved;
        return -1;
    }
    return poll;
}

int tb_hangup_add(int poll, int socket, uint64_t number) {
    struct epoll_event event = {.events = EPOLLRDHUP | EPOLLONESHOT, .data.u64 = number};
    return epoll_ctl(poll, EPOLL_CTL_ADD, socket, &event);
}

int tb_hangup_wait(int poll, uint64_t *numbers, int capacity) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count;
    do {
        count = epoll_wait(poll, events, capacity, -1);
    } while (count < 0 && errno == EINTR);
    for (int index = 0; index < count; index++) numbers[index] = events[index].data.u64;
    return count;
}

int tb_hangup_wake(int wake) {
    uint64_t one = 1;
    return write(wake, &one, sizeof one) == sizeof one ? 0 : -1;
}
