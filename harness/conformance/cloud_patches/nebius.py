"""Nebius: the tenant's own prices, from the scenario folder.

SkyPilot 0.14.1's `sky/catalog/nebius_catalog.py::_get_df` (personal pricing
on by default, a tenant id configured) lists the tenant's projects
(`_get_region_projects`), each region's platforms
(`fetch_nebius.fetch_platforms_for_project`) and two billing estimates per
preset (`fetch_nebius.estimate_platforms`), writes `vms_<tenant>.csv`
(`fetch_nebius.write_preset_prices`) and overlays it on the static catalog.
The conformance venv has neither the `nebius` SDK nor protobuf, so
unpatched SkyPilot falls back to the static catalog -- which is also what
our `sky` does without offline answers.

With `<scenario>/nebius/api.json` (the file our `sky` reads through
`SKY_NEBIUS_API_DIR`; format in `optimizer/src/clouds/nebius/pricing.rs`),
this patch stands in for the SDK only: the message classes and the three
service clients answer from the file, so SkyPilot's own walk, skip rules,
CSV writing, file caching and `concat`/`drop_duplicates` run unchanged.
The calls are recorded in `state['nebius_calls']`.
"""
import importlib
import json
import os
import sys
import types


class _Msg:
    """A protobuf message stand-in: keyword fields as attributes."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)


def install(sc, state):
    path = os.path.join(sc['folder'], 'nebius', 'api.json')
    if not os.path.exists(path):
        return
    with open(path, encoding='utf-8') as f:
        api = json.load(f)
    calls = state.setdefault('nebius_calls', [])

    class RequestError(Exception):
        pass

    # -- compute.v1 ---------------------------------------------------------
    class CreateInstanceRequest(_Msg):
        __PROTO_FULL_NAME__ = 'nebius.compute.v1.CreateInstanceRequest'

        def SerializeToString(self):  # pylint: disable=invalid-name
            return json.dumps({
                'parent_id': self.metadata.parent_id,
                'platform': self.spec.resources.platform,
                'preset': self.spec.resources.preset,
                'preemptible': getattr(self.spec, 'preemptible', None)
                               is not None,
            }).encode()

    class PreemptibleSpec(_Msg):
        PreemptionPolicy = types.SimpleNamespace(STOP=1)

    class PlatformServiceClient:

        def __init__(self, sdk):
            del sdk

        def list(self, request, timeout=None):
            del timeout
            project = request.parent_id
            calls.append(f'PlatformService.List({project})')
            items = []
            for p in api.get('platforms', {}).get(project, []):
                presets = [
                    _Msg(name=s['name'],
                         resources=_Msg(vcpu_count=s['vcpu_count'],
                                        memory_gibibytes=s['memory_gibibytes'],
                                        gpu_count=s.get('gpu_count', 0)))
                    for s in p.get('presets', [])
                ]
                items.append(
                    _Msg(metadata=_Msg(name=p['name']),
                         spec=_Msg(presets=presets,
                                   gpu_memory_gigabytes=p.get(
                                       'gpu_memory_gigabytes', 0))))
            return _Msg(wait=lambda: _Msg(items=items))

    compute = types.SimpleNamespace(
        CreateInstanceRequest=CreateInstanceRequest,
        InstanceSpec=_Msg,
        ResourcesSpec=_Msg,
        PreemptibleSpec=PreemptibleSpec,
        FollowsSpotPriceSpec=_Msg,
        ListPlatformsRequest=_Msg,
        PlatformServiceClient=PlatformServiceClient,
    )

    # -- iam.v1 -------------------------------------------------------------
    class ProjectServiceClient:

        def __init__(self, sdk):
            del sdk

        def list(self, request, timeout=None):
            del timeout
            calls.append(f'ProjectService.List({request.parent_id})')
            items = [
                _Msg(metadata=_Msg(id=p['id']), status=_Msg(region=p['region']))
                for p in api.get('projects', [])
            ]

            async def answer():
                return _Msg(items=items)

            return answer()

    iam = types.SimpleNamespace(ListProjectsRequest=_Msg,
                                ProjectServiceClient=ProjectServiceClient)

    # -- billing.v1 ---------------------------------------------------------
    class TotalCost(_Msg):

        def WhichOneof(self, name):  # pylint: disable=invalid-name
            del name
            return 'general'

    class CalculatorServiceClient:

        def __init__(self, sdk):
            del sdk

        def estimate_batch(self, request, timeout=None):
            del timeout
            spec = json.loads(request.resource_specs[0].spec.value)
            key = f"{spec['parent_id']}/{spec['platform']}/{spec['preset']}"
            kind = 'spot' if spec['preemptible'] else 'on_demand'
            calls.append(f'CalculatorService.EstimateBatch({key}, {kind})')
            entry = api.get('estimates', {}).get(key, {}).get(kind)

            async def answer():
                if entry is None:
                    raise RequestError('INVALID_ARGUMENT: unresolved sku')
                if isinstance(entry, dict):
                    raise RequestError(entry['error'])
                return _Msg(total_costs=[
                    TotalCost(aggregation_unit=_Msg(unit='hour'),
                              general=_Msg(total=_Msg(cost=entry)))
                ])

            return answer()

    class FilterAggregationUnit(_Msg):
        FilterAggregationUnitValue = types.SimpleNamespace(
            FILTER_AGGREGATION_UNIT_HOUR=2)

    # A class, not a namespace: `fetch_nebius` uses it in type annotations
    # (`Optional[List[OfferType]]`), which hash their arguments.
    class offer_type:  # pylint: disable=invalid-name
        OFFER_TYPE_CONTRACT_PRICE = 1

    billing = types.SimpleNamespace(
        OfferType=offer_type,
        ResourceSpec=_Msg,
        EstimateBatchRequest=_Msg,
        FilterAggregationUnit=FilterAggregationUnit,
        CalculatorServiceClient=CalculatorServiceClient,
    )
    common = types.SimpleNamespace(ResourceMetadata=_Msg)

    # -- the adaptor: only the SDK entry points are replaced ----------------
    # pylint: disable=import-outside-toplevel
    from sky.adaptors import nebius as nebius_adaptor
    nebius_adaptor.sdk = lambda: object()
    nebius_adaptor.iam = lambda: iam
    nebius_adaptor.compute = lambda: compute
    nebius_adaptor.billing = lambda: billing
    nebius_adaptor.nebius_common = lambda: common
    nebius_adaptor.request_error = lambda: RequestError

    # `fetch_nebius` imports protobuf and the SDK at module level; give it
    # stand-ins for the import only, then take them away again so no other
    # cloud sees a fake `google` or `nebius` package.
    any_cls = type('Any', (_Msg,), {})
    stubs = {
        'google': types.ModuleType('google'),
        'google.protobuf': types.ModuleType('google.protobuf'),
        'google.protobuf.any_pb2': types.ModuleType('google.protobuf.any_pb2'),
        'nebius': types.ModuleType('nebius'),
        'nebius.api': types.ModuleType('nebius.api'),
        'nebius.api.nebius': types.ModuleType('nebius.api.nebius'),
        'nebius.api.nebius.billing': types.ModuleType('nebius.api.nebius.billing'),
        'nebius.api.nebius.billing.v1':
            types.ModuleType('nebius.api.nebius.billing.v1'),
        'nebius.api.google': types.ModuleType('nebius.api.google'),
        'nebius.api.google.protobuf':
            types.ModuleType('nebius.api.google.protobuf'),
    }
    stubs['google.protobuf'].any_pb2 = stubs['google.protobuf.any_pb2']
    stubs['nebius.api.nebius.billing.v1'].OfferType = offer_type
    stubs['nebius.api.google.protobuf'].Any = any_cls
    saved = {name: sys.modules.get(name) for name in stubs}
    sys.modules.update(stubs)
    try:
        sys.modules.pop('sky.catalog.data_fetchers.fetch_nebius', None)
        importlib.import_module('sky.catalog.data_fetchers.fetch_nebius')
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
