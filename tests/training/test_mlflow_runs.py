"""MLflow runs compare at a glance: one knob column, no unused params, the dataset as an input,
the commit, profile and description tags; the sweep's progress line."""

import io

from roundlab.sweep.progress import Progress, summary
from roundlab.tracking import params as tracking_params
from roundlab.tracking import store as tracking_store
from roundlab.train import train


def test_params_compare_across_activations_and_skip_unused_parts(compose, store, monkeypatch):
    monkeypatch.setenv(tracking_store.PROFILE_ENV, "tiny")
    client = tracking_store.client(store)
    rounding = train(compose("activation=sine_round", "activation.width=0.5", "trainer.epochs=1"))
    plain = train(compose("approach=classification", "trainer.epochs=1"))
    params = client.get_run(rounding.mlflow_run_id).data.params
    assert params["knob.name"] == "width" and params["knob.value"] == "0.5"
    assert params["activation.width"] == "0.5" and "trainer.loss" not in params
    run = client.get_run(plain.mlflow_run_id)
    assert not [k for k in run.data.params if k.startswith(("activation.", "knob."))]
    assert run.data.tags[tracking_params.PROFILE_TAG] == "tiny"
    assert len(run.data.tags[tracking_params.GIT_COMMIT_TAG]) == 40
    result_file = plain.key.result_path(plain.config["results_dir"])
    assert str(result_file) in run.data.tags[tracking_params.NOTE_TAG]
    (dataset,) = run.inputs.dataset_inputs
    assert dataset.dataset.name == "count" and dataset.dataset.source.endswith('data/count"}')
    assert len(dataset.dataset.digest) == tracking_params.DIGEST_LENGTH


def test_progress_prints_one_line_per_update_with_an_eta():
    out = io.StringIO()
    progress = Progress(4, "sweep", stream=out)
    progress.started -= 60.0  # a minute in, two runs done: a minute to go
    progress.update(2, 1)
    progress.update(2, 1)  # unchanged: no line
    assert out.getvalue() == "sweep: 2/4 runs, 1 failed, 1m00s elapsed, ETA 1m00s\n"
    assert summary(0, 4, 0, 5.0).endswith("ETA unknown")
