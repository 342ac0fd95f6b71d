#!/usr/bin/env python3
"""SimGrid/SMPI platform XML equivalent to a twinfab platform preset's network.

    smpi_platform.py PRESET.toml PLATFORM.xml HOSTFILE

Reads the preset's [topology], [network] and [hca] tables (the units of
docs/platforms.md) and writes the cluster SMPI runs on, wired as twinfab's simulator
wires the preset (backends/sim/sim_fabric.cpp, docs/model.md "Structure"):

- single-switch: a flat cluster whose private links are the cables (bandwidth
  link_bandwidth, latency link_latency, split-duplex as twinfab's) and whose backbone
  is the switch (latency switch_latency, a fat pipe of link_bandwidth: the crossbar
  never shares bandwidth between flows, as twinfab's switch has no limiter). A route
  crosses cable, switch, cable: 2 x link_latency + switch_latency, as in twinfab.
  Each host also gets a limiter link of hca.pcie_bandwidth, twinfab's PCIe bus, on
  every route from or to the host.
- fat-tree: SimGrid's FAT_TREE cluster of the same shape (levels; down; up; count),
  every cable with link_bandwidth and link_latency + switch_latency / 2, exactly what
  twinfab gives its cables. No limiter link: in an XML cluster SimGrid 3.32 gives one
  to every fat-tree node, switches too, which makes its solver quadratic at thousands
  of hosts (twinfab builds its zone in C++ and gives the PCIe limiter to hosts only);
  for the 8-byte messages these platforms are used with, PCIe bandwidth adds < 2 ns.

What SMPI cannot be given: twinfab's HCA model (post, WQE processing and PCIe
latency, ~2.4 us on connectx-ddr), so SMPI's simulated latency is lower than
twinfab's on the same platform; the work each simulator does per message is the
same. Prints one line describing the platform to stdout.
"""
import re
import sys
import tomllib

RATE = {  # unit: (multiplier, bits per unit of data) as backends/sim/platform.cpp
    "bps": (1, 8), "kbps": (1e3, 8), "Kbps": (1e3, 8), "Mbps": (1e6, 8), "Gbps": (1e9, 8), "Tbps": (1e12, 8),
    "bit/s": (1, 8), "kbit/s": (1e3, 8), "Kbit/s": (1e3, 8), "Mbit/s": (1e6, 8), "Gbit/s": (1e9, 8),
    "Tbit/s": (1e12, 8), "b/s": (1, 8), "kb/s": (1e3, 8), "Kb/s": (1e3, 8), "Mb/s": (1e6, 8), "Gb/s": (1e9, 8),
    "Tb/s": (1e12, 8), "B/s": (1, 1), "kB/s": (1e3, 1), "KB/s": (1e3, 1), "MB/s": (1e6, 1), "GB/s": (1e9, 1),
    "TB/s": (1e12, 1), "KiB/s": (2**10, 1), "MiB/s": (2**20, 1), "GiB/s": (2**30, 1), "TiB/s": (2**40, 1),
}
TIME = {"s": 1, "ms": 1e-3, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ns": 1e-9, "ps": 1e-12}


def quantity(value, units, what):
    """Base units (bytes/s or seconds) of a preset value: a plain number or '<n> <unit>'."""
    if isinstance(value, (int, float)):
        return float(value)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*(\S+)\s*", str(value))
    if not m or m.group(2) not in units:
        sys.exit(f"smpi_platform: {what} = {value!r}: not a quantity this script reads")
    unit = units[m.group(2)]
    return float(m.group(1)) * (unit[0] / unit[1] if isinstance(unit, tuple) else unit)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    preset, xml_path, hostfile = sys.argv[1:]
    with open(preset, "rb") as f:
        p = tomllib.load(f)
    topo, net, hca = p.get("topology", {}), p.get("network", {}), p.get("hca", {})
    bw = quantity(net["link_bandwidth"], RATE, "network.link_bandwidth")
    link = quantity(net.get("link_latency", 0), TIME, "network.link_latency")
    switch = quantity(net.get("switch_latency", 0), TIME, "network.switch_latency")
    pcie = quantity(hca["pcie_bandwidth"], RATE, "hca.pcie_bandwidth")
    hosts = int(topo.get("hosts", 2))
    kind = topo.get("kind", "single-switch")
    common = f'id="c" prefix="node-" suffix="" radical="0-{hosts - 1}" speed="1Gf" sharing_policy="SPLITDUPLEX"'
    if kind == "single-switch":
        cluster = (f'<cluster {common} bw="{bw:.6g}Bps" lat="{link:.6g}s" bb_bw="{bw:.6g}Bps" '
                   f'bb_lat="{switch:.6g}s" bb_sharing_policy="FATPIPE" limiter_link="{pcie:.6g}Bps"/>')
        what = (f"flat cluster of {hosts}: cables {bw / 1e9:.3g} GB/s {link * 1e9:.4g} ns, switch "
                f"{switch * 1e9:.4g} ns (fat pipe), PCIe limiter {pcie / 1e9:.3g} GB/s")
    elif kind == "fat-tree":
        ft = topo["fat_tree"]
        params = ";".join([str(ft["levels"])] + [",".join(str(x) for x in ft[k]) for k in ("down", "up", "count")])
        cable = link + switch / 2
        cluster = (f'<cluster {common} topology="FAT_TREE" topo_parameters="{params}" bw="{bw:.6g}Bps" '
                   f'lat="{cable:.6g}s"/>')
        what = (f"fat tree {params} of {hosts}: cables {bw / 1e9:.3g} GB/s {cable * 1e9:.4g} ns "
                f"(link + switch / 2)")
    else:
        sys.exit(f"smpi_platform: topology.kind = {kind!r}: not a kind this script knows")
    with open(xml_path, "w") as f:
        f.write("<?xml version='1.0'?>\n"
                '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
                '<platform version="4.1">\n'
                f"  {cluster}\n"
                "</platform>\n")
    with open(hostfile, "w") as f:
        f.writelines(f"node-{i}\n" for i in range(hosts))
    print(f"SMPI platform equivalent to {p.get('name', preset)}: {what}")


if __name__ == "__main__":
    main()
