#!/usr/bin/python3
"""bench/timeline/timeline.py on a synthetic ping-pong whose parts are known.

Two processes, one tick = 1 us (HZ 1000000). Process 0 rings its doorbell (a 32-byte
write, lasting 20 us) at t; process 1, after 12 empty polls from t + 5 us, sees the
message at t + 11 (write -> peer sees it: 11 us), rings its own doorbell at t + 14
(seen -> own write: 3 us), and process 0 sees the reply at t + 25 and rings again at
t + 28. Other writes (another size) must be ignored.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "..", "bench", "timeline", "timeline.py")


def write_events(path, events):
    with open(path, "w") as f:
        f.write("HZ 1000000\n")
        for kind, tsc in sorted(events, key=lambda e: e[1]):
            f.write(f"{kind} {tsc}\n")


def main():
    p0, p1 = [], []
    for i in range(200):
        t = 1000 + 28 * i
        p0 += [("W32", t), ("X", t + 20)]
        p1 += [("E12", t + 5), ("D", t + 11), ("W32", t + 14), ("X", t + 34)]
        p0 += [("D", t + 25)]
        if i % 50 == 0:
            p0 += [("W64", t + 21), ("X", t + 22)]  # not a doorbell
    with tempfile.TemporaryDirectory() as d:
        write_events(os.path.join(d, "pair.100.txt"), p0)
        write_events(os.path.join(d, "pair.101.txt"), p1)
        out = subprocess.run([sys.executable, SCRIPT, d, "pair"], capture_output=True, text=True)
        print(out.stdout, out.stderr)
        assert out.returncode == 0, out.returncode
        rows = {line[:34].strip(): float(line[34:].split()[0]) for line in out.stdout.splitlines()[1:]}
        assert rows["write -> peer sees it"] == 11.0, rows
        assert rows["seen -> own write"] == 3.0, rows
        assert rows["one-way"] == 14.0, rows
        assert rows["write() call"] == 20.0, rows
        assert rows["empty poll [ns]"] == 500.0, rows  # 12 polls over 6 us
        # A directory with one process only is refused with a message.
        os.remove(os.path.join(d, "pair.101.txt"))
        out = subprocess.run([sys.executable, SCRIPT, d, "pair"], capture_output=True, text=True)
        assert out.returncode == 1 and "expected the files of 2 processes" in out.stderr, out
    print("timeline analysis: OK")


if __name__ == "__main__":
    main()
