#!/usr/bin/env python3
"""A minimal EdgeSwipe client using only the Python standard library.

It connects to the daemon's Unix socket, reads the hello, subscribes, prints the
transitions it receives and can send one request. The wire format is described in
docs/PROTOCOL.md: one JSON object per line in each direction.

Examples:
    edgeswipe_client.py                                # follow every transition
    edgeswipe_client.py --topics transition,lifecycle --tick-hz 30
    edgeswipe_client.py --once --request status        # hello, one reply, exit
    edgeswipe_client.py --request push --container app --scene detail --count 1
    edgeswipe_client.py --json --count 10              # raw lines
"""

import argparse
import json
import os
import socket
import sys

TOPICS = ["gesture", "transition", "lifecycle", "state", "device", "config"]


def default_socket():
    """The rule every EdgeSwipe tool follows: $EDGESWIPE_SOCKET, else $XDG_RUNTIME_DIR/edgeswipe.sock if it
    exists (a user's own daemon), else the system service's /run/edgeswipe/edgeswipe.sock."""
    explicit = os.environ.get("EDGESWIPE_SOCKET")
    if explicit:
        return explicit
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.exists(os.path.join(runtime, "edgeswipe.sock")):
        return os.path.join(runtime, "edgeswipe.sock")
    return "/run/edgeswipe/edgeswipe.sock"


class Connection:
    """Reads newline-delimited JSON from the socket, one message at a time."""

    def __init__(self, path, timeout):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buffer = b""
        self.next_id = 1

    def read(self):
        """The next message as a dict, or None at end of stream."""
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def send(self, op, **fields):
        """Sends a request and returns its id (replies and errors echo it)."""
        request_id = self.next_id
        self.next_id += 1
        message = {"op": op, "id": request_id}
        message.update({k: v for k, v in fields.items() if v is not None})
        self.sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")
        return request_id

    def await_answer(self, request_id, on_message):
        """Reads until the reply or error for request_id; other messages go to on_message."""
        while True:
            message = self.read()
            if message is None:
                raise ConnectionError("the server closed the connection before answering")
            if message.get("type") in ("reply", "error") and message.get("id") == request_id:
                return message
            on_message(message)


def describe(message):
    """One readable line per message."""
    kind = message.get("type")
    if kind == "transition":
        bar = "#" * int(round(message["percent"] * 20))
        extra = " animation=%s/%dus" % (message["animation"]["curve"], message["animation"]["duration_us"]) if "animation" in message else ""
        return "transition %d %s %s %s->%s %-10s [%-20s] %.3f%s" % (
            message["id"], message["operation"], message["container"], message["from"], message["to"],
            message["phase"], bar, message["percent"], extra)
    if kind == "lifecycle":
        return "lifecycle %d %s %s %s" % (message["transition"], message["container"], message["scene"], message["event"])
    if kind == "gesture":
        return "gesture %s %s device=%d fingers=%d" % (message["edge"], message["state"], message["device"], message["fingers"])
    if kind == "state":
        return "state " + ", ".join("%s:%s" % (c["name"], c["visible"]) for c in message["containers"])
    if kind == "device":
        return "device %s %d %s (%s)" % (message["change"], message["id"], message["name"], message["kind"])
    if kind == "config":
        return "config %s: %s" % (message["result"], message["message"])
    if kind == "reply":
        return "reply %s %s" % (message["op"], json.dumps(message["result"], separators=(",", ":")))
    if kind == "error":
        return "error %s: %s" % (message["code"], message["message"])
    if kind == "goodbye":
        return "goodbye %s: %s" % (message["reason"], message["message"])
    return json.dumps(message)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=default_socket(), help="daemon socket (default: %(default)s)")
    parser.add_argument("--topics", default="transition,lifecycle,config",
                        help="comma-separated topics to subscribe to, or 'all' (default: %(default)s)")
    parser.add_argument("--tick-hz", type=float, default=None,
                        help="run-out frames per second; 0 for none (interpolate the animation spec yourself)")
    parser.add_argument("--request", choices=["ping", "status", "devices", "push", "pop", "pop-to-root", "present",
                                              "dismiss", "select-tab", "show"],
                        help="send one request after subscribing and print its answer")
    parser.add_argument("--container")
    parser.add_argument("--scene")
    parser.add_argument("--index", type=int)
    parser.add_argument("--style", choices=["full-screen", "custom"])
    parser.add_argument("--child")
    parser.add_argument("--count", type=int, default=0,
                        help="exit after this many transitions have ended, completed or cancelled "
                             "(0: run until the server says goodbye)")
    parser.add_argument("--once", action="store_true", help="exit after the hello and the request's answer")
    parser.add_argument("--json", action="store_true", help="print raw JSON lines instead of readable ones")
    parser.add_argument("--timeout", type=float, default=30, help="seconds to wait for any one read")
    args = parser.parse_args()

    def show(message):
        print(json.dumps(message, separators=(",", ":")) if args.json else describe(message), flush=True)

    try:
        conn = Connection(args.socket, args.timeout)
    except OSError as error:
        print("cannot connect to %s: %s" % (args.socket, error), file=sys.stderr)
        return 2

    hello = conn.read()
    if hello is None or hello.get("type") != "hello":
        print("expected a hello, got %r" % (hello,), file=sys.stderr)
        return 1
    if args.json:
        show(hello)
    else:
        print("hello protocol=%d server=%s devices=%d containers=%s control=%s" % (
            hello["protocol"], hello["server"], len(hello["devices"]),
            ",".join(c["name"] for c in hello["state"]["containers"]), hello["access"]["control"]), flush=True)

    ended = 0

    def on_message(message):
        nonlocal ended
        show(message)
        if message.get("type") == "transition" and message["phase"] in ("completed", "cancelled"):
            ended += 1

    topics = TOPICS if args.topics == "all" else [t for t in args.topics.split(",") if t]
    subscribe = {"topics": topics}
    if args.tick_hz is not None:
        subscribe["tick_hz"] = args.tick_hz
    answer = conn.await_answer(conn.send("subscribe", **subscribe), on_message)
    show(answer)
    if answer["type"] == "error":
        return 1

    if args.request:
        fields = {"container": args.container, "scene": args.scene, "index": args.index, "style": args.style,
                  "child": args.child}
        answer = conn.await_answer(conn.send(args.request, **fields), on_message)
        show(answer)
        if args.once:
            return 0 if answer["type"] == "reply" else 1
    elif args.once:
        return 0

    while args.count == 0 or ended < args.count:
        message = conn.read()
        if message is None:
            print("connection closed", file=sys.stderr)
            return 0 if args.count == 0 else 1
        on_message(message)
        if message.get("type") == "goodbye":
            return 0 if args.count == 0 else 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
