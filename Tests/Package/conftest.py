"""Fixtures for the release build and its Debian package (`make package`, part of `make test`).

`make package` builds both first and names them: TONEARM_RELEASE_BIN (the statically linked
release binary) and TONEARM_DEB_DIR (where `make deb` put the packages).
"""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
REPO = Path(__file__).resolve().parent.parent.parent


@pytest.fixture(scope="session")
def release_binary() -> Path:
    path = Path(os.environ.get("TONEARM_RELEASE_BIN") or REPO / ".build/release/tonearm")
    assert path.is_file(), f"{path} is missing: `make package` builds it (make build)"
    return path


@pytest.fixture(scope="session")
def deb_dir() -> Path:
    return Path(os.environ.get("TONEARM_DEB_DIR") or REPO / ".build/deb")


@pytest.fixture(scope="session")
def version() -> str:
    import subprocess
    return subprocess.run([str(REPO / "packaging/version.sh")], capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.fixture(scope="session")
def package(deb_dir, version) -> Path:
    """The package `make deb` built from this commit."""
    import subprocess
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True,
                          check=True).stdout.strip()
    path = deb_dir / f"tonearm_{version}_{arch}.deb"
    assert path.is_file(), f"{path} is missing: `make package` builds it (make deb)"
    return path
