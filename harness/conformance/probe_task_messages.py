#!/usr/bin/env python3
"""SkyPilot 0.14.1's message for each malformed task snippet vs ours.

Every entry of `testdata/task-messages.yaml` (name -> task YAML text) is
parsed by SkyPilot's `Task.from_yaml_str` — the CLI's task building, with its
task / resources / storage / service schemas and checks — and the exception
is formatted as the CLI shows it; the same text is then run as a file through
our `sky launch --dryrun -y` (AWS and GCP enabled, fixture catalogs). Prints
a markdown table and `N/M same`. `OK (parsed)`: SkyPilot accepts the snippet
at that stage (it may fail later); `OK (planned)`: ours planned it.

  probe_task_messages.py --sky target/release/sky [--only NAME ...]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
VENV = (os.environ.get('SKY_CONFORMANCE_VENV') or
        os.path.join(REPO, '.venv-conformance'))
CASES = os.path.join(HERE, 'testdata', 'task-messages.yaml')


def skypilot_messages(cases):
    """Runs in the venv: {name: message} (child side)."""
    # pylint: disable=import-outside-toplevel
    import sky
    from sky import exceptions
    out = {}
    for name, text in cases.items():
        try:
            sky.Task.from_yaml_str(text)
            out[name] = 'OK (parsed)'
        except BaseException as e:  # pylint: disable=broad-except
            try:
                e2 = exceptions.deserialize_exception(
                    exceptions.serialize_exception(e))
            except Exception:  # pylint: disable=broad-except
                e2 = e
            out[name] = ''.join(traceback.format_exception_only(
                type(e2), e2)).rstrip('\n')
    return out


def our_message(sky: str, text: str) -> str:
    with tempfile.TemporaryDirectory(prefix='sky-probe-') as d:
        with open(os.path.join(d, 't.yaml'), 'w', encoding='utf-8') as f:
            f.write(text)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(('SKY_', 'SKYPILOT_'))
        }
        env.update(HOME=d,
                   NO_COLOR='1',
                   SKY_ENABLED_CLOUDS='aws,gcp',
                   SKY_CATALOG_DIR=os.path.join(REPO, 'fixtures', 'catalogs'))
        p = subprocess.run([sky, 'launch', '--dryrun', '-y', 't.yaml'],
                           cwd=d,
                           env=env,
                           capture_output=True,
                           text=True,
                           stdin=subprocess.DEVNULL,
                           check=False,
                           timeout=60)
        return p.stderr.strip() if p.returncode else 'OK (planned)'


def cell(text: str) -> str:
    return text.replace('\n', '⏎').replace('|', '\\|').replace('`', "'")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--sky',
                    default=os.path.join(REPO, 'target', 'release', 'sky'))
    ap.add_argument('--only', nargs='*', default=None)
    ap.add_argument('--child', action='store_true', help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.child:
        cases = json.load(sys.stdin)
        sys.stdout.write(json.dumps(skypilot_messages(cases)))
        return 0
    import yaml  # pylint: disable=import-outside-toplevel
    with open(CASES, encoding='utf-8') as f:
        cases = yaml.safe_load(f)
    if ns.only is not None:
        cases = {k: v for k, v in cases.items() if k in ns.only}
    home = tempfile.mkdtemp(prefix='sky-probe-home-')
    env = dict(os.environ, HOME=home, SKYPILOT_DISABLE_USAGE_COLLECTION='1')
    p = subprocess.run(
        [os.path.join(VENV, 'bin', 'python'),
         os.path.abspath(__file__), '--child'],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        env=env,
        check=False)
    if p.returncode:
        sys.stderr.write(p.stderr[-4000:])
        return 1
    theirs = json.loads(p.stdout)
    same = 0
    print('| # | snippet | YAML (⏎ = newline) | SkyPilot 0.14.1 | ours |')
    print('|---|---|---|---|---|')
    for n, (name, text) in enumerate(cases.items(), 1):
        sky_msg = theirs[name]
        ours = our_message(os.path.abspath(ns.sky), text)
        ok = ours == sky_msg or (sky_msg.startswith('OK') and
                                 ours.startswith('OK'))
        same += ok
        print(f'| {n} | {cell(name)} | `{cell(text)}` | {cell(sky_msg)} | '
              f'{"same" if ok else cell(ours)} |')
    print(f'\n{same}/{len(cases)} same')
    return 0


if __name__ == '__main__':
    sys.exit(main())
