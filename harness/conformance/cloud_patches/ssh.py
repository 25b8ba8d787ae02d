"""SSH Node Pools for the oracle: the pools file and the `ssh-<pool>` contexts.

SkyPilot 0.14.1 runs SSH Node Pools as Kubernetes contexts named
`ssh-<pool>` in the global kubeconfig (written by `sky ssh up`), restricted
to the pools listed in `~/.sky/ssh_node_pools.yaml` when that file exists
(`sky/clouds/ssh.py::SSH.existing_allowed_contexts`). Here:

* `<scenario>/ssh_node_pools.yaml`, when present, becomes
  `~/.sky/ssh_node_pools.yaml` (`compare.py` copies it for our `sky` too);
* the scenario's `[ssh] contexts` (the pools that are "up") are added to
  `~/.kube/config` (next to any Kubernetes contexts `oracle.py` wrote), with
  a server that is never contacted;
* their nodes come from `<scenario>/kube/<context>.json` through the fake
  `CoreV1Api` `oracle.py` installs for every context (a context without a
  file is unreachable, as for Kubernetes).
"""
import os
import shutil


def install(sc, state):
    del state
    import yaml  # pylint: disable=import-outside-toplevel

    folder = sc['folder']
    src = os.path.join(folder, 'ssh_node_pools.yaml')
    if os.path.exists(src):
        dst = os.path.expanduser('~/.sky/ssh_node_pools.yaml')
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(src, dst)
    contexts = sc.get('ssh', {}).get('contexts', [])
    if not contexts:
        return
    path = os.path.expanduser('~/.kube/config')
    kube = {}
    if os.path.exists(path):
        with open(path, encoding='utf-8') as f:
            kube = yaml.safe_load(f) or {}
    kube.setdefault('apiVersion', 'v1')
    kube.setdefault('kind', 'Config')
    kube.setdefault('clusters', [])
    kube.setdefault('contexts', [])
    kube.setdefault('users', [{'name': 'oracle-user', 'user': {'token': 'oracle'}}])
    user = kube['users'][0]['name']
    for ctx in contexts:
        kube['clusters'].append({
            'name': f'cluster-{ctx}',
            # Never contacted: the API client is replaced by a fake.
            'cluster': {'server': 'https://127.0.0.1:1'},
        })
        kube['contexts'].append({
            'name': ctx,
            'context': {'cluster': f'cluster-{ctx}', 'user': user,
                        'namespace': 'default'},
        })
    # `sky ssh up` leaves the current context alone; with no Kubernetes
    # context at all, the first pool's is current (as in a fresh kubeconfig).
    kube.setdefault('current-context', contexts[0])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        yaml.safe_dump(kube, f, sort_keys=False)
