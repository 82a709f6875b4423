"""A semfuzz external-backend adapter (protocol 1) that computes add.rn.f32 correctly and,
when a batch holds the trigger input 0xffffdead as the first operand of a row, or is the K-th
batch this process has seen (argv[2], optional), misbehaves as its mode (argv[1]) says: the
tests drive every error path of the protocol with it.

Modes: correct, die (exits mid-batch), hang (stops answering), garbage (a result that is not
hex), wide (a result wider than 32 bits), short (one result too few), extra (one too many),
error (an `error` line), and for the handshake: oldversion (protocol version 0), silent
(exits before greeting), nosupports (no `supports` line).
"""

import math
import struct
import sys
import time

TRIGGER = 0xFFFFDEAD


def f32(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def add_rn_f32(a, b):
    # The double sum of two floats rounds to the float sum exactly (53 >= 2*24 + 2).
    x = f32(a) + f32(b)
    if math.isnan(x):
        return 0x7FFFFFFF
    try:
        return struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return 0x7F800000 if x > 0 else 0xFF800000


def send(*lines):
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


def main():
    mode = sys.argv[1]
    bad_batch = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    sys.stdin.readline()
    if mode == "silent":
        print("mock: leaving before the greeting", file=sys.stderr)
        return 2
    send("semfuzz-external 0" if mode == "oldversion" else "semfuzz-external 1")
    send("name mock", "version 1.0 (" + mode + ")", "device Python struct")
    if mode != "nosupports":
        send("supports add.rn.f32", "supports add.r[mz].f32")
    send("batch-size 64", "ready")
    for batch, line in enumerate(sys.stdin, start=1):
        words = line.split()
        if words[0] == "quit":
            return 0
        rows = [[int(x, 16) for x in sys.stdin.readline().split()] for _ in range(int(words[2]))]
        results = [f"{add_rn_f32(a, b):#010x}" for a, b in rows]
        if batch == bad_batch or any(row[0] == TRIGGER for row in rows):
            half = results[: len(results) // 2]
            if mode == "die":
                send(*half)
                print("mock: dying on purpose", file=sys.stderr)
                sys.stderr.flush()
                return 3
            if mode == "hang":
                send(*half)
                time.sleep(3600)
            if mode == "garbage":
                results[1] = "0xfeedfacez"
            if mode == "wide":
                results[1] = "0x1" + results[1][2:]
            if mode == "short":
                results.pop()
            if mode == "extra":
                results.append(results[0])
            if mode == "error":
                send(*half, "error mock: a register file went missing")
                continue
        send(*results, "done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
