"""Global batch size and samples to converge from result trees, against values worked out by hand
from the logs the tests write (the official tool's answers on real logs: tests/test_atlas_official)."""

from __future__ import annotations

import pytest

from pipelines.ingest.mlperf.convergence import NOT_CONVERGED, Unreadable, read_file
from pipelines.ingest.mlperf.logs import read_log
from pipelines.domain.mlperf import training_samples
from pipelines.ingest.mlperf.tree import score_trees
from tests.mlperf_fixtures import (aborted, converged, run_log, stable_diffusion_log, truncated_line, write_benchmark,
                                   write_log, write_system_json)

IMAGENET = 1_281_167  # ResNet-50's training images: one epoch in samples


def _entry(round_dir, logs, benchmark="resnet", **system):
    if system:
        write_system_json(round_dir / "ExampleCorp", "sys", **system)
    write_benchmark(round_dir, "ExampleCorp", "sys", benchmark, logs)
    _, scores = score_trees([round_dir])
    row = scores.row(0, named=True)
    return row["global_batch_size"], row["summarizer_samples_to_converge"], row["samples_to_converge"]


def _resnet(epochs: float, **kwargs) -> str:
    return converged(30.0, evals=[(0.5, epochs - 4), (0.7601, epochs)], **kwargs)


def test_olympic_mean_of_the_epochs_in_training_samples(tmp_path):
    logs = [_resnet(e) for e in (16, 18, 17, 20, 19)]
    # sorted 16 17 18 19 20, one dropped at each end: (17 + 18 + 19) / 3 = 18 epochs
    assert _entry(tmp_path / "training_results_v1.0", logs) == (3264, 18.0, 18 * IMAGENET)


def test_the_mean_of_eight_kept_runs_is_numpys_as_the_tools(tmp_path):
    """The summarizer takes np.mean of the kept runs: numpy sums eight or more values pairwise, which can differ from
    a plain sum in the last bit (v3.1's dlrm_dcnv2 entries did). Ten runs, the middle eight by hand:
    37.05 + 37.15 + 37.85 + 39.52 + 39.59 + 41.12 + 42.55 + 43.02 = 317.85, / 8 = 39.73125; a plain left-to-right
    sum gives 39.731249999999996."""
    epochs = (39.52, 37.85, 43.02, 32.26, 44.93, 41.12, 37.05, 39.59, 42.55, 37.15)
    middle = sorted(epochs)[1:-1]
    assert sum(middle) / len(middle) == 39.731249999999996  # what the plain sum gave
    _, official, _ = _entry(tmp_path / "training_results_v1.0", [_resnet(e) for e in epochs])
    assert official == 39.73125


def test_one_run_short_of_the_target_is_the_one_dropped(tmp_path):
    logs = [_resnet(e) for e in (16, 18, 17, 20)] + [aborted()]
    # 16 17 18 20 1e9: (17 + 18 + 20) / 3
    assert _entry(tmp_path / "training_results_v1.0", logs) == (3264, 55 / 3, 55 / 3 * IMAGENET)


def test_two_runs_short_of_the_target_leave_the_batch_size_only(tmp_path):
    logs = [_resnet(e) for e in (16, 18, 17)] + [aborted(), aborted()]
    assert _entry(tmp_path / "training_results_v1.0", logs) == (3264, None, None)


def test_runs_that_disagree_on_the_batch_size_give_neither(tmp_path):
    logs = [_resnet(e) for e in (16, 18, 17, 20)] + [_resnet(19, global_batch_size=1632)]
    assert _entry(tmp_path / "training_results_v1.0", logs) == (None, None, None)


def test_open_division_and_rounds_without_rcps_give_neither(tmp_path):
    logs = [_resnet(e) for e in (16, 18, 17, 20, 19)]
    assert _entry(tmp_path / "open" / "training_results_v1.0", logs, division="open") == (None, None, None)
    assert _entry(tmp_path / "v07" / "training_results_v0.7", logs) == (None, None, None)  # RCPs began in v1.0


def test_a_file_the_official_reader_cannot_decode_gives_neither(tmp_path):
    # an eval_accuracy line cut off after its key: the reader decodes it and raises
    lines = _resnet(19).splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"eval_accuracy"' in line)
    lines[cut] = lines[cut][:lines[cut].index('"value"')] + "\n"
    logs = [_resnet(e) for e in (16, 18, 17, 20)] + ["".join(lines)]
    assert _entry(tmp_path / "a" / "training_results_v1.0", logs) == (None, None, None)
    # cut before the key, the line is skipped: the file still counts (epoch 19)
    logs[-1] = truncated_line(30.0, evals=[(0.5, 15), (0.7601, 19)])
    assert _entry(tmp_path / "b" / "training_results_v1.0", logs) == (3264, 18.0, 18 * IMAGENET)


def test_bert_samples_and_an_epoch_count_that_is_not_samples(tmp_path):
    def bert(samples):
        return run_log("bert", evals=[(0.70, samples / 2), (0.721, samples)], global_batch_size=448,
                       train_samples=None)
    logs = [bert(s) for s in (2_500_000, 2_600_000, 2_700_000, 2_800_000, 2_900_000, 3_000_000, 3_100_000,
                               3_200_000, 3_300_000, 3_400_000)]
    # BERT logs samples in epoch_num from v1.0 on: the mean of the middle eight is 2,950,000
    assert _entry(tmp_path / "a" / "training_results_v1.0", logs, benchmark="bert") == (448, 2_950_000, 2_950_000)
    # NVIDIA's v1.0 BERT logs write epoch_num 1 at every eval: the tool prints 1.0, which is no sample count
    ones = [run_log("bert", evals=[(0.70, 1), (0.721, 1)], global_batch_size=448, train_samples=None)] * 10
    assert _entry(tmp_path / "b" / "training_results_v1.0", ones, benchmark="bert") == (448, 1.0, None)


def test_stable_diffusion_takes_the_first_step_that_meets_fid_and_clip(tmp_path):
    log = stable_diffusion_log("v4.0", 30.0, [(1, 95.0, 0.16), (2, 85.0, 0.14), (3, 80.0, 0.16), (4, 70.0, 0.2)])
    # the evals come after run_stop in this log, as the reader meets them; move run_stop to the end
    lines = log.splitlines(keepends=True)
    stop = next(line for line in lines if '"run_stop"' in line)
    path = write_log(tmp_path / "result_0.txt", "".join([line for line in lines if line is not stop] + [stop]))
    parsed = read_log(path)
    reading = read_file(parsed.lines, parsed.unparsed, "4.0.0")
    assert reading.point == 3 * 512  # step 3 is the first with FID <= 90 and CLIP >= 0.15
    # as written (evals after run_stop) the official reader finds no passing step and raises
    parsed = read_log(write_log(tmp_path / "result_1.txt", log))
    with pytest.raises(Unreadable):
        read_file(parsed.lines, parsed.unparsed, "4.0.0")


def test_a_run_that_did_not_converge_counts_as_the_tools_1e9(tmp_path):
    parsed = read_log(write_log(tmp_path / "result_0.txt", aborted()))
    assert read_file(parsed.lines, parsed.unparsed, "1.0.0").point == NOT_CONVERGED


@pytest.mark.parametrize(("round_", "benchmark", "value", "expected"), [
    ("v5.0", "retinanet", 4.0, 4 * 1_170_301),  # epochs x the OpenImages subset
    ("v5.0", "llama2_70b_lora", 3072.0, 3072.0),  # samples already
    ("v4.0", "unet3d", 1000.0, None),  # unit not known
    ("v4.1", "gpt3", 1_207_959_552.0, 589_824.0),  # tokens: 288 steps x GBS 2048 sequences of 2048 tokens
    ("v1.0", "bert", 300.0, None),  # below one global batch (448): not samples
])
def test_training_samples(round_, benchmark, value, expected):
    assert training_samples(round_, benchmark, value, 448) == expected
