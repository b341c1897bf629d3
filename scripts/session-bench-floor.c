/* The floor of edgeswipe-bench's session section (Sources/edgeswipe-bench/SessionSection.swift): the least a client
   can do between the daemon's line and the compositor's socket. It reads the daemon's stream and, for each line that
   completes a transition, writes one fixed sway RUN_COMMAND frame: no decoding, no rules, no event loop. The bench
   builds it with cc -O2. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int connect_to(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) { perror(path); _exit(1); }
    return fd;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s DAEMON_SOCKET SWAY_SOCKET\n", argv[0]); return 64; }
    int daemon = connect_to(argv[1]), sway = connect_to(argv[2]);
    const char *command = "workspace next_on_output";
    uint32_t length = (uint32_t)strlen(command), type = 0;
    char frame[64];
    memcpy(frame, "i3-ipc", 6);
    memcpy(frame + 6, &length, 4);
    memcpy(frame + 10, &type, 4);
    memcpy(frame + 14, command, length);
    static char buffer[1 << 20];
    size_t used = 0;
    for (;;) {
        ssize_t n = read(daemon, buffer + used, sizeof buffer - used);
        if (n <= 0) return 0;
        used += (size_t)n;
        char *start = buffer, *newline;
        while ((newline = memchr(start, '\n', used - (size_t)(start - buffer)))) {
            *newline = 0;
            if (strstr(start, "\"phase\":\"completed\"")) write(sway, frame, 14 + length);
            start = newline + 1;
        }
        used -= (size_t)(start - buffer);
        memmove(buffer, start, used);
    }
}
