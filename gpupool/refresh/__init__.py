"""Reading current prices from a vendor's own API, for ``gpupool catalog refresh``.

One module per vendor, each the only importer of that vendor's SDK, imported when a refresh
runs (the SDK is an optional extra): ``aws`` (boto3: the Price List API and EC2's spot price
history). What they return is plain data; the use case writes it as the catalog's local overlay.
"""
