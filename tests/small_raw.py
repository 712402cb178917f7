"""A small raw folder written by the tests themselves: two instances, one comparison."""

from __future__ import annotations

import json
from pathlib import Path

PRICE_DATE = "2024-06-01"  # its newest price (prices/p2.csv): the date its report is published under

SUMMARY_HEADER = ("division,availability,submitter,system,number_of_nodes,host_processor_model_name,"
                  "host_processors_count,accelerator_model_name,accelerators_count,framework,notes,private_id,"
                  "bert,resnet,details_url,code_url")


def write_small_raw(raw: Path) -> Path:
    (raw / "prices").mkdir(parents=True)
    (raw / "results").mkdir()
    (raw / "systems").mkdir()
    (raw / "throughput").mkdir()
    (raw / "instances.csv").write_text(
        "provider,instance_type,accelerator,accelerator_count,accelerator_memory_gb,vcpus,memory_gib,notes,"
        "accelerator_model,billing\n"
        "aws,big.8x,NVIDIA A100-SXM4-40GB,8,40,96,1152,,A100-SXM-40GB,instance\n"
        "aws,small.8x,NVIDIA V100-SXM2-16GB,8,16,64,488,,V100-SXM2-16GB,instance\n")
    (raw / "accelerators.csv").write_text(
        "model,vendor,name_regex,system_regex,memory_gb,cloud_model,assumption\n"
        "A100-SXM-40GB,NVIDIA,a100 sxm4? 40gb,,,A100-SXM-40GB,\n"
        "V100-SXM2-16GB,NVIDIA,v100 sxm2 16gb,,,V100-SXM2-16GB,\n")
    (raw / "mappings.csv").write_text(
        "provider,instance_type,benchmark,system,note\n"
        "aws,big.8x,resnet,sysA,exact\n"
        "aws,small.8x,resnet,sysB,exact\n"
        "aws,big.8x,bert,sysA,exact\n"
        "aws,small.8x,bert,,no result for V100\n")
    (raw / "prices" / "p1.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\n"
        "aws,us-east-1,big.8x,30.0,2024-01-01,list A\n"
        "aws,us-east-1,small.8x,20.0,2024-01-01,list A\n")
    (raw / "prices" / "p2.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\n"
        "aws,us-east-1,big.8x,24.0,2024-06-01,list B\n")
    url = "https://github.com/mlcommons/training_results_v1.0/blob/main/Sub/systems/{}.json"
    (raw / "results" / "summary.csv").write_text(
        SUMMARY_HEADER + "\n"
        f"closed,onprem,Sub,System A,1,CPU,2,A100,8,fw,,,20.0,30.0,{url.format('sysA')},x\n"
        f"closed,onprem,Sub,System B,1,CPU,2,V100,8,fw,,,,90.0,{url.format('sysB')},x\n")
    for name, accel in (("sysA", "NVIDIA A100-SXM4-80GB"), ("sysB", "NVIDIA V100-SXM2-16GB")):
        (raw / "systems" / f"{name}.json").write_text(json.dumps({
            "submitter": "Sub", "division": "closed", "status": "onprem", "system_name": f"System {name[-1]}",
            "number_of_nodes": "1", "host_processors_per_node": "2", "host_processor_model_name": "CPU X",
            "accelerators_per_node": "8", "accelerator_model_name": accel, "framework": "fw 1.0",
            "other_software_stack": {"cuda": "11"}, "operating_system": "Linux",
        }))
    (raw / "throughput" / "t.csv").write_text(
        "system,benchmark,samples_per_second,framework,precision,global_batch_size,source,measured_on\n"
        "sysA,resnet,1000,fw,fp16,256,our lab,2024-02-02\n")
    (raw / "report.toml").write_text(
        'title = "Small"\nbenchmarks = ["resnet", "bert"]\n[regions]\naws = "us-east-1"\n'
        '[[comparisons]]\nid = "one"\ntitle = "Big against small"\nbaseline = "aws/small.8x"\n'
        'instances = ["aws/big.8x", "aws/small.8x"]\n')
    return raw
