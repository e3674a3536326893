"""The version of every JSON document gpupool writes for scripts.

One number for all machine-readable output (validate, plan, preview, drift, catalog, node
reports, render manifests): a consumer checks ``format_version`` once, whatever command wrote
the document. It changes only when a field is removed or changes meaning; added fields keep it.
"""

FORMAT_VERSION = "1"
