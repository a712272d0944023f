"""The gradient-check numbers and the sections built from roundlab.activations."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from report_checks import check_report
from synthetic_results import synthetic_runs, write_runs

from roundlab.report import cost, gradcheck, gradients, handwritten
from roundlab.report.pipeline import build_report

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("identity", {}),
        ("ste_round", {}),
        ("spiky", {}),
        ("sigmoid_round", {"steepness": 20.0}),
        ("sine_round", {"width": 0.3}),
        ("soft_round", {"alpha": 4.0}),
        ("comb_round", {"sigma": 0.3}),
        ("sigmoid_round_np", {"steepness": 5.0}),
    ],
)
def test_every_activation_agrees_with_its_reference(name, params):
    row = gradcheck.check(name, params)
    assert row.agrees, row


def test_hard_round_is_reported_as_having_no_gradient():
    row = gradcheck.check("hard_round", {})
    assert row.agrees is None and row.max_error is None and "no gradient" in row.note


def test_a_wrong_gradient_is_caught(monkeypatch):
    # the check must be able to fail: the hand-written approx_round_grad as if it were TF's
    real = gradcheck.evaluate

    def handwritten_gradient(name, params, x):
        ev = real(name, params, x)
        if name != "sigmoid_round":
            return ev
        return gradcheck.Evaluation(
            ev.name, ev.params, ev.x, ev.y, handwritten.approx_round_grad(ev.x, params["steepness"])
        )

    monkeypatch.setattr(gradcheck, "evaluate", handwritten_gradient)
    assert gradcheck.check("sigmoid_round", {"steepness": 10.0}).agrees is False


def test_handwritten_gradient_misses_exactly_the_factor_k():
    rows = handwritten.handwritten_gradients([1.0, 5.0, 20.0], [0.5])
    ratios = {r.setting: r.ratio for r in rows if r.function == "approx_round_grad"}
    assert ratios["steepness=5"] == pytest.approx(5.0, rel=1e-6)
    assert ratios["steepness=20"] == pytest.approx(20.0, rel=1e-6)
    assert rows[0].verdict.startswith("agrees") and "misses the factor k" in rows[1].verdict
    assert rows[-1].function == "approx_round_grad_sin" and rows[-1].verdict == "agrees"


def test_spiky_example_is_reproduced_both_ways():
    rows = handwritten.spiky_example()
    assert len(rows) == 2 and all(r.matches for r in rows)
    np.testing.assert_allclose(rows[0].y, [0.2, 0.0, 0.2, 0.0], atol=1e-6)
    assert rows[1].grad == (1.0, 0.0, 1.0, 0.0)


def test_numpy_cost_benchmark_records_each_twin_and_refuses_to_compile_it(tmp_path):
    out = tmp_path / "cost.json"
    bench = ROOT / "bench" / "numpy_cost.py"
    subprocess.run(
        [sys.executable, str(bench), "--size", "1000", "--repeats", "1", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    recorded = cost.read(out)
    assert recorded.command.startswith("python bench/numpy_cost.py --size 1000")
    assert recorded.machine["values"] == "1,000 float32"
    by = {(r.activation, r.mode): r for r in recorded.rows}
    for twin in ("spiky_np", "sigmoid_round_np", "sine_round_np"):
        assert by[(twin, cost.XLA)].median_ms is None
        assert by[(twin, cost.GRAPH)].median_ms > 0
        assert by[(twin[:-3], cost.XLA)].median_ms > 0


def test_the_committed_numpy_cost_record_reads_and_a_broken_one_is_refused(tmp_path):
    recorded = cost.read(ROOT / cost.RECORD)
    assert {r.activation for r in recorded.rows} >= {"spiky_np", "spiky"}
    assert cost.read(tmp_path / "absent.json") is None
    (tmp_path / "broken.json").write_text('{"rows": [{"activation": "x"}]}')
    with pytest.raises(ValueError, match="numpy-cost record written by bench/numpy_cost.py"):
        cost.read(tmp_path / "broken.json")


def test_report_shows_the_recorded_numpy_cost_and_never_times_anything(tmp_path):
    recorded = cost.Recorded(
        [cost.CostRow("spiky", cost.GRAPH, 2.0, ""), cost.CostRow("spiky_np", cost.GRAPH, 8.0, "")],
        "python bench/numpy_cost.py",
        {"cpu cores": "2"},
    )
    (tmp_path / "bench").mkdir()
    cost.write(recorded, tmp_path / cost.RECORD)
    results = write_runs(tmp_path / "results", synthetic_runs())
    build_report(results, tmp_path / "reports", tmp_path, gradients=True)
    md = (tmp_path / "reports" / "report.md").read_text()
    assert "| spiky_np | graph (tf.function) | 8.0 |" in md
    assert "recorded by `python bench/numpy_cost.py` (cpu cores 2)" in md
    assert "spiky_np: 8.0 ms forward + backward; spiky: graph (tf.function) 2.0 ms (×4.0)" in md


def test_rebuilding_the_report_from_the_same_results_gives_the_same_bytes(tmp_path):
    results = write_runs(tmp_path / "results", synthetic_runs())
    first, second = tmp_path / "first", tmp_path / "second"
    build_report(results, first, tmp_path, gradients=True)
    build_report(results, second, tmp_path, gradients=True)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files and files == sorted(
        p.relative_to(second) for p in second.rglob("*") if p.is_file()
    )
    differ = [f for f in files if (first / f).read_bytes() != (second / f).read_bytes()]
    assert differ == []


def test_full_report_has_gallery_and_gradient_checks(tmp_path):
    results = write_runs(tmp_path / "results", synthetic_runs())
    out = build_report(results, tmp_path / "reports", tmp_path, gradients=True, with_cost=False)
    check_report(tmp_path / "reports")
    names = {p.name for p in out.figures}
    assert {"gallery.png", "gradient-checks.png"} <= names
    md = (tmp_path / "reports" / "report.md").read_text()
    section = md.split("## 5. Gradient checks")[1].split("## 6.")[0]
    assert "DISAGREES" not in section
    assert "thread" not in md.lower()
    assert f'"{handwritten.ROUNDING_QA}"' in section
    assert f'"{handwritten.CUSTOM_ACTIVATION_QA}"' in section
    assert "| approx_round_grad | steepness=20 |" in section and "misses the factor k" in section
    assert (
        "| numpy_activation (the numpy recipe) | [0.2, 0, 0.2, 0] | [1, 0, 1, 0] | yes |" in section
    )


def test_gallery_parameterless_row_is_every_tensorflow_activation_without_a_parameter():
    from roundlab import activations

    plain = gradients.parameterless()
    assert plain == [
        n
        for n in activations.names()
        if activations.spec(n).param is None and not activations.spec(n).numpy_backed
    ]
    assert {"identity", "hard_round", "ste_round", "spiky"} <= set(plain)
    assert "spiky_np" not in plain


def test_gradient_checks_run_each_twin_at_the_values_swept_for_its_tensorflow_version():
    rows = gradients.gradient_checks({"sigmoid_round": [2.0, 7.0]})
    settings = [r.setting for r in rows if r.activation == "sigmoid_round_np"]
    assert settings == ["steepness=2", "steepness=7"]
