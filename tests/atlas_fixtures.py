"""Small MLPerf corpora for the atlas tests, written by the tests themselves (never copied logs).

Each quirk of the published trees gets its own writer; times are chosen so that the olympic mean
can be checked by hand (see tests/mlperf_fixtures.py for the log format).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.mlperf_fixtures import converged, run_log, write_log, write_power_logs, write_system_json

REPO = Path(__file__).resolve().parents[1]
RESNET_5 = [30.0, 31.0, 32.0, 33.0, 40.0]  # olympic mean: (31 + 32 + 33) / 3 = 32.0


def resnet_logs(minutes: list[float] = RESNET_5, **kwargs) -> list[str]:
    return [converged(m, **kwargs) for m in minutes]


def write_logs(folder: Path, logs: list[str | bytes], names: list[str] | None = None) -> Path:
    names = names or [f"result_{i}.txt" for i in range(len(logs))]
    for name, log in zip(names, logs):
        write_log(folder / name, log)
    return folder


def system(round_dir: Path, folder: str, name: str, **fields) -> Path:
    return write_system_json(round_dir / folder, name, **fields)


def rename_field(path: Path, old: str, new: str) -> None:
    """A systems JSON with one field renamed, as submitters misspelled them."""
    desc = json.loads(path.read_text())
    desc[new] = desc.pop(old)
    path.write_text(json.dumps(desc))


def quirk_corpus(root: Path) -> Path:
    """One corpus with every layout quirk the atlas handles; returns the MLPERF_DIR.

    Every entry is here because the official summarizer (mlperf-logging 4.1.68) answers it in a
    particular way: a score, no score, or an error that stops it on the submitter folder.
    """
    v10 = root / "training_results_v1.0"
    v30 = root / "training_results_v3.0"

    # plain result, 8x A100-80GB on premises: the reference point (32.0 minutes)
    system(v10, "Acme", "acme_a100")
    write_logs(v10 / "Acme/results/acme_a100/resnet", resnet_logs())

    # log files named with job ids (as HazyResearch v2.0): every result_*.txt counts
    system(v10, "Hazy", "hazy_a100")
    write_logs(v10 / "Hazy/results/hazy_a100/resnet", resnet_logs(),
               names=[f"result_220520100725096152634_{i}.txt" for i in range(1, 6)])

    # a benchmark folder misplaced inside another (as Habana v1.0 resnet/bert): the summarizer
    # reads resnet/ only, so bert has no score and says why
    system(v10, "Habana", "gaudi8", accelerator_model_name="Habana Gaudi", accelerator_memory_capacity="32 GB")
    write_logs(v10 / "Habana/results/gaudi8/resnet", resnet_logs([60.0, 61.0, 62.0, 63.0, 64.0]))
    bert = [run_log("bert", minutes=m, evals=[(0.70, 1.0), (0.7205, 2.0)]) for m in
            [100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0]]
    write_logs(v10 / "Habana/results/gaudi8/resnet/bert", bert)

    # a `benchmark/` folder: the summarizer takes it for a benchmark it does not know and stops on
    # the whole folder; the other system of that folder is scored as the summarizer scores it alone
    system(v10, "Typo", "typo_sys")
    write_logs(v10 / "Typo/results/typo_sys/benchmark", resnet_logs([20.0, 21.0, 22.0, 23.0, 24.0]))
    system(v10, "Typo", "typo_ok")
    write_logs(v10 / "Typo/results/typo_ok/resnet", resnet_logs([25.0, 26.0, 27.0, 28.0, 29.0]))

    # one organisation over two folders (Supermicro and smc); CRLF logs in the second
    system(v10, "Supermicro", "sys_a", submitter="Supermicro")
    write_logs(v10 / "Supermicro/results/sys_a/resnet", resnet_logs([10.0, 11.0, 12.0, 13.0, 14.0]))
    system(v10, "smc", "sys_b", submitter="Supermicro")
    crlf = [log.replace("\n", "\r\n").encode("latin-1") for log in resnet_logs([15.0, 16.0, 17.0, 18.0, 19.0])]
    write_logs(v10 / "smc/results/sys_b/resnet", crlf)

    # logs with a placeholder organisation and a wrong status: the systems JSON says cloud
    system(v10, "Google", "gcp_v100", submitter="Google", status="Available cloud",
           accelerator_model_name="NVIDIA V100", accelerator_memory_capacity="TODO")
    write_logs(v10 / "Google/results/gcp_v100/resnet",
               resnet_logs([50.0, 51.0, 52.0, 53.0, 54.0], org="SUBMISSION_ORG_PLACEHOLDER"))

    # scaling.json: the olympic mean 32.0 times 1.25 = 40.0
    system(v10, "Scaled", "scaled_sys")
    bench = write_logs(v10 / "Scaled/results/scaled_sys/resnet", resnet_logs())
    (bench / "scaling.json").write_text(json.dumps({"scaling_factor": 1.25}))

    # ssd is SSD-ResNet34 in v1.0 and RetinaNet from v2.0 (targets 0.23 and 0.34)
    ssd_v10 = [run_log("ssd", minutes=m, evals=[(0.10, 1.0), (0.231, 2.0)]) for m in [5.0, 6.0, 7.0, 8.0, 9.0]]
    ssd_v30 = [run_log("ssd", minutes=m, evals=[(0.20, 1.0), (0.341, 2.0)]) for m in [50.0, 60.0, 70.0, 80.0, 90.0]]
    write_logs(v10 / "Acme/results/acme_a100/ssd", ssd_v10)
    system(v30, "Acme", "acme_a100")
    write_logs(v30 / "Acme/results/acme_a100/ssd", ssd_v30)

    # power logs (v4.0 on): the summarizer's energy code reads them for every run that counts; it
    # divides by zero where the stop is logged at the start's time (Sustainable Metal Cloud v4.0)
    for name, stop_at_start in (("smc_ok", False), ("smc_h100", True)):
        system(v30, "Smc", name)
        bench = write_logs(v30 / f"Smc/results/{name}/resnet", resnet_logs([40.0, 41.0, 42.0, 43.0, 44.0]))
        write_power_logs(bench, [f"result_{i}" for i in range(5)], stop_at_start=stop_at_start)

    # results without a systems JSON of their name (as Alibaba v0.7): the summarizer skips them
    write_logs(v10 / "Nojson/results/lost_sys/resnet", resnet_logs())
    (v10 / "Nojson/systems").mkdir(parents=True)
    # a systems JSON that is not JSON: the summarizer stops on it
    (v10 / "Broken/systems").mkdir(parents=True)
    (v10 / "Broken/systems/broken_sys.json").write_text('{"submitter": "Broken",, }')
    write_logs(v10 / "Broken/results/broken_sys/resnet", resnet_logs())
    # three runs where the rules want five: the summarizer scores them (31.0), the rule is flagged
    system(v10, "Short", "short_sys")
    write_logs(v10 / "Short/results/short_sys/resnet", resnet_logs([30.0, 31.0, 32.0]))
    # an accelerator no cloud instance has
    system(v10, "Ipu", "ipu_sys", accelerator_model_name="Graphcore IPU GC200", accelerator_memory_capacity="32GB")
    write_logs(v10 / "Ipu/results/ipu_sys/resnet", resnet_logs())
    # division "close" (PCL v1.0): a closed result to the summarizer, scored (25.0), but its RCP
    # columns (batch size, samples to converge) want "closed" to the letter, so it has none
    system(v10, "Pcl", "pcl_close", division="close")
    write_logs(v10 / "Pcl/results/pcl_close/resnet", resnet_logs([23.0, 24.0, 25.0, 26.0, 27.0]))
    # an open-division result
    system(v10, "Acme", "acme_open", division="open")
    write_logs(v10 / "Acme/results/acme_open/resnet", resnet_logs([20.0, 21.0, 22.0, 23.0, 24.0], division="open"))

    # systems JSON quirks: "number of nodes" with spaces (DellEMC v0.7) stops the summarizer (its
    # runs are scored by the rules, 32.0, the count read from that field); a JSON number 1.0
    # (MosaicML v2.0) is fine
    spaced = system(v10, "Dell", "spaced_sys", accelerator_model_name="Nvidia Tesla V100-SXM2-32GB",
                    accelerator_memory_capacity="32 GB", accelerators_per_node="4")
    rename_field(spaced, "number_of_nodes", "number of nodes")
    write_logs(v10 / "Dell/results/spaced_sys/resnet", resnet_logs())
    floating = system(v10, "Mosaic", "float_sys")
    desc = json.loads(floating.read_text())
    desc["number_of_nodes"] = 1.0
    floating.write_text(json.dumps(desc))
    write_logs(v10 / "Mosaic/results/float_sys/resnet", resnet_logs())

    # systems JSON without "division" (SIAT and Tencent v0.7 write "divison"): the summarizer stops on
    # the system; the runs are scored by the rules, the division read from a name ending in _open
    # (22.0), else unknown (37.0: priced, ranked against neither division)
    for name, minutes, division in (("nodiv_open", [20.0, 21.0, 22.0, 23.0, 24.0], "open"),
                                    ("nodiv_sys", [35.0, 36.0, 37.0, 38.0, 39.0], "closed")):
        rename_field(system(v30, "Nodiv", name), "division", "divison")
        write_logs(v30 / f"Nodiv/results/{name}/resnet", resnet_logs(minutes, division=division))
    # systems JSON without a node count: scored by the rules (32.0 each); the count read from NVIDIA's
    # n<N> token of the name (2 nodes x 8), else unknown (not priced)
    for name in ("nodes_n2_sys", "nodes_sys"):
        desc = json.loads(system(v30, "Nodes", name).read_text())
        del desc["number_of_nodes"]
        (v30 / f"Nodes/systems/{name}.json").write_text(json.dumps(desc))
        write_logs(v30 / f"Nodes/results/{name}/resnet", resnet_logs())

    # a round the rules do not know
    system(root / "training_results_v0.6", "Old", "old_sys")
    write_logs(root / "training_results_v0.6/Old/results/old_sys/resnet", resnet_logs())
    return root
