#!/usr/bin/env python3
"""Writes a copy of an ELF program whose .eh_frame_hdr version byte is changed (bad
input for twinfab sim's program arena, which reads only version 1): the program still
runs when loaded by ld.so, which does not read that header itself.

Usage: patch_eh_frame_hdr.py IN OUT"""
import os
import shutil
import struct
import sys

PT_GNU_EH_FRAME = 0x6474E550

src, dst = sys.argv[1], sys.argv[2]
shutil.copyfile(src, dst)
os.chmod(dst, 0o755)
with open(dst, "r+b") as f:
    data = f.read()
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    for i in range(phnum):
        p_type, _flags, p_offset = struct.unpack_from("<IIQ", data, phoff + i * phentsize)
        if p_type == PT_GNU_EH_FRAME:
            f.seek(p_offset)
            f.write(b"\x02")
            break
    else:
        sys.exit(f"{src}: no PT_GNU_EH_FRAME")
