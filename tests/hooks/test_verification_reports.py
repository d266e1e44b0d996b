import pytest
from verification_reports import Run, build_report, parse_report, runs_skipping, runs_verifying

CODE = "print(1)\n"


def report(outcome="passed", text=CODE, lane="cpu"):
    return build_report(lane, "2.14.1", "CPU", "2026-11-30", {"snippets/a/b.py": (outcome, text)})


def test_a_report_round_trips_and_verifies_the_snippet_it_ran():
    parsed = parse_report(report(), "cpu.json")
    assert runs_verifying([parsed], "snippets/a/b.py", CODE) == [Run("cpu", "2.14.1", "CPU", "2026-11-30")]


def test_changed_code_is_not_verified_by_an_old_report():
    assert runs_verifying([parse_report(report(), "cpu.json")], "snippets/a/b.py", CODE + "x = 2\n") == []


def test_skipped_and_failed_snippets_are_not_verified():
    for outcome in ("skipped", "failed"):
        assert runs_verifying([parse_report(report(outcome), "r.json")], "snippets/a/b.py", CODE) == []


def test_the_labels_name_the_torch_it_ran_on_and_the_gpu():
    assert Run("gpu", "2.11.0", "NVIDIA H100", "d").label == "GPU · torch 2.11.0 · NVIDIA H100"
    assert Run("cpu", "2.14.1", "CPU", "d").label == "CPU · torch 2.14.1"


def test_a_skipped_snippet_keeps_its_reason_and_is_never_verified():
    why = "1 GPU; needs 2 GPUs: SyncBatchNorm syncs statistics across devices"
    text = build_report("gpu", "2.11.0", "NVIDIA H200", "2026-12-01", {"snippets/a/b.py": ("skipped", CODE, why)})
    parsed = parse_report(text, "gpu.json")
    gpu = Run("gpu", "2.11.0", "NVIDIA H200", "2026-12-01")
    assert runs_verifying([parsed], "snippets/a/b.py", CODE) == []
    assert runs_skipping([parsed], "snippets/a/b.py", CODE) == [(gpu, why)]
    assert runs_skipping([parsed], "snippets/a/b.py", CODE + "x = 2\n") == []  # changed since: no claim either way
    assert runs_skipping([parse_report(report(), "cpu.json")], "snippets/a/b.py", CODE) == []  # it passed there


@pytest.mark.parametrize("text", ["not json", '{"schema": 99}', '{"schema": 1, "lane": "cpu"}'])
def test_a_malformed_report_is_an_error_naming_the_file(text):
    with pytest.raises(ValueError, match=r"^reports/gpu\.json: not a verification report"):
        parse_report(text, "reports/gpu.json")
