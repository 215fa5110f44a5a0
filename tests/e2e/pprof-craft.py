#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Write small hand-made pprof files (plain protobuf) for the reader's error tests:
#   pprof-craft.py KIND OUT    KIND: ok, bad-string, billion, missing-location, dup-location
import sys

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7f
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)

def field(num, wire, payload):
    key = varint((num << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload

def msg(*fields):
    return b"".join(fields)

def profile(kind):
    strings = ["", "samples", "count", "cpu", "nanoseconds", "/bin/true"]
    unit = 99 if kind == "bad-string" else 2
    count = 2_000_000_000 if kind == "billion" else 3
    loc = 1 << 62 if kind == "missing-location" else 1
    out = msg(field(1, 2, msg(field(1, 0, 1), field(2, 0, unit))),
              field(1, 2, msg(field(1, 0, 3), field(2, 0, 4))))
    out += field(2, 2, msg(field(1, 2, varint(loc)), field(2, 2, varint(count) + varint(count * 1000))))
    out += field(3, 2, msg(field(1, 0, 1), field(2, 0, 0x400000), field(3, 0, 0x500000), field(5, 0, 5)))
    out += field(4, 2, msg(field(1, 0, 1), field(2, 0, 1), field(3, 0, 0x401000)))
    if kind == "dup-location":
        out += field(4, 2, msg(field(1, 0, 1), field(2, 0, 1), field(3, 0, 0x402000)))
    for s in strings:
        out += field(6, 2, s.encode())
    out += field(11, 2, msg(field(1, 0, 3), field(2, 0, 4)))
    out += field(12, 0, 1000)
    return out

with open(sys.argv[2], "wb") as f:
    f.write(profile(sys.argv[1]))
