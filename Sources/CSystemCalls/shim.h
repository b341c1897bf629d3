#ifndef EDGESWIPE_CSYSTEMCALLS_SHIM_H
#define EDGESWIPE_CSYSTEMCALLS_SHIM_H
/* glibc's GNU extensions that Swift's Glibc module leaves out: it is built without _GNU_SOURCE, so <poll.h>,
   <sys/socket.h>, <pthread.h> and <unistd.h> hide these declarations. Only EdgeSwipeSystem imports this module,
   and wraps each call once. */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <malloc.h>
#include <sys/pidfd.h>

/* memfd_create(2): an anonymous file in memory, for what a Wayland compositor maps (a keymap, a shm buffer). */
extern int memfd_create(const char *name, unsigned int flags);
/* MFD_CLOEXEC and MFD_ALLOW_SEALING, which <sys/mman.h> hides without _GNU_SOURCE. */
static const unsigned int EDGESWIPE_MFD_CLOEXEC = 0x0001U;
/* pidfd_open(2) comes from <sys/pidfd.h>: a descriptor that becomes readable when a child exits, so that one
   ppoll waits on a command's exit, its output and its deadline at once (edgeswipe-session's command runner). */

/* ppoll(2): poll(2) with a nanosecond timeout (poll's is whole milliseconds, rounded up). */
extern int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const __sigset_t *sigmask);
/* accept4(2): accept with SOCK_CLOEXEC and SOCK_NONBLOCK set atomically. */
extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
/* pthread_setname_np(3): names a thread as ps, top and /proc/PID/task/TID/comm show it (at most 15 bytes). */
extern int pthread_setname_np(pthread_t thread, const char *name);
/* environ(7): the process's environment, read through a function (Swift would see the variable as shared mutable
   state). */
extern char **environ;
static inline char **edgeswipe_environ(void) { return environ; }
/* malloc_trim(3) and mallinfo2(3) come from <malloc.h>: the daemon hands memory freed by a burst of clients back
   to the system (ProcessHeap.swift). */
#endif
