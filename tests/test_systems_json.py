"""parse_system_json on systems JSON shaped like real submissions."""

from __future__ import annotations

import json

import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.systems_json import parse_system_json
from tests import mlperf_fixtures as fx


def write(tmp_path, name="dgxa100_ngc21.05_pytorch", **fields):
    return fx.write_system_json(tmp_path / "NVIDIA", name, **fields)


def test_string_counts_and_total_accelerators(tmp_path):
    desc = parse_system_json(write(tmp_path, number_of_nodes="2", accelerators_per_node="8"))
    assert desc["number_of_nodes"] == 2 and desc["accelerators_per_node"] == 8
    assert desc["accelerators_total"] == 16
    assert desc["host_processors_per_node"] == 2


def test_file_stem_is_the_system_and_system_name_is_kept(tmp_path):
    path = write(tmp_path, "gpu-v100-8-TF2.0", system_name="8xV100")
    desc = parse_system_json(path)
    assert desc["system"] == "gpu-v100-8-TF2.0" and desc["system_name"] == "8xV100"
    assert desc["submitter"] == "NVIDIA" and desc["file"] == str(path)


def test_software_stack_dict_or_string(tmp_path):
    as_dict = parse_system_json(write(tmp_path, other_software_stack={"cuda_version": "11.3", "nccl": "", "dali": "1.0"}))
    assert as_dict["software"] == "cuda_version: 11.3; dali: 1.0"
    as_text = parse_system_json(write(tmp_path, other_software_stack="synapseai 0.14.0"))
    assert as_text["software"] == "synapseai 0.14.0"
    placeholder = parse_system_json(write(tmp_path, other_software_stack="TODO"))
    assert placeholder["software"] is None


@pytest.mark.parametrize("placeholder", ["TODO", "", "N/A", "  todo "])
def test_placeholders_are_unknown(tmp_path, placeholder):
    desc = parse_system_json(write(tmp_path, operating_system=placeholder, accelerator_memory_capacity=placeholder,
                                   host_processors_per_node=placeholder))
    assert desc["operating_system"] is None and desc["accelerator_memory_capacity"] is None
    assert desc["host_processors_per_node"] is None


def test_all_keys_present(tmp_path):
    desc = parse_system_json(write(tmp_path))
    assert list(desc) == [
        "system", "system_name", "submitter", "division", "status", "number_of_nodes",
        "accelerators_per_node", "accelerators_total", "accelerator_model_name",
        "accelerator_memory_capacity", "host_processor_model_name", "host_processors_per_node",
        "host_memory_capacity", "framework", "software", "operating_system", "file"]


def test_invalid_json_names_line_and_column(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{\n  "submitter": "X",\n  "number_of_nodes": 1\n  "x": 2}')
    with pytest.raises(InputError) as error:
        parse_system_json(path)
    assert error.value.where == "line 4 column 3" and "invalid JSON" in error.value.problem


@pytest.mark.parametrize("value", ["eight", "TODO", "", "1.5", "-1", None, [8]])
def test_bad_or_missing_count_names_json_path(tmp_path, value):
    fields = {"accelerators_per_node": value}
    path = write(tmp_path, **fields)
    with pytest.raises(InputError) as error:
        parse_system_json(path)
    assert error.value.where == "$.accelerators_per_node"


def test_missing_number_of_nodes(tmp_path):
    path = write(tmp_path)
    desc = json.loads(path.read_text())
    del desc["number_of_nodes"]
    path.write_text(json.dumps(desc))
    with pytest.raises(InputError) as error:
        parse_system_json(path)
    assert error.value.where == "$.number_of_nodes" and "missing" in error.value.problem


def test_zero_nodes_is_an_error(tmp_path):
    with pytest.raises(InputError, match="at least 1"):
        parse_system_json(write(tmp_path, number_of_nodes="0"))


def test_not_an_object_and_not_utf8(tmp_path):
    listing = tmp_path / "list.json"
    listing.write_text("[1, 2]")
    with pytest.raises(InputError, match="expected a JSON object"):
        parse_system_json(listing)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"system_name": "caf\xe9"}')
    with pytest.raises(InputError, match="not UTF-8"):
        parse_system_json(latin)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        parse_system_json(tmp_path / "nope.json")
