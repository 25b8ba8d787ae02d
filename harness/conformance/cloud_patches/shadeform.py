"""Shadeform: the hosted catalog, for a scenario without the catalog file.

SkyPilot 0.14.1's `shadeform_catalog._get_df` means to tolerate a missing
`shadeform/vms.csv` (`except FileNotFoundError`: an empty table), but
`common.read_catalog` is lazy and never raises it: the first query
downloads the file from the hosted catalog
(`constants.HOSTED_CATALOG_DIR_URL/v8/shadeform/vms.csv`) instead. Offline
that is a network attempt and a `CloudError`. This patch answers that one
download with the upstream snapshot the hosted catalog served
(`fixtures/gen-catalogs/data/upstream/shadeform/vms.csv`, provenance in
`fixtures/catalogs/README.md`), which is what `sky` bundles. Any other
request still meets the network guard. Downloads are recorded in
`state['catalog_downloads']`.
"""
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
_SNAPSHOT = os.path.join(_HERE, '..', '..', '..', 'fixtures', 'gen-catalogs',
                         'data', 'upstream', 'shadeform', 'vms.csv')


def install(sc, state):
    del sc  # the answer is the same for every scenario
    import requests  # pylint: disable=import-outside-toplevel

    from sky.skylet import constants  # pylint: disable=import-outside-toplevel

    url = (f'{constants.HOSTED_CATALOG_DIR_URL}/'
           f'{constants.CATALOG_SCHEMA_VERSION}/shadeform/vms.csv')
    downloads = state.setdefault('catalog_downloads', [])
    real_get = requests.get

    def get(*args, **kwargs):
        asked = kwargs.get('url', args[0] if args else None)
        if asked != url:
            return real_get(*args, **kwargs)
        downloads.append(asked)
        response = requests.models.Response()
        response.status_code = 200
        response.url = asked
        with open(_SNAPSHOT, 'rb') as f:
            response._content = f.read()  # pylint: disable=protected-access
        response.encoding = 'utf-8'
        return response

    requests.get = get
