#!/usr/bin/python3
"""Splits a ping-pong's one-way latency into its kernel and user-space parts.

Reads the event files bench/timeline/timeline_preload.c wrote for the two processes
of one ping-pong (DIR/TAG.<pid>.txt) and prints, as medians over the messages of
the middle 80 % of the run:

  write -> peer sees it   from the sender's doorbell write() to the receiver's
                          first CQ poll that returns the message: the device's
                          send and receive path (on rxe/siw, in the kernel, inside
                          that write()) plus the receiver's polling;
  seen -> own write       from seeing the message to the write() that sends the
                          reply: user space (for MPI, the end of MPI_Recv and
                          MPI_Send up to the doorbell);
  one-way                 their sum;
  write() call            how long the doorbell write() takes (it also carries the
                          acknowledgement and the sender's send completion);
  empty poll [ns]         one round of the receiver's polling loop.

usage: timeline.py DIR TAG [TAG...]
"""
import collections
import glob
import statistics
import sys


def load(path):
    """(ticks per second, [(tsc, kind, value)])."""
    hz, events = None, []
    with open(path) as f:
        for line in f:
            kind, tsc = line.split()
            if kind == "HZ":
                hz = float(tsc)
            else:
                events.append((int(tsc), kind[0], int(kind[1:] or 0)))
    return hz, events


def analyse(files):
    loaded = [load(p) for p in files]
    hz = statistics.median(h for h, _ in loaded if h)
    us = lambda ticks: ticks / hz * 1e6
    sizes = collections.Counter(v for _, evs in loaded for _, k, v in evs if k == "W")
    if not sizes:
        return None
    doorbell = sizes.most_common(1)[0][0]
    timeline = []  # (tsc, process, what, extra)
    writes = []
    rounds = []
    for proc, (_, evs) in enumerate(loaded):
        pending_write = None
        for i, (tsc, kind, value) in enumerate(evs):
            if kind == "W":
                # Its "X" (the return) is the next event of this process.
                pending_write = tsc if value == doorbell else None
                if value == doorbell:
                    timeline.append((tsc, proc, "W"))
            elif kind == "X" and pending_write is not None:
                writes.append(tsc - pending_write)
                pending_write = None
            elif kind == "D":
                timeline.append((tsc, proc, "D"))
            elif kind == "E" and i + 1 < len(evs) and evs[i + 1][1] == "D" and value >= 10:
                rounds.append((evs[i + 1][0] - tsc) / value)
    timeline.sort()
    cut = len(timeline) // 10
    timeline = timeline[cut:len(timeline) - cut]
    last_write, last_seen = {}, {}
    delivery, user = [], []
    for tsc, proc, what in timeline:
        if what == "W":
            if proc in last_seen:
                user.append(tsc - last_seen.pop(proc))
            last_write[proc] = tsc
        else:
            peer = 1 - proc
            if peer in last_write:
                delivery.append(tsc - last_write.pop(peer))
            last_seen[proc] = tsc
    if len(delivery) < 10 or len(user) < 10:
        return None
    d, u = statistics.median(delivery), statistics.median(user)
    return {
        "messages": min(len(delivery), len(user)),
        "write -> peer sees it": us(d),
        "seen -> own write": us(u),
        "one-way": us(d + u),
        "write() call": us(statistics.median(writes)) if writes else float("nan"),
        "empty poll [ns]": us(statistics.median(rounds)) * 1e3 if rounds else float("nan"),
    }


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    directory, tags = argv[1], argv[2:]
    results = {}
    for tag in tags:
        files = sorted(glob.glob(f"{directory}/{tag}.*.txt"))
        if len(files) != 2:
            print(f"timeline: {tag}: expected the files of 2 processes in {directory}, found {len(files)}",
                  file=sys.stderr)
            return 1
        result = analyse(files)
        if result is None:
            print(f"timeline: {tag}: no doorbell writes or received messages to pair", file=sys.stderr)
            return 1
        results[tag] = result
    rows = [k for k in next(iter(results.values())) if k != "messages"]
    print(f"{'median per one-way message [us]':34s}" + "".join(f"{t:>12s}" for t in tags))
    for row in rows:
        print(f"  {row:32s}" + "".join(f"{results[t][row]:12.2f}" for t in tags))
    print(f"  {'messages paired':32s}" + "".join(f"{results[t]['messages']:12d}" for t in tags))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
