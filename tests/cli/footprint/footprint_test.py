#!/usr/bin/python3
"""bench/footprint.sh's two parts on synthetic input with known answers: the reader of
valgrind's memory trace (footprint_trace_lines) and the per-rank report (report.py).
The traced runs themselves are a diagnostic, not a test.

usage: footprint_test.py TRACE_LINES_BINARY REPORT_PY
"""
import os
import subprocess
import sys
import tempfile

trace_lines, report = sys.argv[1], sys.argv[2]
failures = []


def check(what, condition):
    if not condition:
        failures.append(what)


# --- the trace reader: a window between marker hits 1 and 2 (of marker 0x1000)
trace = """==123== Lackey, an example Valgrind tool
I  00001000,3
 L 00002000,8
I  00001000,3
I  00003000,2
 S 00002038,16
 M 00004000,4
 L 00004010,4
I  00001000,3
 L 00005000,8
"""
run = subprocess.run([trace_lines, "1000", "1", "2"], input=trace, capture_output=True, text=True)
check("reader exits 0", run.returncode == 0)
out = run.stdout.splitlines()
check(f"header {out[:1]}", out[:1] == ["# marker hits 3 instructions 2 lines 3"])
# 0x2038 + 16 bytes crosses into the next line; 0x4000 is touched twice; the load
# before the window (0x2000 at hit 1) and after it (0x5000) are not counted once more.
check(f"lines {out[1:]}", out[1:] == ["2000 3000 1", "2040 3000 1", "4000 3000 2"])

run = subprocess.run([trace_lines, "1000", "1", "5"], input=trace, capture_output=True, text=True)
check("too few marker hits fail", run.returncode == 1 and "hit 3 times, the window needs 6" in run.stderr)
run = subprocess.run([trace_lines, "zz", "1", "2"], input="", capture_output=True, text=True)
check("bad arguments are refused", run.returncode == 2 and "bad arguments" in run.stderr)
run = subprocess.run([trace_lines, "1000", "one", "2"], input="", capture_output=True, text=True)
check("a hit count that is not a number is refused", run.returncode == 2 and "bad arguments" in run.stderr)

# --- the report: 2 ranks against 4, a heap, a 1 MiB stack (+ guard page) per rank
with tempfile.TemporaryDirectory() as work:
    def write(name, text):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    maps = write("maps", "\n".join([
        "04000000-05000000 rw-p 00000000 00:00 0 ",                       # heap
        "05000000-05101000 rw-p 00000000 00:00 0 ",                       # rank stack
        "05200000-05402000 rw-p 00000000 00:00 0 ",                       # two merged
        "1ffeff0000-1fff001000 rw-p 00000000 00:00 0                          [stack]",
    ]) + "\n")
    # 2 ranks: 10 shared heap lines, 3 heap + 2 stack lines per rank
    shared = [f"{0x04000000 + 64 * i:x} 9000 1" for i in range(10)]
    def rank_lines(r):
        heap = [f"{0x04080000 + 4096 * r + 64 * i:x} 8000 1" for i in range(3)]
        stack_top = [0x05000000, 0x05200000, 0x05301000, 0x05080000][r]
        stack = [f"{stack_top + 64 * i:x} 7000 1" for i in range(2)]
        return heap + stack
    lines2 = write("2.lines", "# marker hits 9 instructions 2000 lines 20\n" +
                   "\n".join(shared + rank_lines(0) + rank_lines(1)) + "\n")
    lines4 = write("4.lines", "# marker hits 17 instructions 4000 lines 30\n" +
                   "\n".join(shared + [l for r in range(4) for l in rank_lines(r)]) + "\n")
    run = subprocess.run(["/usr/bin/python3", report, "1024", "2", lines2, maps, lines4, maps],
                         capture_output=True, text=True)
    check(f"report exits 0 ({run.stderr.strip()})", run.returncode == 0)
    text = run.stdout
    check("instructions per rank", "instructions per rank and iteration (4 ranks): 1000" in text)
    check("lines per rank", "64-byte lines per rank and iteration: 5.0 (0.3 KiB)" in text)
    check("heap share", "    3.0  heap" in text)
    check("stack share", "    2.0  rank stacks" in text)
    check("by function", "    3.00  0x8000" in text and "    2.00  0x7000" in text and "0x9000" not in text)

    no_header = write("bad.lines", "4000000 9000 1\n")
    run = subprocess.run(["/usr/bin/python3", report, "1024", "2", no_header, maps, lines4, maps],
                         capture_output=True, text=True)
    check("a lines file without its header is refused", run.returncode != 0 and "no '# marker hits" in run.stderr)

if failures:
    print("FAILED:\n  " + "\n  ".join(failures))
    sys.exit(1)
print("footprint: trace reader and report OK")
