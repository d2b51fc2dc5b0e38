"""One writer per run directory: an exclusive flock on DIR/.wizard-sim.lock.

The OS releases the lock when its process dies (kill -9 included), so a stale lock never
blocks anyone. The lock file itself stays (removing a lock file races with its next user).
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from pathlib import Path

from sim.storage.errors import DirectoryInUse, HardLinkInRun, LinkInRun, StorageError, Unwritable
from sim.storage.files import FILE_MODE

LOCK_FILE = ".wizard-sim.lock"


class RunLock:
    """An exclusive, non-blocking flock on DIR/.wizard-sim.lock, held until release() or the
    process's death (the OS drops it then: no stale lock survives its holder)."""

    def __init__(self, directory: Path):
        self.path = directory / LOCK_FILE
        self.fd: int | None = None
        self.created = False  # this process created the lock file

    def acquire(self) -> None:
        # Never through a symbolic link (O_NOFOLLOW; O_EXCL does not follow one either), nor a
        # FIFO or device (O_NONBLOCK, then a regular file checked), nor a hard link: the pid is
        # written into the lock file of this directory, never into a file a link points to.
        flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.path, flags | os.O_CREAT | os.O_EXCL, FILE_MODE)
            created = True
        except FileExistsError:
            created = False
            try:
                fd = os.open(self.path, flags, FILE_MODE)
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENXIO, errno.EMLINK):
                    raise LinkInRun(self.path) from None
                raise Unwritable(self.path.parent, error.strerror or str(error)) from None
        except OSError as error:
            raise Unwritable(self.path.parent, error.strerror or str(error)) from None
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            os.close(fd)
            raise LinkInRun(self.path)
        if status.st_nlink > 1:  # the pid would be written into the file's other name too
            os.close(fd)
            raise HardLinkInRun(self.path, status.st_nlink)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            holder = None
            with contextlib.suppress(OSError, ValueError, IndexError):
                holder = int(os.pread(fd, 32, 0).split()[0])
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise DirectoryInUse(self.path.parent, holder) from None
            raise StorageError(f"cannot lock {self.path}: {error.strerror or error}") from None
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self.fd = fd
        self.created = created

    def release(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)  # closing the last descriptor drops the flock
            self.fd = None
