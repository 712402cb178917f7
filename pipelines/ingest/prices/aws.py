"""AWS Price List readers (CSV and JSON). Not implemented yet."""
from pipelines.errors import InputError


def read_aws_csv(path, rel, instances):
    raise InputError(path, None, "AWS Price List CSV is not supported yet")


def read_aws_json(doc, path, rel, instances):
    raise InputError(path, None, "AWS Price List JSON is not supported yet")
