"""SkyPilot 0.14.1 as an engine of the harness: one `sky launch --dryrun`
per process, the way its optimizer path runs, against the scenario's mocks.

The harness runs this file with the SkyPilot venv's Python (see
`harness/skypilot/README.md`), in a sandbox HOME whose environment points
SkyPilot at the mocks (`AWS_ENDPOINT_URL_STS`/`_EC2`, a kubeconfig, a
`gcloud` stand-in first on `PATH`). Two commands:

  driver.py state --clouds aws,gcp,...
      records the enabled clouds in SkyPilot's own state database, as
      `sky check` leaves them (`global_user_state.set_enabled_clouds` for the
      compute capability, `set_allowed_clouds` for the workspace), so that a
      launch finds them there and runs no check of its own.

  driver.py launch --result FILE -- <sky launch flags>
      what `sky launch --dryrun -y <flags>` runs up to the "Considered
      resources" table, in this one process (as SkyPilot before its API
      server ran it, and as 0.14.1's server worker runs it): `import sky`,
      the click command building the task from the flags
      (`sky.client.cli.command.launch`, with the SDK's `launch` captured),
      the DAG validated, then `Optimizer.optimize(dag, quiet=False)`, which
      prints the table. Exit 0 with a plan, 1 on SkyPilot's answer that
      the request cannot be met (its message on stderr), 2 on a usage
      error, 4 on any other exception (a crash), 5 when anything tried to
      leave loopback.

Nothing leaves the machine: before `sky` is imported, every socket connect
and name lookup that is not loopback (or a Unix socket) is refused and
counted; the count is in the result file and makes the exit code 5.

With `SKYPILOT_TIMELINE_FILE_PATH` set (the harness's traced launches),
SkyPilot writes its Chrome-format timeline at exit, and this driver adds
events named `harness: ...` to it: the import, the task, the validation,
each enabled cloud's `get_feasible_launchable_resources`, each catalog file
read by pandas and each subprocess SkyPilot runs through
`run_with_retries` (`gcloud`). They only name spans of SkyPilot's own work;
untraced launches run SkyPilot unwrapped.
"""
import json
import os
import socket
import sys
import threading
import time

# Before anything else: the spawn-to-start gap is measured from here.
_SCRIPT_START_US = time.time() * 1e6

_LOOPBACK = ('127.', '::1', 'localhost')
_ATTEMPTS = []


def _loopback(address) -> bool:
    host = address[0] if isinstance(address, tuple) else str(address)
    return any(str(host).startswith(p) for p in _LOOPBACK)


def _install_network_guard() -> None:
    """Refuses every connection and lookup that is not loopback."""
    orig_connect = socket.socket.connect
    orig_connect_ex = socket.socket.connect_ex
    orig_getaddrinfo = socket.getaddrinfo

    def refuse(what):
        _ATTEMPTS.append(str(what))
        raise ConnectionRefusedError(
            f'harness: the SkyPilot engine may only reach loopback, not {what}')

    def connect(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(
                address):
            refuse(address)
        return orig_connect(sock, address)

    def connect_ex(sock, address):
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(
                address):
            refuse(address)
        return orig_connect_ex(sock, address)

    def getaddrinfo(host, *args, **kwargs):
        if host is not None and not _loopback((host,)):
            refuse(host)
        return orig_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect
    socket.socket.connect_ex = connect_ex
    socket.getaddrinfo = getaddrinfo


class _Phases:
    """Wall-clock phases of this process, unix microseconds."""

    def __init__(self):
        self.items = []

    def add(self, name, start_us, end_us):
        self.items.append({'name': name, 'start_us': start_us, 'end_us': end_us})


def _traced() -> bool:
    return bool(os.environ.get('SKYPILOT_TIMELINE_FILE_PATH'))


def _add_timeline_event(name, start_us, end_us):
    """A finished span in SkyPilot's own timeline (same format, same clock)."""
    from sky.utils import timeline  # pylint: disable=import-outside-toplevel
    base = {'name': name, 'cat': 'event', 'pid': str(os.getpid()),
            'tid': str(threading.current_thread().ident),
            'args': {}}
    timeline._events.append(dict(base, ph='B', ts=f'{start_us: .3f}'))  # pylint: disable=protected-access
    timeline._events.append(dict(base, ph='E', ts=f'{end_us: .3f}'))  # pylint: disable=protected-access


def _wrap_for_timeline() -> None:
    """Names SkyPilot's per-cloud checks, catalog reads and subprocesses in
    its timeline (only when it is being written)."""
    # pylint: disable=import-outside-toplevel
    from sky.catalog import common as catalog_common
    from sky.clouds import cloud as cloud_lib
    from sky.utils import subprocess_utils
    from sky.utils import timeline

    feasible = cloud_lib.Cloud.get_feasible_launchable_resources

    def get_feasible_launchable_resources(self, *args, **kwargs):
        with timeline.Event(f'harness: check {self!r}'):
            return feasible(self, *args, **kwargs)

    cloud_lib.Cloud.get_feasible_launchable_resources = (
        get_feasible_launchable_resources)

    load = catalog_common.LazyDataFrame._load_df  # pylint: disable=protected-access
    root = catalog_common.get_catalog_path('')

    def _load_df(self):
        if self._df is None:  # pylint: disable=protected-access
            name = os.path.relpath(self._filename, root)  # pylint: disable=protected-access
            with timeline.Event(f'harness: catalog {name}'):
                return load(self)
        return load(self)

    catalog_common.LazyDataFrame._load_df = _load_df  # pylint: disable=protected-access

    run_with_retries = subprocess_utils.run_with_retries

    def run_with_retries_traced(cmd, *args, **kwargs):
        words = str(cmd).split()
        label = ' '.join(words[:4]) if words else 'subprocess'
        with timeline.Event(f'harness: subprocess {label}'):
            return run_with_retries(cmd, *args, **kwargs)

    subprocess_utils.run_with_retries = run_with_retries_traced


def _write(path, doc) -> None:
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        json.dump(doc, f)
    os.replace(tmp, path)


def _spawn_us():
    value = os.environ.get('HARNESS_SPAWN_UNIX_US')
    try:
        return float(value) if value else None
    except ValueError:
        return None


def record_state(clouds) -> int:
    """Enabled clouds into SkyPilot's state, as `sky check` stores them."""
    # pylint: disable=import-outside-toplevel
    from sky import check
    from sky import global_user_state
    from sky import skypilot_config
    from sky.clouds import cloud as cloud_lib
    from sky.utils import registry
    workspace = skypilot_config.get_active_workspace()
    names = [repr(registry.CLOUD_REGISTRY.from_str(c)) for c in clouds]
    global_user_state.set_enabled_clouds(names,
                                         cloud_lib.CloudCapability.COMPUTE,
                                         workspace)
    global_user_state.set_allowed_clouds(
        check._get_workspace_allowed_clouds(workspace), workspace)  # pylint: disable=protected-access
    stored = [
        repr(c) for c in global_user_state.get_cached_enabled_clouds(
            cloud_lib.CloudCapability.COMPUTE, workspace)
    ]
    print(json.dumps({'workspace': workspace, 'enabled': stored}))
    return 0 if stored == names else 1


class _Captured(Exception):

    def __init__(self, obj):
        super().__init__('captured')
        self.obj = obj


def launch(flags, result_path) -> int:
    phases = _Phases()
    spawn = _spawn_us()
    if spawn is not None:
        phases.add('python start-up', spawn, _SCRIPT_START_US)
    exit_code = 0
    error = None
    try:
        t0 = time.time() * 1e6
        # pylint: disable=import-outside-toplevel
        import sky
        from sky import optimizer
        from sky.client import sdk
        from sky.client.cli import command
        from sky.utils import dag_utils
        t1 = time.time() * 1e6
        phases.add('import sky', t0, t1)
        if _traced():
            _wrap_for_timeline()
            _add_timeline_event('harness: import sky', t0, t1)

        # The click command turns the flags into a Task and hands it to
        # sdk.launch, which would send it to the API server: take it there.
        def capture(task, **kwargs):
            del kwargs
            raise _Captured(task)

        sdk.launch = capture
        t0 = time.time() * 1e6
        task = None
        try:
            command.launch.main(args=['--dryrun', '-y'] + list(flags),
                                prog_name='sky launch',
                                standalone_mode=False)
        except _Captured as c:
            task = c.obj
        if task is None:
            raise RuntimeError('the CLI returned without launching a task')
        t1 = time.time() * 1e6
        phases.add('task from flags', t0, t1)
        if _traced():
            _add_timeline_event('harness: task from flags', t0, t1)

        t0 = time.time() * 1e6
        dag = dag_utils.convert_entrypoint_to_dag(task)
        dag.validate()
        t1 = time.time() * 1e6
        phases.add('validate', t0, t1)
        if _traced():
            _add_timeline_event('harness: validate', t0, t1)

        t0 = time.time() * 1e6
        optimizer.Optimizer.optimize(dag, quiet=False)
        phases.add('optimize', t0, time.time() * 1e6)
        del sky
    except BaseException as e:  # pylint: disable=broad-except
        # 1: SkyPilot's answer to the request (its own exceptions, or the
        # ValueError a Resources setter raises); 2: click's usage errors;
        # 4: anything else, a crash of SkyPilot (or of this driver).
        name = type(e).__name__
        module = type(e).__module__
        if name in ('UsageError', 'BadParameter', 'NoSuchOption'):
            exit_code = 2
        elif module.startswith('sky.') or isinstance(e, ValueError):
            exit_code = 1
        else:
            exit_code = 4
        error = f'{module}.{name}: {e}'
        print(error, file=sys.stderr)
    sys.stdout.flush()
    if _ATTEMPTS:
        exit_code = 5
        print(f'harness: {len(_ATTEMPTS)} attempt(s) to leave loopback: '
              f'{_ATTEMPTS[:5]}', file=sys.stderr)
    _write(
        result_path, {
            'end_us': time.time() * 1e6,
            'exit_code': exit_code,
            'error': error,
            'phases': phases.items,
            'network_attempts': _ATTEMPTS,
            'cpu_count': os.cpu_count(),
            'pid': os.getpid(),
        })
    return exit_code


def main(argv) -> int:
    _install_network_guard()
    if len(argv) >= 3 and argv[0] == 'state' and argv[1] == '--clouds':
        return record_state([c for c in argv[2].split(',') if c])
    if len(argv) >= 3 and argv[0] == 'launch' and argv[1] == '--result':
        rest = argv[3:]
        if rest and rest[0] == '--':
            rest = rest[1:]
        return launch(rest, argv[2])
    print('usage: driver.py state --clouds C1,C2 | '
          'launch --result FILE -- <sky launch flags>',
          file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
