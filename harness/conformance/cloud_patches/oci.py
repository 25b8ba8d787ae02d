"""OCI: the tenancy's region subscriptions, from the scenario folder.

SkyPilot 0.14.1's `sky/catalog/oci_catalog.py::_get_df` imports the `oci`
SDK, calls `IdentityClient.list_region_subscriptions(tenancy_id=...)` for
the configured profile and keeps only the catalog rows of subscribed
regions. The conformance venv has no `oci` SDK, so unpatched SkyPilot keeps
the whole catalog (`load_module()` raises ImportError) -- which is also what
our `sky` does without offline answers.

With `<scenario>/oci/region_subscriptions.json` (a ListRegionSubscriptions
answer body, the file our `sky` reads through `SKY_OCI_API_DIR`), this patch
stands in for the SDK: `load_module()` succeeds, `get_oci_config` returns a
profile with a tenancy, and the identity client answers from the file.
Everything above the SDK (profile selection, the `isin` filter, the
fallbacks) is SkyPilot's own code. The calls are recorded in
`state['oci_calls']`.
"""
import json
import os
import types


def install(sc, state):
    path = os.path.join(sc['folder'], 'oci', 'region_subscriptions.json')
    if not os.path.exists(path):
        return
    with open(path, encoding='utf-8') as f:
        answer = json.load(f)
    calls = state.setdefault('oci_calls', [])

    # pylint: disable=import-outside-toplevel
    from sky.adaptors import oci as oci_adaptor

    class ConfigFileNotFound(Exception):
        pass

    class InvalidConfig(Exception):
        pass

    class ServiceError(Exception):
        pass

    fake_sdk = types.SimpleNamespace(
        load_module=lambda: None,
        exceptions=types.SimpleNamespace(ConfigFileNotFound=ConfigFileNotFound,
                                         InvalidConfig=InvalidConfig,
                                         ServiceError=ServiceError),
    )
    oci_adaptor.oci = fake_sdk

    tenancy = 'ocid1.tenancy.oc1..conformanceoracle'

    def get_oci_config(region=None, profile='DEFAULT'):
        calls.append(f'get_oci_config(profile={profile!r})')
        config = {'tenancy': tenancy, 'region': 'us-chicago-1'}
        if region is not None:
            config['region'] = region
        return config

    class IdentityClient:

        def list_region_subscriptions(self, tenancy_id):
            calls.append(f'list_region_subscriptions({tenancy_id})')
            data = [
                types.SimpleNamespace(region_name=s.get('regionName'),
                                      region_key=s.get('regionKey'),
                                      status=s.get('status'),
                                      is_home_region=s.get('isHomeRegion'))
                for s in answer
            ]
            return types.SimpleNamespace(data=data)

    def get_identity_client(region=None, profile='DEFAULT'):
        calls.append(f'get_identity_client(profile={profile!r})')
        return IdentityClient()

    oci_adaptor.get_oci_config = get_oci_config
    oci_adaptor.get_identity_client = get_identity_client
