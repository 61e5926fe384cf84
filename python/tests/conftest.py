# SPDX-License-Identifier: GPL-3.0-or-later
# The pytest suite of the qctl Python package, run by CTest (python/pytest)
# with PYTHONPATH at build/python and QCTL at the qctl command built beside.
import os

import pytest


@pytest.fixture(scope="session")
def qctl_bin():
    path = os.environ.get("QCTL")
    if not path or not os.access(path, os.X_OK):
        pytest.skip("QCTL (the qctl command) not given")
    return path
