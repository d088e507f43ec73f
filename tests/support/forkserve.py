"""Start reference servers by forking one process that has imported them already, so that a test
that kills servers with SIGKILL and starts others waits milliseconds, not a torch import, for each.

    python -m support.forkserve    (with the revision's package folder as the working directory)

Each line read from standard input holds the arguments of one server (``serve.main``'s command
line, separated by NUL); the forked server writes ``pid N`` and then its banner to standard output.
"""

from __future__ import annotations

import os
import signal
import sys

from together_rl.reference import serve


def main() -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the servers are reaped as they end
    for line in sys.stdin:
        args = [arg for arg in line.rstrip("\n").split("\0") if arg]
        if os.fork() == 0:
            sys.stdin.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            print(f"pid {os.getpid()}", flush=True)
            try:
                code = serve.main(args)
            finally:
                sys.stdout.flush()
            os._exit(code)


if __name__ == "__main__":
    main()
