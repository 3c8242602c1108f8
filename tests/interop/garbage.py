#!/usr/bin/env python3
"""Random and truncated frames against a broker's port (seeded, repeatable).

   garbage.py HOST:PORT [COUNT] [SEED]

Each connection sends one of: a frame of random bytes; a request header of a
real API key and version followed by random bytes; a frame whose size claims
more than is sent, or more than socket.request.max.bytes; a header cut short.
The broker may answer or close the connection; it must keep running (the
caller checks that a good client still works afterwards)."""
import random
import socket
import struct
import sys

host, port = sys.argv[1].rsplit(":", 1)
count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
keys = [0, 1, 2, 3, 10, 18, 19, 22, 32]


def frame(body):
    return struct.pack(">i", len(body)) + body


def header(key, version):
    client = b"garbage"
    h = struct.pack(">hhih", key, version, rng.randrange(1 << 31), len(client)) + client
    # flexible headers end with tagged fields (an empty section)
    return h + (b"\x00" if rng.random() < 0.5 else b"")


for i in range(count):
    kind = rng.randrange(5)
    body = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 300)))
    if kind == 0:
        data = frame(body)
    elif kind == 1:
        data = frame(header(rng.choice(keys), rng.randrange(-1, 20)) + body)
    elif kind == 2:
        data = struct.pack(">i", len(body) + rng.randrange(1, 1000)) + body
    elif kind == 3:
        data = struct.pack(">i", rng.choice([104857601, 0x7FFFFFFF, -1, -123456]))
    else:
        data = frame(header(rng.choice(keys), rng.randrange(0, 12))[: rng.randrange(0, 10)])
    with socket.create_connection((host, int(port)), timeout=5) as s:
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            while s.recv(65536):
                pass
        except OSError:
            pass
print(f"sent {count} garbage frames")
