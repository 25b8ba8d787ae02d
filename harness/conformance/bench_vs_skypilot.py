#!/usr/bin/env python3
"""SkyPilot 0.14.1 and `sky` on the same catalogs and request, in one run.

Each run, in alternating order so drift hits both alike:
- SkyPilot: a fresh interpreter of the conformance venv that imports `sky`,
  builds the DAG from the request as `sky launch` does, and runs
  `Optimizer.optimize` offline (oracle.py's child: network blocked, the same
  catalog folder) — the whole process, spawn to exit;
- sky: `sky launch --dryrun -y ARGS`, the whole process, after one warm-up run
  (catalog images stored, as on any machine that launched before).

SkyPilot's own CLI is not timed: in 0.14.1 it talks to an API server it starts
on first use, which does not run offline here. Prints both medians and the
ratio; `--json` prints every sample.

Usage: bench_vs_skypilot.py [--runs N] [--args '--gpus H100:8'] [--sky PATH]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import oracle  # noqa: E402  pylint: disable=wrong-import-position


def children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def time_process(cmd, env, cpu=None) -> float:
    """Wall seconds of one whole process; its CPU seconds are appended to `cpu`."""
    c0 = children_cpu()
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if cpu is not None:
        cpu.append(children_cpu() - c0)
    if out.returncode != 0:
        sys.exit(f'bench-vs-skypilot: {shlex.join(cmd)} exited {out.returncode}\n'
                 f'{out.stdout[-2000:]}{out.stderr[-2000:]}')
    return wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--runs', type=int, default=10)
    ap.add_argument('--args', default='--gpus H100:8', help='the request, as sky launch flags')
    ap.add_argument('--clouds', default=','.join(oracle.ALL_CATALOG_CLOUDS),
                    help='comma-separated enabled clouds (both sides)')
    ap.add_argument('--sky', default=os.path.join(REPO, 'target', 'release', 'sky'))
    ap.add_argument('--catalog-dir', default=oracle.DEFAULT_CATALOGS)
    ap.add_argument('--json', action='store_true')
    ns = ap.parse_args()
    if ns.runs < 1:
        ap.error('--runs must be at least 1')
    if not os.access(ns.sky, os.X_OK):
        ap.error(f'no sky binary at {ns.sky} (build it: cargo build --release -p optimizer)')
    if not os.path.exists(oracle.VENV_PY):
        subprocess.run(['bash', os.path.join(HERE, 'setup.sh')], check=True)

    clouds = [c.strip() for c in ns.clouds.split(',') if c.strip()]
    catalog_dir = os.path.abspath(ns.catalog_dir)
    tmp = tempfile.mkdtemp(prefix='sky-vs-skypilot-')
    try:
        folder = os.path.join(tmp, 'scenario')
        os.makedirs(folder)
        with open(os.path.join(folder, 'scenario.toml'), 'w', encoding='utf-8') as f:
            f.write(f'args = {json.dumps(shlex.split(ns.args))}\n'
                    f'clouds = {json.dumps(clouds)}\n')
        skypilot_cmd = [oracle.VENV_PY, os.path.join(HERE, 'oracle.py'), '--child', folder,
                        '--catalog-dir', catalog_dir]
        skypilot_env = dict(os.environ, HOME=tmp, SKYPILOT_DISABLE_USAGE_COLLECTION='1')
        home = os.path.join(tmp, 'home')
        os.makedirs(home)
        sky_cmd = [ns.sky, 'launch', '--dryrun', '-y', '-c', 'bench',
                   '--catalog-dir', catalog_dir] + shlex.split(ns.args)
        sky_env = {'PATH': os.environ.get('PATH', ''), 'HOME': home,
                   'SKY_ENABLED_CLOUDS': ','.join(clouds), 'NO_COLOR': '1'}
        time_process(sky_cmd, sky_env)  # warm-up: stores the catalog images
        samples = {'skypilot': [], 'sky': []}
        cpu = {'skypilot': [], 'sky': []}
        for i in range(ns.runs):
            order = ['skypilot', 'sky'] if i % 2 == 0 else ['sky', 'skypilot']
            for side in order:
                cmd, env = (skypilot_cmd, skypilot_env) if side == 'skypilot' else (sky_cmd, sky_env)
                samples[side].append(time_process(cmd, env, cpu[side]))
            if sys.stderr.isatty():
                print(f'\rrun {i + 1}/{ns.runs}', end='', file=sys.stderr, flush=True)
        if sys.stderr.isatty():
            print('\r\x1b[2K', end='', file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in samples.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    ratio = med['skypilot'] / med['sky']
    if ns.json:
        print(json.dumps({'args': ns.args, 'clouds': clouds, 'runs': ns.runs,
                          'median_s': med, 'median_cpu_s': med_cpu, 'ratio': ratio,
                          'samples_s': samples, 'cpu_s': cpu}, indent=2))
        return 0
    print(f'request: sky launch --dryrun -y {ns.args}   clouds: {",".join(clouds)}   '
          f'catalogs: {os.path.relpath(catalog_dir, REPO)}   runs: {ns.runs} each, alternating')
    print(f'SkyPilot {oracle.SKYPILOT_VERSION} (import + optimize, fresh process): '
          f'median {med["skypilot"] * 1000:9.1f} ms   (CPU {med_cpu["skypilot"] * 1000:.1f} ms)')
    print(f'sky (whole process, warm)                               : '
          f'median {med["sky"] * 1000:9.1f} ms   (CPU {med_cpu["sky"] * 1000:.1f} ms)')
    print(f'ratio: {ratio:.0f}x wall, {med_cpu["skypilot"] / max(med_cpu["sky"], 1e-9):.0f}x CPU')
    return 0


if __name__ == '__main__':
    sys.exit(main())
