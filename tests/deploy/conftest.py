"""Fixtures of the deployment tests: podman (skipped on a machine without it, failing under
CI), the locally made base images, and the repository's images built on them."""

from __future__ import annotations

import os

import pytest

from . import podman as pm


@pytest.fixture(scope="session")
def podman_ready() -> None:
    missing = pm.missing_tools()
    if missing:
        message = f"{', '.join(missing)} not installed (scripts/install-system-packages installs them)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must really build and run the images
        pytest.skip(message)


@pytest.fixture(scope="session")
def bases(podman_ready: None) -> dict[str, str]:
    return pm.base_images()


@pytest.fixture(scope="session")
def app_image(bases: dict[str, str]) -> str:
    """The repository's Dockerfile, built on the Debian base made here."""
    return pm.build(pm.REPO, "app", bases["PREFSCORE_BASE_IMAGE"], host_certs=True)


@pytest.fixture(scope="session")
def slim_app_image(bases: dict[str, str]) -> str:
    """The repository's Dockerfile, built on a base laid out like its default, the official
    python:3.11-slim (scripts/build-base-images says how it is made)."""
    base = bases.get("PREFSCORE_PYTHON_SLIM_IMAGE")
    if base is None:
        pytest.skip(
            "this machine's Python is not a relocatable build: no python:3.11-slim layout could be made"
        )
    return pm.build(pm.REPO, "app-slim", base, host_certs=True)
