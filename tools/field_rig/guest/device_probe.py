"""Open device nodes from inside a unit's cgroup, as a given user with that user's groups.

    python3 device_probe.py CGROUP_PATH USER /dev/a /dev/b ...

Joins the cgroup (so its device filter from DevicePolicy/DeviceAllow applies), drops to USER with the
supplementary groups /etc/group gives it, tries to open each node read-write (read-only for block
devices), and prints {node: "ok" | errno name} as JSON. Runs as root in the guest.
"""

from __future__ import annotations

import errno
import json
import os
import pwd
import stat
import sys


def main() -> None:
    cgroup, user, nodes = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(f"/sys/fs/cgroup{cgroup}/cgroup.procs", "w") as fh:
        fh.write(str(os.getpid()))
    if user != "root":
        pw = pwd.getpwnam(user)
        os.initgroups(user, pw.pw_gid)
        os.setgid(pw.pw_gid)
        os.setuid(pw.pw_uid)
    out = {}
    for node in nodes:
        flags = os.O_RDONLY if stat.S_ISBLK(os.stat(node).st_mode) else os.O_RDWR
        try:
            fd = os.open(node, flags | os.O_NONBLOCK | os.O_NOCTTY)
            os.close(fd)
            out[node] = "ok"
        except OSError as exc:
            out[node] = errno.errorcode.get(exc.errno or 0, str(exc.errno))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
