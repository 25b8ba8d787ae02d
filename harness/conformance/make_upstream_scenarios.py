#!/usr/bin/env python3
"""Writes fixtures/scenarios/up-*/ from upstream SkyPilot's optimizer tests.

Source: the acceptance checklist in /work/shared/reference/
SkyPilot's own optimizer tests (upstream tests/test_optimizer_dryruns.py and
friends), restricted to one machine and the clouds we support (aws gcp azure
lambda runpod paperspace cudo kubernetes). Upstream asserts only fragments
(an exception type, "X in output"); here SkyPilot 0.14.1's complete output on
our fixture catalogs is the expected truth.

  python3 harness/conformance/make_upstream_scenarios.py           # write
  python3 harness/conformance/make_upstream_scenarios.py --oracle  # + run the
      oracle: skypilot.txt / skypilot.json, and scenario.toml's exit_code

Only folders named up-* are touched (removed and rewritten).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCEN = os.path.join(REPO, 'fixtures', 'scenarios')
ALL = ['aws', 'gcp', 'azure', 'lambda', 'runpod', 'paperspace', 'cudo']
K8S_CTX = 'my-k8s-cluster-context'
ALL_K8S = ALL + ['kubernetes']

S: List[Dict[str, Any]] = []


def sc(name: str,
       desc: str,
       args: Optional[List[str]] = None,
       clouds: Optional[List[str]] = None,
       task: Optional[str] = None,
       config: Optional[str] = None,
       kube: bool = False) -> None:
    S.append(
        dict(name='up-' + name,
             desc=desc,
             args=args or [],
             clouds=clouds or (ALL_K8S if kube else ALL),
             task=task,
             config=config,
             kube=kube or (clouds is not None and 'kubernetes' in clouds)))


# --- launch dry-run succeeds for instance types ------------------------------
sc('it-aws-p3-2xlarge', 'AWS p3.2xlarge launches',
   ['--infra', 'aws', '-t', 'p3.2xlarge'])
sc('it-azure-nc24s-v3', 'Azure Standard_NC24s_v3 launches',
   ['--infra', 'azure', '-t', 'Standard_NC24s_v3'])
sc('it-gcp-n1-standard-16', 'GCP n1-standard-16 launches',
   ['--infra', 'gcp', '-t', 'n1-standard-16'])
sc('it-gcp-a3-highgpu-8g', 'GCP a3-highgpu-8g launches',
   ['--infra', 'gcp', '-t', 'a3-highgpu-8g'])
# --- cpus / memory ----------------------------------------------------------
sc('cpus-4', 'cpus 4 launches', ['--cpus', '4'])
sc('cpus-7plus', "cpus '7+' launches", ['--cpus', '7+'])
sc('memory-32', 'memory 32 launches', ['--memory', '32'])
sc('memory-32plus', "memory '32+' launches", ['--memory', '32+'])
sc('yaml-cpus-int-4', 'cpus 4 as a YAML int', task='resources:\n  cpus: 4\n')
sc('yaml-memory-int-32',
   'memory 32 as a YAML int',
   task='resources:\n  memory: 32\n')
# --- accelerators -------------------------------------------------------------
for acc in ('K80', 'M60', 'P100', 'T4'):
    sc(f'gpu-{acc.lower()}', f'accelerator {acc} launches', ['--gpus', acc])
sc('gpu-t4x8-spot', '{T4: 8} spot launches', ['--gpus', 'T4:8', '--use-spot'])
sc('gpu-tpu-v3-8', 'tpu-v3-8 launches (cloud inferred: GCP)',
   ['--gpus', 'tpu-v3-8'])
sc('aws-v100', 'AWS V100 launches', ['--infra', 'aws', '--gpus', 'V100'])
sc('aws-v100-spot', 'AWS V100 spot launches',
   ['--infra', 'aws', '--gpus', 'V100', '--use-spot'])
sc('aws-v100x8', 'AWS {V100: 8} launches',
   ['--infra', 'aws', '--gpus', 'V100:8'])
sc('tpu-on-aws', 'TPU with cloud AWS -> AssertionError "Cloud must be GCP"',
   ['--infra', 'aws', '--gpus', 'tpu-v3-8'])
# --- resource pinned to a non-enabled cloud ---------------------------------
sc('disabled-aws', 'AWS pinned, only Azure+GCP enabled',
   ['--infra', 'aws', '--gpus', 'V100'], clouds=['azure', 'gcp'])
sc('disabled-azure', 'Azure pinned, only AWS enabled',
   ['--infra', 'azure', '--gpus', 'V100'], clouds=['aws'])
sc('disabled-gcp', 'GCP pinned, only AWS enabled',
   ['--infra', 'gcp', '--gpus', 'V100'], clouds=['aws'])
# --- instance type vs cpus/memory -------------------------------------------
sc('it-m6i-2xlarge-cpus-4', 'm6i.2xlarge + cpus 4 -> requested number of vCPUs',
   ['--infra', 'aws', '-t', 'm6i.2xlarge', '--cpus', '4'])
sc('it-c6i-large-cpus-4', 'c6i.large + cpus 4 -> requested number of vCPUs',
   ['--infra', 'aws', '-t', 'c6i.large', '--cpus', '4'])
sc('it-m6i-2xlarge-memory-4', 'm6i.2xlarge + memory 4 -> requested memory',
   ['--infra', 'aws', '-t', 'm6i.2xlarge', '--memory', '4'])
sc('it-c6i-large-memory-2', 'c6i.large + memory 2 -> requested memory',
   ['--infra', 'aws', '-t', 'c6i.large', '--memory', '2'])
sc('it-c6i-8xlarge-cpus-32', 'c6i.8xlarge + cpus 32 accepted',
   ['--infra', 'aws', '-t', 'c6i.8xlarge', '--cpus', '32'])
sc('it-c6i-8xlarge-memory-64', 'c6i.8xlarge + memory 64 accepted',
   ['--infra', 'aws', '-t', 'c6i.8xlarge', '--memory', '64'])
sc('it-e8s-v5-cpus-8', "Standard_E8s_v5 + cpus '8' accepted",
   ['--infra', 'azure', '-t', 'Standard_E8s_v5', '--cpus', '8'])
sc('it-e8s-v5-memory-64', "Standard_E8s_v5 + memory '64' accepted",
   ['--infra', 'azure', '-t', 'Standard_E8s_v5', '--memory', '64'])
sc('it-n1-standard-8-cpus-7plus', "n1-standard-8 + cpus '7+' accepted",
   ['--infra', 'gcp', '-t', 'n1-standard-8', '--cpus', '7+'])
sc('it-n1-standard-8-memory-30plus', "n1-standard-8 + memory '30+' accepted",
   ['--infra', 'gcp', '-t', 'n1-standard-8', '--memory', '30+'])
sc('it-g4dn-2xlarge-cpus-8-0', 'g4dn.2xlarge + cpus 8.0 accepted',
   ['--infra', 'aws', '-t', 'g4dn.2xlarge', '--cpus', '8.0'])
sc('it-g4dn-2xlarge-memory-32', 'g4dn.2xlarge + memory 32 accepted',
   ['--infra', 'aws', '-t', 'g4dn.2xlarge', '--memory', '32'])
# --- default instance choices -------------------------------------------------
sc('default-no-args', 'bare `sky launch`: default instance per cloud')
sc('default-cpus-8', 'cpus=8 -> m6i.2xlarge, Standard_D8s_v5, n4-standard-8',
   ['--cpus', '8'])
sc('default-memory-32', 'memory=32 -> r6i.xlarge, Standard_E4s_v5, n4-highmem-4',
   ['--memory', '32'])
sc('default-memory-64plus',
   "memory='64+' -> r6i.2xlarge, Standard_E8s_v5, n4-highmem-8, gpu_1x_a10",
   ['--memory', '64+'])
sc('default-cpus-4plus-memory-4plus',
   "cpus='4+',memory='4+' -> n2-highcpu-4, c6i.xlarge, Standard_F4s_v2, "
   'cpu_4x_general', ['--cpus', '4+', '--memory', '4+'])
sc('default-t4', 'T4 -> g4dn.xlarge, Standard_NC4as_T4_v3, n1-highmem-4',
   ['--gpus', 'T4'])
sc('default-cpus-16plus-memory-32plus-t4',
   "cpus='16+',memory='32+',T4 -> n1-standard-16, g4dn.4xlarge, "
   'Standard_NC16as_T4_v3', ['--cpus', '16+', '--memory', '32+', '--gpus', 'T4'])
sc('default-memory-200plus-t4',
   "memory='200+',T4 -> n1-highmem-32, g4dn.16xlarge, no Azure",
   ['--memory', '200+', '--gpus', 'T4'])
# --- instance type / accelerator mismatch -------------------------------------
sc('mismatch-p3-2xlarge-k80', 'p3.2xlarge + K80 -> ResourcesMismatchError',
   ['--infra', 'aws', '-t', 'p3.2xlarge', '--gpus', 'K80'])
sc('mismatch-m4-2xlarge-v100', 'm4.2xlarge + V100 -> ResourcesMismatchError',
   ['--infra', 'aws', '-t', 'm4.2xlarge', '--gpus', 'V100'])
sc('mismatch-p3-16xlarge-v100x1',
   'p3.16xlarge + V100:1 -> ResourcesMismatchError',
   ['--infra', 'aws', '-t', 'p3.16xlarge', '--gpus', 'V100:1'])
sc('mismatch-n2-standard-8-v100',
   'GCP n2-standard-8 + V100 -> ResourcesMismatchError',
   ['--infra', 'gcp', '-t', 'n2-standard-8', '--gpus', 'V100'])
sc('mismatch-a2-highgpu-1g-a100x2',
   'GCP a2-highgpu-1g + A100:2 -> ResourcesMismatchError',
   ['--infra', 'gcp', '-t', 'a2-highgpu-1g', '--gpus', 'A100:2'])
sc('match-p3-2xlarge-v100', 'p3.2xlarge + V100 accepted',
   ['--infra', 'aws', '-t', 'p3.2xlarge', '--gpus', 'V100'])
sc('match-n1-standard-2-v100', 'GCP n1-standard-2 + V100 accepted',
   ['--infra', 'gcp', '-t', 'n1-standard-2', '--gpus', 'V100'])
sc('match-n1-standard-8-tpu-v3-8-node',
   'GCP n1-standard-8 + tpu-v3-8 with tpu_vm: False accepted',
   task=('resources:\n  infra: gcp\n  instance_type: n1-standard-8\n'
         '  accelerators: tpu-v3-8\n  accelerator_args:\n    tpu_vm: false\n'))
sc('match-a2-highgpu-1g-a100-lower', "a2-highgpu-1g + 'a100' accepted",
   ['--infra', 'gcp', '-t', 'a2-highgpu-1g', '--gpus', 'a100'])
sc('match-a3-highgpu-8g-h100x8', 'a3-highgpu-8g + H100:8 accepted',
   ['--infra', 'gcp', '-t', 'a3-highgpu-8g', '--gpus', 'H100:8'])
sc('match-p3-16xlarge-v100x8', 'p3.16xlarge + V100:8 accepted',
   ['--infra', 'aws', '-t', 'p3.16xlarge', '--gpus', 'V100:8'])
# --- invalid instance type ----------------------------------------------------
for cloud in ('aws', 'azure', 'gcp'):
    sc(f'invalid-it-{cloud}', f'instance_type invalid on {cloud}',
       ['--infra', cloud, '-t', 'invalid'])
sc('invalid-it-nocloud', 'instance_type invalid, no cloud', ['-t', 'invalid'])
# --- cloud inferred from instance type ----------------------------------------
for it in ('m5.12xlarge', 'p3.8xlarge', 'g4dn.2xlarge', 'n1-standard-96',
           'Standard_NC12s_v3'):
    sc(f'infer-{it.lower().replace(".", "-").replace("_", "-")}',
       f'cloud inferred from instance type {it}', ['-t', it])
# --- invalid cpus / memory strings --------------------------------------------
sc('invalid-cpus-string', '"cpus" field should be', ['--cpus', 'invalid'])
sc('invalid-cpus-x', '"cpus" field should be', ['--cpus', '4x'])
sc('invalid-memory-string', '"memory" field should be',
   ['--memory', 'invalid'])
sc('invalid-memory-plus-plus', '"memory" field should be',
   ['--memory', '16++'])
# --- regions / zones -----------------------------------------------------------
for cloud in ('aws', 'azure', 'gcp'):
    sc(f'invalid-region-{cloud}', f'region invalid on {cloud}',
       ['--infra', f'{cloud}/invalid'])
sc('gcp-us-west1-tpu-v3-8', 'GCP us-west1 + tpu-v3-8 -> unavailable',
   ['--infra', 'gcp/us-west1', '--gpus', 'tpu-v3-8'])
sc('invalid-zone-aws', 'zone invalid on AWS', ['--infra', 'aws/*/invalid'])
sc('invalid-zone-gcp', 'zone invalid on GCP', ['--infra', 'gcp/*/invalid'])
sc('zone-azure', 'Azure does not support zones',
   ['--infra', 'azure/*/invalid'])
sc('zone-us-east-1-us-east-2a', 'AWS us-east-1 + zone us-east-2a -> Invalid zone',
   ['--infra', 'aws/us-east-1/us-east-2a'])
sc('zone-us-west2-us-west1-a', 'GCP us-west2 + zone us-west1-a -> Invalid zone',
   ['--infra', 'gcp/us-west2/us-west1-a'])
sc('zone-gcp-us-central1-as-zone',
   "GCP zone 'us-central1' -> Invalid zone listing us-central1-a/b/c/f",
   ['--infra', 'gcp/*/us-central1'])
# --- images --------------------------------------------------------------------
sc('image-aws-no-region', 'AWS image without region',
   ['--infra', 'aws', '--image-id', 'ami-0868a20f5a3bf9702'])
sc('image-no-cloud', 'image without cloud',
   ['--image-id', 'ami-0868a20f5a3bf9702'])
sc('image-lambda', 'Lambda cloud only supports Docker images',
   ['--infra', 'lambda', '--image-id', 'some-image'])
sc('image-aws-us-east-1', 'aws/us-east-1 + AMI accepted',
   ['--infra', 'aws/us-east-1', '--image-id', 'ami-0868a20f5a3bf9702'])
sc('image-gcp-us-central1', 'gcp/us-central1 + project image accepted', [
    '--infra', 'gcp/us-central1', '--image-id',
    'projects/deeplearning-platform-release/global/images/'
    'common-cpu-v20230126'
])
sc('image-gcp', 'gcp + project image accepted', [
    '--infra', 'gcp', '--image-id',
    'projects/deeplearning-platform-release/global/images/'
    'common-cpu-v20230126'
])
# --- YAML parsing ----------------------------------------------------------------
sc('yaml-cpus-1-5', 'cpus 1.5 from YAML', task='resources:\n  cpus: 1.5\n')
sc('yaml-cpus-3plus-unquoted', 'cpus 3+ (unquoted) from YAML',
   task='resources:\n  cpus: 3+\n')
sc('yaml-memory-1-5', 'memory 1.5 from YAML', task='resources:\n  memory: 1.5\n')
sc('yaml-memory-3plus', "memory '3+' from YAML",
   task="resources:\n  memory: '3+'\n")
sc('yaml-acc-v100x4', 'accelerators V100:4 from YAML',
   task='resources:\n  accelerators: V100:4\n')
sc('yaml-acc-v100-half', 'accelerators V100:0.5 from YAML',
   task='resources:\n  accelerators: V100:0.5\n')
sc('yaml-acc-v100-space-half', 'accelerators "V100: 0.5" from YAML',
   task='resources:\n  accelerators: "V100: 0.5"\n')
sc('yaml-acc-dict-half', 'accelerators {V100: 0.5} from YAML',
   task='resources:\n  accelerators: {V100: 0.5}\n')
sc('yaml-acc-invalid-float', '"V100: expected_a_float_here" -> ValueError',
   task='resources:\n  accelerators: "V100: expected_a_float_here"\n')
sc('yaml-num-nodes-negative', 'num_nodes -1 -> ValueError',
   task='num_nodes: -1\n')
sc('yaml-num-nodes-2-2', 'num_nodes 2.2 -> ValueError', task='num_nodes: 2.2\n')
sc('yaml-num-nodes-1-0', 'num_nodes 1.0 -> ValueError', task='num_nodes: 1.0\n')
sc('yaml-empty', 'empty YAML -> num_nodes 1', task='\n')
sc('yaml-name-only', 'name-only YAML', task='name: my-task\n')
sc('num-nodes-2-v100', '2 nodes of V100 (cost x2)',
   ['--num-nodes', '2', '--gpus', 'V100:1'])
sc('aws-us-west-1-a100x8', 'aws/us-west-1 + A100:8 -> unavailable',
   ['--infra', 'aws/us-west-1', '--gpus', 'A100:8'])
# --- cloud inference from region / zone -------------------------------------------
sc('infer-region-us-east1', 'region us-east1 -> GCP', ['--infra', '*/us-east1'])
sc('infer-zone-us-west2-a', 'zone us-west2-a -> GCP',
   ['--infra', '*/*/us-west2-a'])
sc('infer-region-eu-south-1', 'region eu-south-1 -> AWS',
   ['--infra', '*/eu-south-1'])
sc('infer-zone-us-west-2a', 'zone us-west-2a -> AWS',
   ['--infra', '*/*/us-west-2a'])
sc('region-us-east-1-aws', 'region us-east-1 with cloud AWS',
   ['--infra', 'aws/us-east-1'])
sc('region-us-east-1-lambda', 'region us-east-1 with cloud Lambda',
   ['--infra', 'lambda/us-east-1'])
sc('region-us-east-1-ambiguous',
   'region us-east-1 alone -> Multiple enabled clouds have region/zone',
   ['--infra', '*/us-east-1'])
sc('zone-us-west-2-a-aws-didyoumean',
   "zone us-west-2-a on AWS -> Did you mean 'us-west-2a'",
   ['--infra', 'aws/*/us-west-2-a'])
sc('zone-us-west-2-a-nocloud', 'zone us-west-2-a alone -> Invalid for any cloud',
   ['--infra', '*/*/us-west-2-a'])
sc('zone-us-west-2z-nocloud', 'zone us-west-2z alone -> Invalid for any cloud',
   ['--infra', '*/*/us-west-2z'])
sc('region-us-east1-zone-us-west2-a',
   "region us-east1 + zone us-west2-a -> Invalid for any cloud",
   ['--infra', '*/us-east1/us-west2-a'])
# --- ordered lists / any_of ----------------------------------------------------------
sc('ordered-v100-t4-k80-t4x4', 'ordered [V100:1, T4:1, K80:1, T4:4]',
   task='resources:\n  accelerators: [V100:1, T4:1, K80:1, T4:4]\n')
sc('ordered-aws-spot-l4-a100-h100-h200',
   'candidate logging: AWS spot ordered [L4, A100, H100, H200] -> Multiple '
   'AWS instances satisfy L4:1',
   task=('resources:\n  infra: aws\n  use_spot: true\n  ordered:\n'
         '    - accelerators: L4:1\n    - accelerators: A100:1\n'
         '    - accelerators: H100:1\n    - accelerators: H200:1\n'))
sc('any-of-t4-v100', 'any_of [T4, V100]: global cheapest',
   task=('resources:\n  any_of:\n    - accelerators: T4:1\n'
         '    - accelerators: V100:1\n'))
sc('any-of-infra', 'any_of over infra (aws, gcp) with cpus 8',
   task=('resources:\n  cpus: 8\n  any_of:\n    - infra: aws\n'
         '    - infra: gcp\n'))
# --- disk tiers -------------------------------------------------------------------------
for tier in ('best', 'low', 'medium', 'high', 'ultra'):
    sc(f'disk-tier-{tier}', f'disk_tier {tier}: clouds that support it',
       ['--disk-tier', tier])
sc('disk-tier-azure-ultra', 'Azure rejects disk_tier ultra',
   ['--infra', 'azure', '--disk-tier', 'ultra'])
sc('disk-tier-lambda-high', 'Lambda rejects disk_tier high',
   ['--infra', 'lambda', '--disk-tier', 'high'])
# --- reservations / big requests -----------------------------------------------------------
sc('aws-reservations-a100x8',
   'AWS A100:8 with aws.specific_reservations configured exits 0',
   ['--infra', 'aws', '--gpus', 'A100:8'],
   config='aws:\n  specific_reservations:\n    - cr-a1234567\n')
sc('aws-cpus-111-memory-999', 'AWS cpus 111 memory 999 -> unavailable, hints',
   ['--infra', 'aws', '--cpus', '111', '--memory', '999'])
# --- memory-based accelerators ---------------------------------------------------------------
sc('memgpu-16gb', '16GB -> T4 shown', ['--gpus', '16GB'])
sc('memgpu-32gbplus', '32GB+ -> V100-32GB/A100.., not T4', ['--gpus', '32GB+'])
sc('memgpu-32gbplus-list', "['32GB+'] (YAML list)",
   task="resources:\n  accelerators: ['32GB+']\n")
sc('memgpu-set-32gbplus-t4', '{32GB+: 1, T4: 1}',
   task="resources:\n  accelerators: {32GB+: 1, T4: 1}\n")
sc('memgpu-list-32gbplus-t4', "['32GB+', 'T4']",
   task="resources:\n  accelerators: ['32GB+', 'T4']\n")
sc('memgpu-list-32gbplus-16gb', "['32GB+', '16gb']",
   task="resources:\n  accelerators: ['32GB+', '16gb']\n")
sc('memgpu-16384mb', '16384MB -> T4', ['--gpus', '16384MB'])
sc('memgpu-nvidia-16gb-1', 'nvidia:16GB:1 -> T4', ['--gpus', 'nvidia:16GB:1'])
sc('memgpu-nvidia-32gbplus', 'nvidia:32GB+ -> V100-32GB/A100.., not T4',
   ['--gpus', 'nvidia:32GB+'])
sc('memgpu-yaml-nvidia-16gb-1', 'nvidia:16GB:1 from YAML -> T4',
   task='resources:\n  accelerators: nvidia:16GB:1\n')
sc('memgpu-yaml-nvidia-32gbplus', 'nvidia:32GB+ from YAML -> not T4',
   task="resources:\n  accelerators: 'nvidia:32GB+'\n")
# --- Kubernetes (upstream: one context that fits everything) -------------------------------------
sc('k8s-default', 'all clouds + Kubernetes: bare launch', kube=True)
sc('k8s-t4', 'all clouds + Kubernetes: T4', ['--gpus', 'T4'], kube=True)
sc('k8s-h100x8', 'all clouds + Kubernetes: H100:8', ['--gpus', 'H100:8'],
   kube=True)
sc('k8s-missing-context', 'pinned to a Kubernetes context that does not exist',
   ['--infra', 'k8s/missing-context'], kube=True)

K8S_NODES = [
    # name, cpus, memory Gi, accelerator label value, gpu count
    ('cpu-node-1', '64', '256Gi', None, 0),
    ('t4-node-1', '32', '128Gi', 't4', 8),
    ('v100-node-1', '64', '480Gi', 'v100', 8),
    ('h100-node-1', '208', '1800Gi', 'h100', 8),
]


def kube_node_list() -> Dict[str, Any]:
    items = []
    for name, cpu, mem, acc, n in K8S_NODES:
        labels = {
            'kubernetes.io/hostname': name,
            'kubernetes.io/os': 'linux',
            'kubernetes.io/arch': 'amd64',
        }
        cap = {
            'cpu': cpu,
            'memory': mem,
            'ephemeral-storage': '500Gi',
            'pods': '110'
        }
        if acc:
            labels['skypilot.co/accelerator'] = acc
            cap['nvidia.com/gpu'] = str(n)
        items.append({
            'apiVersion': 'v1',
            'kind': 'Node',
            'metadata': {
                'name': name,
                'labels': labels
            },
            'spec': {},
            'status': {
                'capacity': cap,
                'allocatable': dict(cap),
                'conditions': [{
                    'type': 'Ready',
                    'status': 'True',
                    'reason': 'KubeletReady'
                }],
            },
        })
    return {'apiVersion': 'v1', 'kind': 'NodeList', 'metadata': {}, 'items': items}


def toml_str(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def write(entry: Dict[str, Any], exit_code: Optional[int]) -> str:
    folder = os.path.join(SCEN, entry['name'])
    lines = [
        f'description = {toml_str(entry["desc"] + " (derived from upstream SkyPilot optimizer tests)")}',
        f'args = {toml_str(entry["args"])}',
        f'clouds = {toml_str(entry["clouds"])}',
    ]
    if entry['task'] is not None:
        lines.append('task = "task.yaml"')
        with open(os.path.join(folder, 'task.yaml'), 'w',
                  encoding='utf-8') as f:
            f.write(entry['task'])
    if entry['config'] is not None:
        lines.append('config = "config.yaml"')
        with open(os.path.join(folder, 'config.yaml'), 'w',
                  encoding='utf-8') as f:
            f.write(entry['config'])
    lines.append(f'exit_code = {exit_code if exit_code is not None else 0}')
    if entry['kube']:
        lines.append('')
        lines.append('[kubernetes]')
        lines.append(f'contexts = {toml_str([K8S_CTX])}')
        os.makedirs(os.path.join(folder, 'kube'), exist_ok=True)
        with open(os.path.join(folder, 'kube', f'{K8S_CTX}.json'),
                  'w',
                  encoding='utf-8') as f:
            json.dump(kube_node_list(), f, indent=1)
            f.write('\n')
    with open(os.path.join(folder, 'scenario.toml'), 'w',
              encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')
    return folder


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument('--oracle', action='store_true')
    ap.add_argument('--catalog-dir',
                    default=os.path.join(REPO, 'fixtures', 'catalogs'))
    ap.add_argument('only', nargs='*', help='scenario names (up-...)')
    ns = ap.parse_args()
    names = [e['name'] for e in S]
    assert len(set(names)) == len(names), 'duplicate scenario names'
    entries = [e for e in S if not ns.only or e['name'] in ns.only]
    if not ns.only:
        for d in os.listdir(SCEN):
            if d.startswith('up-') and d not in names:
                shutil.rmtree(os.path.join(SCEN, d))
    folders = []
    for e in entries:
        folder = os.path.join(SCEN, e['name'])
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        folders.append(write(e, None))
    print(f'wrote {len(folders)} scenario folders')
    if not ns.oracle:
        return 0
    out = subprocess.run([
        sys.executable,
        os.path.join(HERE, 'oracle.py'), '--json', '--write', '--catalog-dir',
        ns.catalog_dir
    ] + folders,
                         capture_output=True,
                         text=True,
                         check=False)
    sys.stderr.write(out.stderr)
    results = json.loads(out.stdout)
    for e, res in zip(entries, results):
        write(e, res.get('exit_code'))
    bad = [r['scenario'] for r in results if 'oracle_failure' in r]
    print(f'oracle ran on {len(results)} scenarios; failures: {bad}')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
