"""A search over a sweep's runs reads every page: MLflow returns at most 1000 runs a call, fewer
than one dataset's runs in the full profile, so a parent's counts and the search for runs left
RUNNING would otherwise stop at the first 1000."""

from __future__ import annotations

import pytest

from roundlab.tracking import store


@pytest.mark.parametrize("page_size", [2, 3, 1000])
def test_every_run_reads_every_page_of_a_real_store(tmp_path, page_size):
    client = store.client(f"sqlite:///{tmp_path / 'mlflow.db'}")
    exp_id = client.create_experiment("count")
    made = {client.create_run(exp_id, tags={"kind": "child"}).info.run_id for _ in range(7)}
    client.create_run(exp_id, tags={"kind": "other"})
    found = list(store.every_run(client, [exp_id], "tags.kind = 'child'", page_size=page_size))
    assert sorted(r.info.run_id for r in found) == sorted(made)
    assert list(store.every_run(client, [], "tags.kind = 'child'")) == []
