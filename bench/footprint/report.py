#!/usr/bin/python3
"""Per-rank memory footprint of one iteration, from two traced runs (bench/footprint.sh).

Each run gives the 64-byte lines touched in one iteration of every rank (trace_lines.cpp)
and the process's mappings (dump_maps.c). Lines shared by all ranks (the simulator's
globals, SimGrid's engine, code constants) are the same in both runs, so the difference
between a run of 2R ranks and one of R ranks, divided by R, is what one more rank adds:
its footprint per iteration. It is split by where the lines are (the rank's stack, the
heap, libraries' data) and by the function that touched each line first.

usage: report.py STACK_KIB RANKS LINES_R MAPS_R LINES_2R MAPS_2R
"""
import collections
import re
import subprocess
import sys


def read_maps(path):
    maps = []
    with open(path) as f:
        for text in f:
            fields = text.split()
            start, end = (int(x, 16) for x in fields[0].split("-"))
            maps.append((start, end, fields[1], int(fields[2], 16), fields[5] if len(fields) > 5 else ""))
    return maps


def read_lines(path):
    header, lines = None, []
    with open(path) as f:
        for text in f:
            if text.startswith("#"):
                header = text
                continue
            address, instruction, accesses = text.split()
            lines.append((int(address, 16), int(instruction, 16), int(accesses)))
    match = re.search(r"instructions (\d+)", header or "")
    if match is None:
        sys.exit(f"report.py: {path} has no '# marker hits ... instructions ...' header (not from footprint_trace_lines?)")
    instructions = int(match.group(1))
    return instructions, lines


def find_map(maps, address):
    for m in maps:
        if m[0] <= address < m[1]:
            return m
    return None


def region(maps, address, stack_bytes):
    """Where a data line is: a rank's stack, the heap, the main stack or a library's data."""
    m = find_map(maps, address)
    if m is None:  # mmap'd and unmapped before exit: the packet buffers (mpi/channels/buffer_storage.hpp)
        return "unmapped by exit (mmap'd, e.g. packet buffers)"
    start, end, _perm, _offset, name = m
    if name == "[stack]" or start >= 0x1000000000:  # valgrind's client stack: maestro and main()
        return "main stack (maestro)"
    if name and not name.startswith("["):
        return "data of " + name.rsplit("/", 1)[-1]
    # Valgrind's allocator gives each rank's stack (SimGrid: stack size + a guard page)
    # a mapping of its own, which the kernel may merge with a neighbouring one; every
    # other anonymous mapping is the heap.
    size = end - start
    if stack_bytes <= size <= stack_bytes + 64 * 1024 or size % (stack_bytes + 4096) == 0:
        return "rank stacks"
    return "heap"


def symbolize(maps, instructions):
    """Function names of instruction addresses, via addr2line on each mapped file."""
    by_file = collections.defaultdict(list)
    for i in set(instructions):
        m = find_map(maps, i)
        if m is not None and m[4].startswith("/"):
            by_file[m[4]].append((i, i - m[0] + m[3]))
    names = {}
    for path, items in by_file.items():
        items.sort()
        out = subprocess.run(["addr2line", "-f", "-C", "-e", path] + [hex(o) for _, o in items],
                             capture_output=True, text=True, check=False).stdout.split("\n")
        for k, (i, _) in enumerate(items):
            name = out[2 * k] if 2 * k < len(out) else "??"
            name = re.sub(r"\(.*", "", name)
            names[i] = f"{name} [{path.rsplit('/', 1)[-1]}]"
    return names


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    stack_bytes = int(sys.argv[1]) * 1024
    ranks = int(sys.argv[2])
    runs = []
    for lines_path, maps_path in ((sys.argv[3], sys.argv[4]), (sys.argv[5], sys.argv[6])):
        maps = read_maps(maps_path)
        instructions, lines = read_lines(lines_path)
        names = symbolize(maps, [i for _, i, _ in lines])
        by_region = collections.Counter(region(maps, a, stack_bytes) for a, _, _ in lines)
        by_function = collections.Counter(names.get(i, hex(i)) for _, i, _ in lines)
        runs.append((instructions, len(lines), by_region, by_function))
    (_, lines_a, region_a, function_a), (instructions_b, lines_b, region_b, function_b) = runs
    per_rank = (lines_b - lines_a) / ranks
    print(f"instructions per rank and iteration ({2 * ranks} ranks): {instructions_b / (2 * ranks):.0f}")
    print(f"64-byte lines per rank and iteration: {per_rank:.1f} ({per_rank * 64 / 1024:.1f} KiB)"
          f"  [{lines_a} lines at {ranks} ranks, {lines_b} at {2 * ranks}]")
    print("\nby where they are (lines per rank; shared lines cancel out):")
    for name in sorted(set(region_a) | set(region_b), key=lambda n: -(region_b[n] - region_a[n])):
        d = (region_b[name] - region_a[name]) / ranks
        if abs(d) >= 0.05:
            print(f"  {d:7.1f}  {name}")
    print("\nby the function that touched them first (lines per rank, top 30):")
    deltas = {f: (function_b[f] - function_a[f]) / ranks for f in set(function_a) | set(function_b)}
    for f, d in sorted(deltas.items(), key=lambda x: -x[1])[:30]:
        if d > 0:
            print(f"  {d:7.2f}  {f[:150]}")


if __name__ == "__main__":
    main()
