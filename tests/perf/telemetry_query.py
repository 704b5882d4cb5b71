#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Ask a running DPDK process's telemetry socket one command, print the JSON.

usage: telemetry_query.py FILE_PREFIX COMMAND  (e.g. uetq /uet/stats)
The socket is <runtime dir>/<file prefix>/dpdk_telemetry.v2 (DPDK's
telemetry v2 protocol: the server greets with a JSON object, then answers
each command with one).
"""
import json
import os
import socket
import sys


def runtime_dir(prefix):
    """EAL's runtime directory for --file-prefix PREFIX (DPDK's rule)."""
    base = "/var/run/dpdk" if os.getuid() == 0 else os.path.join(
        os.environ.get("XDG_RUNTIME_DIR", "/tmp"), "dpdk")
    return os.path.join(base, prefix)


def query(prefix, cmd):
    path = os.path.join(runtime_dir(prefix), "dpdk_telemetry.v2")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(path)
    json.loads(s.recv(16384).decode())  # greeting
    s.send(cmd.encode())
    reply = json.loads(s.recv(65536).decode())
    s.close()
    return reply


if __name__ == "__main__":
    print(json.dumps(query(sys.argv[1], sys.argv[2]), indent=1))
