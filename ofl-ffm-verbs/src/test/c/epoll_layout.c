/*
 * epoll_layout.c: prints what CompletionPoller assumes of <sys/epoll.h> and <fcntl.h>, as compiled
 * for one architecture. EpollLayoutTest compiles and runs it for each architecture of NativeArch
 * (another one under qemu-user) and compares every line with the Java side.
 *
 * Output, one fact per line:
 *   epoll_event <sizeof> <offsetof events> <offsetof data>
 *   const <NAME> <value>
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/epoll.h>

#define C(X) printf("const %s %lld\n", #X, (long long)(X))

int main(void)
{
    printf("epoll_event %zu %zu %zu\n", sizeof(struct epoll_event), offsetof(struct epoll_event, events),
           offsetof(struct epoll_event, data));
    C(EPOLL_CLOEXEC);
    C(EPOLL_CTL_ADD);
    C(EPOLL_CTL_DEL);
    C(EPOLL_CTL_MOD);
    C(EPOLLIN);
    C(EPOLLONESHOT);
    C(F_GETFL);
    C(F_SETFL);
    C(O_NONBLOCK);
    return 0;
}
