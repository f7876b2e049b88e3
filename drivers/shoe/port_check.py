"""Which shoe ports a production table takes: the shoe's own serial device, nothing else.

pyserial opens many things as a "port": ``socket://`` and ``rfc2217://`` (a byte stream
from anywhere on the network), ``loop://`` (our own bytes back), and pseudo-terminals
(another local process playing the shoe, as the simulator does). They are how the bench
carries the shoe's byte stream; on the casino floor each would let something other than
the shoe deal cards. So production takes a character device that is not a
pseudo-terminal, and refuses the rest with the reason.
"""

from __future__ import annotations

import os
import stat

#: Unix98 pseudo-terminal slaves (/dev/pts/N) have majors 136-143 on Linux; 2 and 3 are
#: the legacy BSD pty masters and slaves; 5,2 is /dev/ptmx
PTY_MAJORS = frozenset((2, 3, *range(136, 144)))


def production_refusal(url: str) -> str | None:
    """Why ``url`` is not a shoe port for production, or None when it is acceptable.

    A path that does not exist (the shoe unplugged) is not refused here: the driver keeps
    reopening it and the table tilts on the link being down."""
    if "://" in url:
        scheme = url.split("://", 1)[0]
        return (f"shoe port {url}: a {scheme}:// connection is a bench connection; "
                "production mode takes the shoe's serial device (e.g. /dev/etg-shoe)")
    real = os.path.realpath(url)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"shoe port {url}: cannot examine it ({exc.strerror})"
    if not stat.S_ISCHR(st.st_mode):
        return f"shoe port {url}: not a character device (the shoe's serial device is one)"
    major, minor = os.major(st.st_rdev), os.minor(st.st_rdev)
    if major in PTY_MAJORS or (major, minor) == (5, 2) or real.startswith("/dev/pts/"):
        return (f"shoe port {url}: a pseudo-terminal ({real}) is a bench connection (another "
                "process playing the shoe); production mode takes the shoe's serial device")
    return None
