"""Runs a command that gets SIGTERM when the process that started it dies (Linux).

Usage: ``python _pdeathsig.py PARENT_PID COMMAND [ARG...]``, made by
:func:`griot.launcher.with_parent_death`. The parent-death signal is set here, in a new
single-threaded interpreter, and kept across ``execvp``: setting it in a ``preexec_fn``
instead runs Python in the forked child of a process that has other threads (gRPC's pollers,
Celery's), where a lock another thread held at the fork can hang the child before it ever
execs. Run as a file, not as ``-m griot._pdeathsig``: importing the package would load the
native core for nothing.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit("usage: _pdeathsig.py PARENT_PID COMMAND [ARG...]")
    parent, argv = int(sys.argv[1]), sys.argv[2:]
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # no prctl (not Linux): the command runs without the signal
    if os.getppid() != parent:
        # The parent died before the signal was set: nobody is left to want the command.
        os._exit(128 + signal.SIGTERM)
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main()
