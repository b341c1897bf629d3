/*
 * TEST ONLY: a stand-in for edgeswipe-session's GNOME backend, driving the EdgeSwipe GNOME Shell extension
 * (org.edgeswipe.Shell1 at /org/edgeswipe/Shell, bus name org.gnome.Shell) over the session bus with sd-bus, the
 * library the session's own bus code wraps. GnomeShellExtensionTests builds it under the name edgeswipe-session
 * (the extension serves only an executable of that name) and once more under another name (which it must refuse).
 *
 * One connection for the whole run, so that the extension sees one client. Commands on stdin, one per line:
 *   TAG call METHOD SIGNATURE ARGS...   a method call; its reply or error comes later, tagged
 *   TAG send METHOD SIGNATURE ARGS...   the same with NO_REPLY_EXPECTED (UpdateGesture): "sent" at once
 *   TAG get PROPERTY                    org.freedesktop.DBus.Properties.Get
 * SIGNATURE is a string of u, i, t, d, b, s and "as" (an array of strings: ARG is comma-separated, "-" for none).
 * Out, one JSON object per line: {"ready":":1.9"}; {"tag":3,"values":[...]}; {"tag":3,"error":NAME,"message":M};
 * {"tag":3,"sent":true}; {"signal":MEMBER,"values":[...]}. It exits at the end of its input.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#define DESTINATION "org.gnome.Shell"
#define PATH "/org/edgeswipe/Shell"
#define INTERFACE "org.edgeswipe.Shell1"

static void json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* Writes the rest of the current container as JSON values separated by commas. */
static int json_values(sd_bus_message *m) {
    int first = 1;
    for (;;) {
        char type;
        const char *contents;
        int r = sd_bus_message_peek_type(m, &type, &contents);
        if (r <= 0) return r;
        if (!first) putchar(',');
        first = 0;
        if (type == SD_BUS_TYPE_ARRAY || type == SD_BUS_TYPE_STRUCT || type == SD_BUS_TYPE_VARIANT ||
            type == SD_BUS_TYPE_DICT_ENTRY) {
            if ((r = sd_bus_message_enter_container(m, type, contents)) < 0) return r;
            if (type != SD_BUS_TYPE_VARIANT) putchar('[');
            if ((r = json_values(m)) < 0) return r;
            if (type != SD_BUS_TYPE_VARIANT) putchar(']');
            if ((r = sd_bus_message_exit_container(m)) < 0) return r;
            continue;
        }
        union { uint8_t y; int b; int16_t n; uint16_t q; int32_t i; uint32_t u; int64_t x; uint64_t t; double d; const char *s; } v;
        if ((r = sd_bus_message_read_basic(m, type, &v)) < 0) return r;
        switch (type) {
        case 'y': printf("%u", v.y); break;
        case 'b': printf(v.b ? "true" : "false"); break;
        case 'n': printf("%d", v.n); break;
        case 'q': printf("%u", v.q); break;
        case 'i': printf("%" PRId32, v.i); break;
        case 'u': printf("%" PRIu32, v.u); break;
        case 'x': printf("%" PRId64, v.x); break;
        case 't': printf("%" PRIu64, v.t); break;
        case 'd': printf("%.17g", v.d); break;
        case 's': case 'o': case 'g': json_string(v.s); break;
        default: printf("null"); break;
        }
    }
}

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)ret_error;
    long tag = (long)(intptr_t)userdata;
    const sd_bus_error *e = sd_bus_message_get_error(m);
    if (e) {
        printf("{\"tag\":%ld,\"error\":", tag);
        json_string(e->name ? e->name : "?");
        printf(",\"message\":");
        json_string(e->message ? e->message : "");
        printf("}\n");
        return 0;
    }
    printf("{\"tag\":%ld,\"values\":[", tag);
    int r = json_values(m);
    printf("]%s}\n", r < 0 ? ",\"unreadable\":true" : "");
    return 0;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    (void)userdata;
    (void)ret_error;
    printf("{\"signal\":");
    json_string(sd_bus_message_get_member(m) ? sd_bus_message_get_member(m) : "?");
    printf(",\"sender\":");
    json_string(sd_bus_message_get_sender(m) ? sd_bus_message_get_sender(m) : "");
    printf(",\"destination\":");
    json_string(sd_bus_message_get_destination(m) ? sd_bus_message_get_destination(m) : "");
    printf(",\"values\":[");
    json_values(m);
    printf("]}\n");
    return 0;
}

static void say_error(long tag, const char *what, int r) {
    printf("{\"tag\":%ld,\"error\":\"driver\",\"message\":", tag);
    char text[256];
    snprintf(text, sizeof text, "%s: %s", what, strerror(r < 0 ? -r : r));
    json_string(text);
    printf("}\n");
}

/* Appends ARGS (whitespace-separated words) by SIGNATURE. */
static int append_args(sd_bus_message *m, const char *signature, char **words, int count) {
    int w = 0;
    for (const char *s = signature; *s; s++) {
        if (w >= count) return -EINVAL;
        const char *a = words[w++];
        int r;
        switch (*s) {
        case 'u': r = sd_bus_message_append_basic(m, 'u', &(uint32_t){(uint32_t)strtoul(a, NULL, 0)}); break;
        case 'i': r = sd_bus_message_append_basic(m, 'i', &(int32_t){(int32_t)strtol(a, NULL, 0)}); break;
        case 't': r = sd_bus_message_append_basic(m, 't', &(uint64_t){strtoull(a, NULL, 0)}); break;
        case 'd': r = sd_bus_message_append_basic(m, 'd', &(double){strtod(a, NULL)}); break;
        case 'b': r = sd_bus_message_append_basic(m, 'b', &(int){strcmp(a, "true") == 0}); break;
        case 's': r = sd_bus_message_append_basic(m, 's', a); break;
        case 'a': {
            if (*++s != 's') return -EINVAL;
            if ((r = sd_bus_message_open_container(m, 'a', "s")) < 0) return r;
            if (strcmp(a, "-") != 0) {
                char *copy = strdup(a), *save = NULL;
                for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
                    if ((r = sd_bus_message_append_basic(m, 's', item)) < 0) break;
                }
                free(copy);
                if (r < 0) return r;
            }
            r = sd_bus_message_close_container(m);
            break;
        }
        default: return -EINVAL;
        }
        if (r < 0) return r;
    }
    return 0;
}

static void command(sd_bus *bus, char *line) {
    char *words[16];
    int count = 0;
    char *save = NULL;
    for (char *w = strtok_r(line, " \t\r\n", &save); w && count < 16; w = strtok_r(NULL, " \t\r\n", &save)) words[count++] = w;
    if (count < 3) return;
    long tag = strtol(words[0], NULL, 10);
    const char *verb = words[1];
    sd_bus_message *m = NULL;
    int r;
    if (strcmp(verb, "get") == 0) {
        r = sd_bus_message_new_method_call(bus, &m, DESTINATION, PATH, "org.freedesktop.DBus.Properties", "Get");
        if (r >= 0) r = sd_bus_message_append(m, "ss", INTERFACE, words[2]);
    } else if (count >= 4 && (strcmp(verb, "call") == 0 || strcmp(verb, "send") == 0)) {
        r = sd_bus_message_new_method_call(bus, &m, DESTINATION, PATH, INTERFACE, words[2]);
        const char *signature = strcmp(words[3], "-") == 0 ? "" : words[3];
        if (r >= 0) r = append_args(m, signature, words + 4, count - 4);
    } else {
        r = -EINVAL;
    }
    if (r < 0) {
        say_error(tag, "building the call", r);
    } else if (strcmp(verb, "send") == 0) {
        if ((r = sd_bus_message_set_expect_reply(m, 0)) >= 0) r = sd_bus_send(bus, m, NULL);
        if (r < 0) say_error(tag, "sending", r);
        else printf("{\"tag\":%ld,\"sent\":true}\n", tag);
    } else {
        r = sd_bus_call_async(bus, NULL, m, on_reply, (void *)(intptr_t)tag, 10 * 1000 * 1000);
        if (r < 0) say_error(tag, "calling", r);
    }
    sd_bus_message_unref(m);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r < 0) {
        fprintf(stderr, "driver: cannot reach the session bus: %s\n", strerror(-r));
        return 69;
    }
    r = sd_bus_add_match(bus, NULL, "type='signal',interface='" INTERFACE "'", on_signal, NULL);
    if (r < 0) {
        fprintf(stderr, "driver: cannot match signals: %s\n", strerror(-r));
        return 69;
    }
    const char *unique = NULL;
    sd_bus_get_unique_name(bus, &unique);
    printf("{\"ready\":");
    json_string(unique ? unique : "");
    printf(",\"pid\":%d}\n", (int)getpid());

    char buffer[8192];
    size_t used = 0;
    int input_open = 1;
    while (input_open) {
        while ((r = sd_bus_process(bus, NULL)) > 0) {}
        if (r < 0) {
            fprintf(stderr, "driver: the bus broke: %s\n", strerror(-r));
            return 70;
        }
        struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = sd_bus_get_fd(bus), .events = (short)sd_bus_get_events(bus)}};
        uint64_t usec = UINT64_MAX;
        sd_bus_get_timeout(bus, &usec);
        int timeout = -1;
        if (usec != UINT64_MAX) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            uint64_t n = (uint64_t)now.tv_sec * 1000000u + (uint64_t)now.tv_nsec / 1000u;
            timeout = usec > n ? (int)((usec - n + 999) / 1000) : 0;
        }
        if (poll(fds, 2, timeout) < 0 && errno != EINTR) return 71;
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(0, buffer + used, sizeof buffer - 1 - used);
            if (n <= 0) {
                input_open = 0;
                n = 0;
            }
            used += (size_t)n;
            buffer[used] = 0;
            char *start = buffer, *end;
            while ((end = memchr(start, '\n', used - (size_t)(start - buffer)))) {
                *end = 0;
                command(bus, start);
                start = end + 1;
            }
            used -= (size_t)(start - buffer);
            memmove(buffer, start, used);
            if (used == sizeof buffer - 1) used = 0;
        }
    }
    sd_bus_flush(bus);
    sd_bus_flush_close_unref(bus);
    return 0;
}
