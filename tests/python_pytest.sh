#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Runs the Python package's pytest suite; 77 (skipped) when pytest or
# numpy is missing from the interpreter.
# usage: python_pytest.sh PYTHON TESTDIR   (PYTHONPATH and QCTL from CTest)
py=$1
dir=$2
if ! "$py" -c "import pytest, numpy, cffi" 2>/dev/null; then
    echo "$py lacks pytest, numpy or cffi (scripts/deps.sh --test installs python3-pytest, python3-numpy, python3-cffi)"
    exit 77
fi
exec "$py" -m pytest -q -p no:cacheprovider "$dir"
