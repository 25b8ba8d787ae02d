#!/usr/bin/env bash
# Creates the SkyPilot engine's venv (default: .venv-skypilot/ at the repo
# root, git-ignored; or the folder given as $1) from requirements.lock:
# skypilot[aws,kubernetes]==0.14.1 (boto3 and the AWS CLI, so SkyPilot asks
# STS and EC2 as a user's install does; the Kubernetes client) and py-spy
# (its sampled profiles). Needs PyPI once; about 2-4 minutes on 2 cores.
# Idempotent: does nothing if the venv already imports sky 0.14.1, boto3 and
# kubernetes and has py-spy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="${1:-${HARNESS_SKYPILOT_VENV:-$repo/.venv-skypilot}}"
py="${PYTHON:-python3}"
ready() {
  [ -x "$venv/bin/python" ] && [ -x "$venv/bin/py-spy" ] && "$venv/bin/python" -c \
    'import importlib.metadata as m,sys; import boto3, kubernetes; sys.exit(m.version("skypilot")!="0.14.1")' 2>/dev/null
}
if ready; then
  echo "SkyPilot engine venv ready: $venv"
  exit 0
fi
echo "building the SkyPilot engine venv in $venv (skypilot 0.14.1 + AWS and Kubernetes extras + py-spy, from PyPI)..."
"$py" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.lock"
ready || { echo "the venv at $venv does not import sky 0.14.1, boto3 and kubernetes with py-spy" >&2; exit 1; }
echo "SkyPilot engine venv ready: $venv"
