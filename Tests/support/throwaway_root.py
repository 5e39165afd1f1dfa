"""A throwaway copy of this machine's root file system, for installing a Debian package
without changing the machine.

The root is an overlay: this machine's `/` read-only below, an empty folder above that takes
every write. Each `run` mounts it in a private mount namespace (`unshare -m`), adds `/proc`,
`/dev` and `/sys` and an empty `/run` and `/tmp`, and runs a shell command chrooted into it.
The writes persist in the upper folder from one `run` to the next, so a test can install, upgrade
and purge a package in steps and read what each step left behind (`changed_files`) while the
machine's own files, users and dpkg database stay as they were.

No systemd runs in it (`/run/systemd/system` is missing), so maintainer scripts behave as on
a machine without systemd as PID 1: they record the units' enablement but start nothing.
"""
import os
import subprocess
from pathlib import Path


class ThrowawayRoot:
    def __init__(self, base: Path, hidden: tuple[Path, ...] = ()):
        """`hidden`: folders of this machine that the root shows empty (an empty tmpfs over
        each), such as the Swift toolchain's, to stand for a machine without them."""
        self.hidden = hidden
        self.upper = base / "upper"
        self.work = base / "work"
        self.mountpoint = base / "root"
        for folder in (self.upper, self.work, self.mountpoint):
            folder.mkdir(parents=True, exist_ok=True)

    def _script(self) -> str:
        root = self.mountpoint
        return (
            "set -e\n"
            f"mount -t overlay overlay -o lowerdir=/,upperdir={self.upper},workdir={self.work} {root}\n"
            f"mount --rbind /proc {root}/proc\n"
            f"mount --rbind /dev {root}/dev\n"
            f"mount --rbind /sys {root}/sys\n"
            f"mount -t tmpfs tmpfs {root}/run\n"
            f"mount -t tmpfs tmpfs {root}/tmp\n"
            + "".join(f"mount -t tmpfs tmpfs {root}{folder}\n" for folder in self.hidden)
            + 'command=$1\nshift\n'
            f'exec chroot {root} /bin/sh -c "$command" "$@"\n'
        )

    def command(self, shell_command: str, *arguments: str) -> list[str]:
        """The argument list that runs `shell_command` in the root (for Popen); `arguments` are
        its `$0`, `$1`…"""
        return ["unshare", "-m", "--propagation", "private", "sh", "-c", self._script(), "throwaway-root",
                shell_command, *arguments]

    def run(self, shell_command: str, check: bool = True, timeout: float = 180) -> subprocess.CompletedProcess:
        result = subprocess.run(self.command(shell_command), capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"{shell_command!r} exited with {result.returncode}:\n"
                                 f"{result.stdout}\n{result.stderr}")
        return result

    def path(self, inside: str) -> Path:
        """Where a file written in the root lies in the upper folder (it exists only if the root
        wrote or removed it: a removed file is a character device, an overlay whiteout). The
        folders on the way are followed as this machine's links lead (/lib is /usr/lib)."""
        folder, name = os.path.split(inside)
        return self.upper / os.path.realpath(folder).lstrip("/") / name

    def read(self, inside: str) -> str:
        """A file as the root sees it: the written copy, or this machine's."""
        written = self.path(inside)
        return (written if os.path.lexists(written) else Path(inside)).read_text()

    def exists(self, inside: str) -> bool:
        """Whether the root has the file (written, or this machine's and not removed)."""
        written = self.path(inside)
        if os.path.lexists(written):
            return not _is_whiteout(written)
        return os.path.lexists(inside)

    def changed_files(self) -> dict[str, str]:
        """Every file, symbolic link and folder the root has that this machine has not, or has
        with other contents: {path: "added" | "changed" | "removed"}. Folders count only when
        the machine lacks them."""
        changes = {}
        for folder, folders, files in os.walk(self.upper):
            for name in folders + files:
                written = Path(folder) / name
                inside = "/" + str(written.relative_to(self.upper))
                if _is_whiteout(written):
                    changes[inside] = "removed"
                elif not os.path.lexists(inside):
                    changes[inside] = "added"
                elif written.is_symlink() or Path(inside).is_symlink():
                    if not (written.is_symlink() and Path(inside).is_symlink()
                            and os.readlink(written) == os.readlink(inside)):
                        changes[inside] = "changed"
                elif written.is_file() and written.read_bytes() != Path(inside).read_bytes():
                    changes[inside] = "changed"
        return changes


def _is_whiteout(path: Path) -> bool:
    status = os.lstat(path)
    return (status.st_mode & 0o170000) == 0o020000 and status.st_rdev == 0
