"""Azure Retail Prices reader. Not implemented yet."""
from pipelines.errors import InputError


def read_azure_json(doc, path, rel, instances):
    raise InputError(path, None, "Azure Retail Prices JSON is not supported yet")
