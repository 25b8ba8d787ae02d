#!/usr/bin/env python3
"""Does SkyPilot 0.14.1 pick the row `sky` showed, given the handed-off task?

For each request below:

1. our release `sky launch -y <args> [task]` runs with a stand-in SkyPilot
   CLI (`fixtures/skypilot-cli/sky`) that records the words and the pinned
   task file `sky` hands over (nothing is provisioned);
2. `sky launch --dryrun -y -o json` gives the rows `sky` chose (per task);
3. SkyPilot 0.14.1 itself, offline on the same fixture catalogs and clouds
   (`harness/conformance/oracle.py`'s child: fresh HOME, no network, the
   enabled clouds monkeypatched), runs `sky launch --dryrun -y` on the
   handed-off words and task, and its optimizer's `best_resources` per task
   (cloud, region, zone, instance type, spot) is compared with ours.

Usage: harness/handoff/agree.py [--sky target/release/sky] [NAME ...]
Exit 0 when every case agrees; the last line is `N/M cases agree`.
Needs the conformance venv (`SKY_CONFORMANCE_VENV`, default
`.venv-conformance`): without it, says so and exits 0 (skipped).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ORACLE = os.path.join(REPO, 'harness', 'conformance', 'oracle.py')
VENV = (os.environ.get('SKY_CONFORMANCE_VENV') or
        os.path.join(REPO, '.venv-conformance'))
VENV_PY = os.path.join(VENV, 'bin', 'python')
CATALOGS = os.path.join(REPO, 'fixtures', 'catalogs')
FAKE_CLI = os.path.join(REPO, 'fixtures', 'skypilot-cli', 'sky')
CLOUDS = ['aws', 'gcp', 'azure', 'lambda', 'runpod', 'paperspace', 'cudo']
MARKER = '@@HANDOFF-RESULT@@'

# (name, args, task YAML or None, clouds or None for all catalog clouds)
CASES: List[Any] = [
    ('cpu-default', [], None, None),
    ('cpus-8+', ['--cpus', '8+'], None, None),
    ('memory-64+', ['--memory', '64+'], None, None),
    ('cpus-memory', ['--cpus', '16', '--memory', '64'], None, None),
    ('gpu-v100', ['--gpus', 'V100'], None, None),
    ('gpu-t4', ['--gpus', 'T4'], None, None),
    ('gpu-a10g', ['--gpus', 'A10G'], None, None),
    ('gpu-l4', ['--gpus', 'L4'], None, None),
    ('gpu-a100-8', ['--gpus', 'A100:8'], None, None),
    ('gpu-a100-80gb', ['--gpus', 'A100-80GB'], None, None),
    ('gpu-h100-8', ['--gpus', 'H100:8'], None, None),
    ('gpu-v100-4', ['--gpus', 'V100:4'], None, None),
    ('gpu-k80', ['--gpus', 'K80'], None, None),
    ('spot-v100', ['--gpus', 'V100', '--use-spot'], None, None),
    ('spot-a100-8', ['--gpus', 'A100:8', '--use-spot'], None, None),
    ('spot-cpu', ['--cpus', '4+', '--use-spot'], None, None),
    ('spot-t4-aws', ['--gpus', 'T4', '--use-spot', '--infra', 'aws'], None,
     None),
    ('multinode-a100-8', ['--gpus', 'A100:8', '--num-nodes', '4'], None,
     None),
    ('multinode-cpu', ['--cpus', '8', '--num-nodes', '3'], None, None),
    ('multinode-spot-h100', ['--gpus', 'H100', '--num-nodes', '2',
                             '--use-spot'], None, None),
    ('infra-aws-region', ['--gpus', 'V100', '--infra', 'aws/us-west-2'], None,
     None),
    ('infra-gcp', ['--gpus', 'T4', '--infra', 'gcp'], None, None),
    ('infra-azure', ['--cpus', '4', '--infra', 'azure'], None, None),
    ('instance-type', ['-t', 'p3.2xlarge'], None, None),
    ('instance-type-gcp', ['-t', 'n2-standard-8'], None, None),
    ('disk-tier', ['--cpus', '4', '--disk-tier', 'high'], None, None),
    ('aws-gcp-only', ['--gpus', 'V100'], None, ['aws', 'gcp']),
    ('lambda-first', ['--gpus', 'A100'], None, ['lambda', 'aws', 'gcp']),
    ('yaml-gpu', [], 'name: t\nrun: echo hi\nresources:\n  accelerators: '
     'A100:1\n  disk_size: 100\n', None),
    ('yaml-any-of', [], 'resources:\n  any_of:\n    - accelerators: V100\n'
     '    - accelerators: T4\n      infra: gcp\n    - accelerators: A10G\n',
     None),
    ('yaml-any-of-spot', [], 'resources:\n  use_spot: true\n  any_of:\n'
     '    - accelerators: A100:8\n    - accelerators: H100:8\n', None),
    ('yaml-gpu-set', [], 'resources:\n  accelerators: {V100: 1, T4: 1, L4: 1}\n',
     None),
    ('yaml-ordered', [], 'resources:\n  ordered:\n    - accelerators: H100:8\n'
     '      infra: lambda\n    - accelerators: A100:8\n', None),
    ('yaml-gpu-list', [], 'resources:\n  accelerators: [A10G, L4, T4]\n',
     None),
    ('yaml-multinode-spot', [], 'num_nodes: 2\nresources:\n  accelerators: '
     'V100:4\n  use_spot: true\n', None),
    ('chain-two-tasks', [], 'name: prep\nresources:\n  cpus: 8+\nrun: echo a\n'
     '---\nname: train\nnum_nodes: 2\nresources:\n  accelerators: A100:8\n'
     'run: echo b\n', None),
    ('chain-spot-gpu', [], 'name: a\nresources:\n  accelerators: T4\n  '
     'use_spot: true\n---\nname: b\nresources:\n  accelerators: V100\n', None),
]


# Existing scenario folders with Kubernetes contexts (their `kube/` node
# fixtures): the request, clouds and contexts come from `scenario.toml`.
SCENARIO_CASES = ['up-k8s-t4', 'up-k8s-h100x8', 'up-k8s-default',
                  'k8s-two-contexts', 'k8s-gpu-and-unreachable']
SCENARIOS = os.path.join(REPO, 'fixtures', 'scenarios')


def scenario_case(name: str) -> Any:
    import tomllib  # pylint: disable=import-outside-toplevel
    folder = os.path.join(SCENARIOS, name)
    with open(os.path.join(folder, 'scenario.toml'), 'rb') as f:
        sc = tomllib.load(f)
    kube = {
        'dir': os.path.join(folder, 'kube'),
        'contexts': sc.get('kubernetes', {}).get('contexts', []),
    }
    return (name, list(sc.get('args', [])), None, sc['clouds'], kube)


def have_venv() -> bool:
    return os.path.exists(VENV_PY)


# ---------------------------------------------------------------- our side

def sky_env(home: str, clouds: List[str], record: Optional[str],
            kube: Optional[Dict[str, Any]] = None) -> Dict[str, str]:
    env = {
        k: v for k, v in os.environ.items()
        if not k.startswith(('SKY_', 'SKYPILOT_', 'FAKE_SKYPILOT_'))
    }
    env.update({
        'NO_COLOR': '1',
        'HOME': home,
        'USER': 'tester',
        'SKY_ENABLED_CLOUDS': ','.join(clouds),
        'SKY_CATALOG_DIR': CATALOGS,
        'SKYPILOT_CLI': FAKE_CLI,
    })
    if record:
        env['FAKE_SKYPILOT_RECORD'] = record
    if kube:
        env['SKY_KUBE_NODES_DIR'] = kube['dir']
        env['SKY_KUBE_CONTEXTS'] = ','.join(kube['contexts'])
    return env


def run_ours(sky: str, args: List[str], task: Optional[str],
             clouds: List[str], work: str,
             kube: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    """The handed-off words and task, and our chosen rows."""
    home = os.path.join(work, 'home')
    os.makedirs(home, exist_ok=True)
    record = os.path.join(work, 'rec')
    tail = [task] if task else []
    p = subprocess.run([sky, 'launch', '--dryrun', '-y', '-o', 'json'] + args +
                       tail, env=sky_env(home, clouds, None, kube),
                       capture_output=True, text=True, check=False,
                       stdin=subprocess.DEVNULL)
    doc = json.loads(p.stdout)
    chosen = [{
        'cloud': t['chosen']['cloud'],
        'region': t['chosen']['region'],
        'zone': t['chosen']['zone'],
        'instance_type': t['chosen']['instance_type'],
        'use_spot': t['chosen']['use_spot'],
    } for t in (doc.get('plan') or {}).get('tasks', [])]
    p = subprocess.run([sky, 'launch', '-y', '-c', 'agree'] + args + tail,
                       env=sky_env(home, clouds, record, kube),
                       capture_output=True, text=True, check=False,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0 or not os.path.exists(os.path.join(record, 'task')):
        raise RuntimeError(f'sky launch -y exited {p.returncode}:\n'
                           f'{p.stdout}{p.stderr}')
    with open(os.path.join(record, 'args'), encoding='utf-8') as f:
        words = f.read().splitlines()
    with open(os.path.join(record, 'task'), encoding='utf-8') as f:
        pinned = f.read()
    return {'chosen': chosen, 'words': words, 'pinned': pinned}


# ------------------------------------------------------------ SkyPilot side

def skypilot_args(words: List[str]) -> List[str]:
    """SkyPilot's words minus `launch`, `--yes` and the task file: the
    oracle adds `--dryrun -y` and the scenario's task."""
    out = [w for w in words[1:-1] if w not in ('--yes', '-y')]
    return out


def run_skypilot(words: List[str], pinned: str, clouds: List[str],
                 work: str, kube: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    folder = os.path.join(work, 'scenario')
    os.makedirs(folder, exist_ok=True)
    if kube:
        shutil.copytree(kube['dir'], os.path.join(folder, 'kube'))
    with open(os.path.join(folder, 'task.yaml'), 'w', encoding='utf-8') as f:
        f.write(pinned)
    with open(os.path.join(folder, 'scenario.toml'), 'w',
              encoding='utf-8') as f:
        f.write(f'args = {json.dumps(skypilot_args(words))}\n'
                f'task = "task.yaml"\nclouds = {json.dumps(clouds)}\n')
        if kube:
            f.write(f'[kubernetes]\ncontexts = {json.dumps(kube["contexts"])}\n')
    p = subprocess.run([VENV_PY, os.path.abspath(__file__), '--child', folder],
                       capture_output=True, text=True, check=False,
                       stdin=subprocess.DEVNULL)
    if MARKER not in p.stdout:
        raise RuntimeError(f'SkyPilot child failed:\n{p.stdout[-3000:]}'
                           f'{p.stderr[-3000:]}')
    return json.loads(p.stdout.split(MARKER, 1)[1])


def child(folder: str) -> int:
    """In the venv: oracle.py's offline child, with the optimizer's chosen
    resources captured as fields rather than a repr."""
    spec = importlib.util.spec_from_file_location('oracle', ORACLE)
    oracle = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oracle)
    captured: List[Dict[str, Any]] = []
    orig_patches = oracle._install_patches  # pylint: disable=protected-access

    def install(sc, state):
        orig_patches(sc, state)
        from sky import optimizer  # pylint: disable=import-outside-toplevel
        orig = optimizer.Optimizer.optimize

        def optimize(dag, *a, **k):
            out = orig(dag, *a, **k)
            captured.clear()
            for t in dag.tasks:
                r = t.best_resources
                captured.append({
                    'cloud': str(r.cloud).lower() if r.cloud else None,
                    'region': r.region,
                    'zone': r.zone,
                    'instance_type': r.instance_type,
                    'use_spot': r.use_spot,
                })
            return out

        optimizer.Optimizer.optimize = staticmethod(optimize)

    oracle._install_patches = install  # pylint: disable=protected-access
    res = oracle.run_child(folder, CATALOGS)
    sys.stdout.write(MARKER + json.dumps({
        'chosen': captured,
        'exit_code': res.get('exit_code'),
        'error': res.get('error'),
        'output': res.get('output'),
    }))
    sys.stdout.flush()
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--sky', default=os.path.join(REPO, 'target', 'release',
                                                  'sky'))
    ap.add_argument('--child', help=argparse.SUPPRESS)
    ap.add_argument('names', nargs='*')
    ns = ap.parse_args()
    if ns.child:
        return child(ns.child)
    if not have_venv():
        print(f'skipped: no SkyPilot 0.14.1 venv at {VENV} '
              '(harness/conformance/setup.sh makes one; or set '
              'SKY_CONFORMANCE_VENV)')
        return 0
    cases = [c + (None,) for c in CASES]
    cases += [scenario_case(n) for n in SCENARIO_CASES]
    cases = [c for c in cases if not ns.names or c[0] in ns.names]
    agree = 0
    for name, args, task_text, clouds, kube in cases:
        clouds = clouds or CLOUDS
        work = tempfile.mkdtemp(prefix=f'sky-agree-{name}-')
        try:
            task = None
            if task_text is not None:
                task = os.path.join(work, 'task.yaml')
                with open(task, 'w', encoding='utf-8') as f:
                    f.write(task_text)
            ours = run_ours(ns.sky, args, task, clouds, work, kube)
            theirs = run_skypilot(ours['words'], ours['pinned'], clouds, work,
                                  kube)
            ok = bool(ours['chosen']) and theirs['chosen'] == ours['chosen']
            agree += ok
            print(f'{"agree" if ok else "DIFFER"}  {name}: sky '
                  f'{fmt(ours["chosen"])}; SkyPilot {fmt(theirs["chosen"])}')
            if not ok:
                print(f'    words: {ours["words"]}\n    SkyPilot exit '
                      f'{theirs["exit_code"]}: {theirs.get("error")}\n'
                      + indent(ours['pinned']))
        except Exception as e:  # pylint: disable=broad-except
            print(f'ERROR   {name}: {e}')
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f'{agree}/{len(cases)} cases agree')
    return 0 if agree == len(cases) else 1


def fmt(rows: List[Dict[str, Any]]) -> str:
    return '; '.join(
        f'{r["cloud"]}/{r["region"]}/{r["zone"] or "-"} {r["instance_type"]}'
        f'{" [spot]" if r["use_spot"] else ""}' for r in rows) or '(none)'


def indent(text: str) -> str:
    return ''.join(f'      {l}\n' for l in text.splitlines())


if __name__ == '__main__':
    sys.exit(main())
