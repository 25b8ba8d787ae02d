#!/usr/bin/env bash
# Creates .venv-conformance/ (repo root, git-ignored) with skypilot==0.14.1
# and everything needed to run its optimizer offline. Versions are pinned in
# requirements.lock (a `pip freeze` of a working venv); the only extra beyond
# skypilot's own dependencies is `kubernetes` (sky.adaptors.kubernetes imports
# it lazily when Kubernetes is an enabled cloud).
# Idempotent: does nothing if the venv already imports sky 0.14.1.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/.venv-conformance"
py="${PYTHON:-python3}"
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c \
    'import importlib.metadata as m,sys; sys.exit(m.version("skypilot")!="0.14.1")' 2>/dev/null; then
  exit 0
fi
"$py" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.lock"
"$venv/bin/python" -c 'import sky, kubernetes, pandas; print("conformance venv ready: skypilot", sky.__version__)'
