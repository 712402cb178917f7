"""parse_result_file on logs written in the official format: the official verdict (compliance
checker of mlperf-logging 4.1.68 and the summarizer's run_start/run_stop) and throughput; expected
values computed by hand."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.domain.errors import InputError
from pipelines.ingest.mlperf.logs import TOKEN, _token_lines, parse_result_file
from pipelines.domain.mlperf import benchmark_rule
from tests import mlperf_fixtures as fx

RESNET = benchmark_rule("v1.0", "resnet")
FAILS = "fails the official compliance check: "


def parse(tmp_path, content, rule=RESNET):
    return parse_result_file(fx.write_log(tmp_path / "result_0.txt", content), rule)


def test_converged_run_time_and_throughput(tmp_path):
    run = parse(tmp_path, fx.converged(30.0))
    assert run.scored and run.reason is None and run.crash is None
    assert run.minutes == 30.0
    # target first met at epoch 16: 16 epochs x 1,281,167 images in 30 min (1800 s)
    assert run.samples == 16 * 1_281_167
    assert run.samples_per_second == pytest.approx(20_498_672 / 1800)


def test_throughput_uses_first_eval_that_meets_target(tmp_path):
    log = fx.run_log(minutes=20.0, evals=[(0.70, 30.0), (0.7591, 34.0), (0.765, 38.0)])
    assert parse(tmp_path, log).samples == 34 * 1_281_167


def test_text_before_mllog_is_ignored(tmp_path):
    run = parse(tmp_path, fx.junk_before_mllog(12.5))
    assert run.scored and run.minutes == 12.5


def test_missing_event_type_is_fine(tmp_path):
    run = parse(tmp_path, fx.run_log(minutes=7.25, event_type=False))
    assert run.scored and run.minutes == 7.25


def test_non_utf8_bytes_are_read_as_latin1(tmp_path):
    run = parse(tmp_path, fx.non_utf8(9.0))
    assert run.scored and run.minutes == 9.0


def test_run_that_never_reaches_target_fails_with_the_checkers_target(tmp_path):
    run = parse(tmp_path, fx.never_reaches_target(50.0))  # best 0.7589 < 0.7590
    assert not run.scored and run.minutes == 50.0 and run.samples_per_second is None
    assert run.reason == FAILS + "Failed checks for eval_accuracy : v['value'] >= 0.7590 and v['value'] < 1.0"


def test_aborted_status_alone_does_not_fail_a_run(tmp_path):
    # The official checker only wants a status on run_stop; a run marked "aborted" that reached the
    # target counts for MLCommons, and so here. One that did not reach it fails on the target.
    assert parse(tmp_path, fx.run_log(minutes=45.0, status="aborted")).scored
    run = parse(tmp_path, fx.aborted(45.0))
    assert not run.scored and "Failed checks for eval_accuracy" in run.reason and run.minutes == 45.0


def test_missing_run_stop(tmp_path):
    run = parse(tmp_path, fx.missing_run_stop())
    assert run.reason == FAILS + "Required EXACTLY_ONE occurrence of 'run_stop' but found 0"
    assert run.minutes is None


def test_missing_run_start(tmp_path):
    run = parse(tmp_path, fx.run_log(run_start=False))
    # the block that follows checks s['run_started'] too, and that message comes first
    assert run.reason.startswith(FAILS) and "Required EXACTLY_ONE occurrence of 'run_start' but found 0" in run.reason
    assert run.minutes is None


def test_run_stop_without_status_is_dropped(tmp_path):
    run = parse(tmp_path, fx.run_log(status=None))
    assert not run.scored and "CHECK for 'run_stop' failed" in run.reason and "'status' in v['metadata']" in run.reason


def test_line_cut_off_mid_json_drops_the_run_like_the_official_tool(tmp_path):
    log = fx.truncated_line(30.0)
    # truncated_line cuts the first eval_accuracy line of the log in half
    lineno = next(i for i, line in enumerate(fx.run_log(minutes=30.0).splitlines(), start=1) if '"eval_accuracy"' in line)
    run = parse(tmp_path, log)
    assert not run.scored
    assert run.reason == FAILS + f"line {lineno}: cut off or invalid JSON"


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(["a", " ", "\n", "\r", "\r\n", "\xe9", "{", ":::MLLOG ", ":::MLL"]),
                     max_size=80).map("".join),
       block=st.integers(1, 40))
def test_token_lines_are_the_lines_of_the_file_in_any_block_size(text, block):
    # what the official parser iterates: the file in text mode, latin-1, universal newlines
    expected = [(n, line[line.rfind(TOKEN):].strip()) for n, line in enumerate(io.StringIO(text, newline=None), start=1)
                if TOKEN in line]
    assert list(_token_lines(io.BytesIO(text.encode("latin-1")), block_bytes=block)) == expected


def test_duplicate_run_lines_are_picked_as_the_official_summarizer_picks_them(tmp_path):
    # Equal duplicates of EXACTLY_ONE keys are only a warning for the checker; the summarizer then
    # takes the last run_start before the first run_stop (it stops reading once it has both).
    log = fx.converged(10.0)
    second_start = fx.mllog("run_start", time_ms=fx.START_MS + 2 * 60000)
    at = log.index(':::MLLOG {"namespace": "", "time_ms": %d, "event_type": "INTERVAL_START", "key": "block_start"'
                   % fx.START_MS)
    later_stop = fx.mllog("run_stop", time_ms=fx.START_MS + 99 * 60000, metadata={"status": "success"})
    run = parse(tmp_path, log[:at] + second_start + log[at:] + later_stop)
    assert run.scored and run.minutes == 8.0


def test_empty_file_is_a_dropped_run(tmp_path):
    run = parse(tmp_path, b"")
    assert run.reason.startswith(FAILS + "No log lines detected")


def test_a_line_the_official_parser_raises_on_is_a_crash(tmp_path):
    # v0.7 Alibaba logs time_s instead of time_ms: the official parser raises KeyError
    log = fx.converged(30.0).replace('"time_ms"', '"time_s"', 1)
    run = parse(tmp_path, log)
    assert not run.scored and run.crash == "line 2: KeyError 'time_ms'"
    assert run.reason == "the official summarizer stops on this file (line 2: KeyError 'time_ms')"


def test_bert_target_changed_between_rounds(tmp_path):
    log = fx.run_log("bert", minutes=20.0, evals=[(0.715, 1.0)], train_samples=None,
                     train_samples_at_end=3_000_000, global_batch_size=448)
    assert parse(tmp_path, log, benchmark_rule("v0.7", "bert")).scored  # 0.712 in v0.7
    v10 = parse(tmp_path, log, benchmark_rule("v1.0", "bert"))  # 0.720 from v1.0
    assert not v10.scored and "0.720" in v10.reason


def test_bert_v07_large_batch_target(tmp_path):
    log = fx.run_log("bert", evals=[(0.708, 1.0)], global_batch_size=8192)
    assert parse(tmp_path, log, benchmark_rule("v0.7", "bert")).scored  # 0.706 at >= 8192
    small = fx.run_log("bert", evals=[(0.708, 1.0)], global_batch_size=4096)
    assert not parse(tmp_path, small, benchmark_rule("v0.7", "bert")).scored


def test_v30_bert_rules_want_opt_lamb_epsilon(tmp_path):
    # v3.0 Lenovo SR670v2 logs opt_epsilon where the v3.0 BERT rules require opt_lamb_epsilon
    log = fx.run_log("bert", evals=[(0.73, 1.0)]).replace('"opt_lamb_epsilon"', '"opt_other"')
    assert parse(tmp_path, log, benchmark_rule("v1.0", "bert")).scored  # v1.0 asked for opt_epsilon
    run = parse(tmp_path, log, benchmark_rule("v3.0", "bert"))
    assert run.reason == FAILS + "Required EXACTLY_ONE occurrence of 'opt_lamb_epsilon' but found 0"


def test_bert_throughput_from_samples_logged_at_end(tmp_path):
    log = fx.run_log("bert", minutes=20.0, evals=[(0.70, 1.0), (0.7203, 1.0)],
                     train_samples=None, train_samples_at_end=3_000_256)
    run = parse(tmp_path, log, benchmark_rule("v1.0", "bert"))
    assert run.samples_per_second == pytest.approx(3_000_256 / 1200)


def test_bert_throughput_from_eval_epoch_num_in_v10(tmp_path):
    # Habana style: train_samples before run_start is the configured maximum; epoch_num = samples
    log = fx.run_log("bert", minutes=160.0, evals=[(0.71, 2_000_000.0), (0.7205, 2_588_880.0)],
                     train_samples=2_851_520)
    run = parse(tmp_path, log, benchmark_rule("v1.0", "bert"))
    assert run.samples_per_second == pytest.approx(2_588_880 / 9600)


def test_bert_v07_without_samples_has_no_throughput(tmp_path):
    log = fx.run_log("bert", minutes=200.0, evals=[(0.7125, 7.0)], train_samples=3_565_320)
    run = parse(tmp_path, log, benchmark_rule("v0.7", "bert"))
    assert run.scored and run.samples_per_second is None


def test_lower_is_better_target_rnnt(tmp_path):
    rule = benchmark_rule("v1.0", "rnnt")
    assert parse(tmp_path, fx.run_log("rnnt", evals=[(0.2, 1.0), (0.058, 2.0)]), rule).scored
    assert not parse(tmp_path, fx.run_log("rnnt", evals=[(0.0581, 1.0)]), rule).scored


def test_maskrcnn_needs_both_bbox_and_segm(tmp_path):
    rule = benchmark_rule("v1.0", "maskrcnn")
    good = fx.run_log("maskrcnn", evals=[({"BBOX": 0.378, "SEGM": 0.340}, 1.0)])
    bad = fx.run_log("maskrcnn", evals=[({"BBOX": 0.380, "SEGM": 0.338}, 1.0)])
    assert parse(tmp_path, good, rule).scored
    assert not parse(tmp_path, bad, rule).scored


@pytest.mark.parametrize("round_", ["v3.1", "v4.0", "v5.0"])
def test_stable_diffusion_needs_fid_and_clip_at_one_evaluation(tmp_path, round_):
    rule = benchmark_rule(round_, "stable_diffusion")
    good = fx.stable_diffusion_log(round_, 20.0, [(1, 120.0, 0.10), (2, 85.0, 0.16)])
    run = parse(tmp_path, good, rule)
    assert run.scored and run.minutes == 20.0
    # FID reached at the first evaluation, CLIP only at the second: no single evaluation reaches both
    split = fx.stable_diffusion_log(round_, 20.0, [(1, 85.0, 0.10), (2, 95.0, 0.16)])
    assert "Failed checks for aggregated_eval_accuracy" in parse(tmp_path, split, rule).reason
    # the rules want at least two evaluations
    once = fx.stable_diffusion_log(round_, 20.0, [(1, 85.0, 0.16)])
    assert "AT_LEAST(2) occurrence of 'aggregated_eval_accuracy'" in parse(tmp_path, once, rule).reason


def test_accuracy_of_one_or_more_is_not_a_pass(tmp_path):
    # the official checker bounds accuracy below 1.0 (a logging bug, not a model)
    assert not parse(tmp_path, fx.run_log(evals=[(1.0, 4.0)])).scored


def test_unreadable_file_is_input_error(tmp_path):
    folder = tmp_path / "result_0.txt"
    folder.mkdir()
    with pytest.raises(InputError) as error:
        parse_result_file(folder, RESNET)
    assert str(folder) in str(error.value)
