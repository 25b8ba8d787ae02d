"""Slurm for the oracle: `~/.slurm/config` and the login nodes from the scenario.

SkyPilot 0.14.1 reads the clusters from `~/.slurm/config` (an OpenSSH config:
one `Host` per cluster) and runs `sinfo` / `scontrol` / `srun` on each
cluster's login node over SSH (`sky.adaptors.slurm.SlurmClient`). Here:

* `<scenario>/slurm/config` becomes `~/.slurm/config` (what our `sky` reads
  too: `compare.py` copies it into its HOME);
* `SlurmClient._run_slurm_cmd` — the one place every login-node command goes
  through on the optimizer path — runs `fixtures/slurm/fake-ssh` instead of
  `ssh`, with the destination and command line SkyPilot's SSH runner would
  use. The fake answers from `<scenario>/slurm/hosts/<HostName>/` and is the
  same program our `sky` runs (`SKY_SLURM_SSH`), so both see the same bytes.

Every command is recorded in `state['slurm_commands']` (and appended to the
file `$SLURM_ORACLE_LOG` names, when set, to see what SkyPilot asks).
"""
import os
import shlex
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
FAKE_SSH = os.path.join(REPO, 'fixtures', 'slurm', 'fake-ssh')


def install(sc, state):
    # pylint: disable=import-outside-toplevel
    from sky.adaptors import slurm as slurm_adaptor

    folder = sc['folder']
    src = os.path.join(folder, 'slurm', 'config')
    if os.path.exists(src):
        dst = os.path.expanduser('~/.slurm/config')
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(src, dst)
    hosts = os.path.join(folder, 'slurm', 'hosts')
    commands = state.setdefault('slurm_commands', [])

    def run_slurm_cmd(self, cmd, timeout=None):
        commands.append(f"{self.ssh_host}: {cmd}")
        if os.environ.get("SLURM_ORACLE_LOG"):
            with open(os.environ["SLURM_ORACLE_LOG"], "a") as f:
                f.write(commands[-1] + "\n")
        argv = [FAKE_SSH, '-T', '-p', str(self.ssh_port)]
        if self.ssh_key:
            argv += ['-i', self.ssh_key]
        argv += [f'{self.ssh_user}@{self.ssh_host}',
                 '/bin/bash --login -c ' + shlex.quote(cmd)]
        env = dict(os.environ, SKY_SLURM_FIXTURE_DIR=hosts)
        p = subprocess.run(argv,
                           env=env,
                           capture_output=True,
                           text=True,
                           timeout=timeout,
                           check=False)
        return p.returncode, p.stdout, p.stderr

    slurm_adaptor.SlurmClient._run_slurm_cmd = run_slurm_cmd  # pylint: disable=protected-access
