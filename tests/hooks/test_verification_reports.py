import pytest
from verification_reports import Run, build_report, parse_report, runs_verifying

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


def test_the_gpu_label_names_the_device():
    assert Run("gpu", "2.11.0", "NVIDIA H100", "d").label == "CUDA · NVIDIA H100 · torch 2.11.0"


@pytest.mark.parametrize("text", ["not json", '{"schema": 99}', '{"schema": 1, "lane": "cpu"}'])
def test_a_malformed_report_is_an_error_naming_the_file(text):
    with pytest.raises(ValueError, match=r"^reports/gpu\.json: not a verification report"):
        parse_report(text, "reports/gpu.json")
