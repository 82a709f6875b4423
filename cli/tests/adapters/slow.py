"""A deliberately slow semfuzz external-backend adapter (protocol 1) for the wide-before-deep
test of `semfuzz serve --local-worker`: it claims every variant, answers +0 to every case
(a wrong answer for most, so its units have findings), sleeps FIRST seconds before answering
its first batch and EACH seconds before every later one, and appends each batch's variant to
LOG (one line per batch: the variant and its operand count, since a unit runs every variant
a text spells), so the test sees the order in which they were run.

Usage: slow.py LOG FIRST EACH
"""

import sys
import time


def send(*lines):
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


def main():
    log, first, each = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    sys.stdin.readline()
    send("semfuzz-external 1", "name slow", "version slow 1", "device a sleeping Python process")
    send("supports *", "ready")
    batches = 0
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] != "batch":
            continue
        variant, rows = words[1], int(words[2])
        operands = [len(sys.stdin.readline().split()) for _ in range(rows)]
        time.sleep(first if batches == 0 else each)
        batches += 1
        with open(log, "a") as f:
            f.write(f"{variant} {operands[0] if operands else 0}\n")
        send(*(["0x0"] * rows), "done")


if __name__ == "__main__":
    main()
