"""How a round's families become the workers' tasks (roundlab.sweep.workers.tasks): the
costliest first, and a family that would keep one worker busy while the others have nothing
left split where no stacked group spans the split."""

from __future__ import annotations

from roundlab.runs import RunKey
from roundlab.sweep import workers
from roundlab.sweep.plan import Multirun

SEEDS = (0, 1, 2, 3, 4)


def _ordinal(round_: int = 2) -> Multirun:
    """The last round's ordinal extension: both methods at one new rate, five seeds."""
    runs, jobs = [], []
    for method in ("corn", "coral"):
        for seed in SEEDS:
            runs.append(RunKey("affine", "ordinal", seed=seed, learning_rate=0.09, method=method))
            jobs.append(
                (
                    "approach=ordinal",
                    f"approach.method={method}",
                    "dataset=affine",
                    "trainer.learning_rate=0.09",
                    f"seed={seed}",
                )
            )
    return Multirun("rate_extensions/2/ordinal", (), tuple(runs), round_, tuple(jobs))


def _regression(round_: int = 2) -> Multirun:
    runs = tuple(RunKey("affine", "regression", seed=s, learning_rate=0.09) for s in SEEDS)
    jobs = tuple(
        ("approach=regression", "dataset=affine", "trainer.learning_rate=0.09", f"seed={s}")
        for s in SEEDS
    )
    return Multirun("rate_extensions/2/approaches", (), runs, round_, jobs)


def test_a_family_costing_more_than_its_share_becomes_a_task_per_stacked_group(tmp_path):
    ordinal, plain = _ordinal(), _regression()
    tasks = workers.tasks([plain, ordinal], tmp_path, workers=2)
    # ordinal costs 15 of the round's 20, over a worker's half share (5): corn and coral apart
    assert [t.families for t in tasks] == [(ordinal.family,)] * 2 + [(plain.family,)]
    corn, coral, rest = tasks
    assert {job[1] for job in corn.jobs} == {"approach.method=corn"}
    assert {job[1] for job in coral.jobs} == {"approach.method=coral"}
    assert (corn.runs, coral.runs, rest.runs) == (5, 5, 5)
    # every job once, each in the order the family listed it
    assert corn.jobs + coral.jobs == ordinal.jobs
    assert rest.jobs == plain.jobs


def test_one_worker_or_a_cluster_launcher_keeps_families_whole(tmp_path):
    ordinal, plain = _ordinal(), _regression()
    alone = workers.tasks([plain, ordinal], tmp_path, workers=1)
    assert [t.jobs for t in alone] == [ordinal.jobs, plain.jobs]  # the costliest first
    (together,) = workers.tasks([plain, ordinal], tmp_path, together=True, workers=2)
    assert together.jobs == ordinal.jobs + plain.jobs
    assert together.runs == 15


def test_families_within_their_share_stay_whole(tmp_path):
    """Five families of equal cost on two workers: each a fifth of the round, within a worker's
    half share (a quarter), so each is one task; three are a third each, so they split."""
    families = [Multirun(f"family_{i}", (), _ordinal().runs, 0, _ordinal().jobs) for i in range(5)]
    tasks = workers.tasks(families, tmp_path, workers=2)
    assert [t.families for t in tasks] == [(m.family,) for m in families]
    assert all(len(t.jobs) == 10 for t in tasks)
    tasks = workers.tasks(families[:3], tmp_path, workers=2)
    assert [len(t.jobs) for t in tasks] == [5] * 6


def test_workers_take_the_deepest_round_first_and_leave_other_files(tmp_path):
    from roundlab.sweep import queue

    queue.enqueue(tmp_path, 0, [queue.Task(("a",), (("x=1",),), 1), queue.Task(("b",), (), 0)])
    queue.enqueue(tmp_path, 1, [queue.Task(("rate_extensions/1/a",), (("x=3",),), 1)])
    (tmp_path / queue.PENDING / "notes.yaml").write_text("{}\n")  # not a task: left alone
    (tmp_path / queue.PENDING / ".000-0005-c.yaml.tmp-1.yaml").write_text("")  # being written
    worker = queue.Worker(tmp_path, "w", ["seed=0"])
    taken = []
    while queue.waiting(tmp_path):
        assert worker.take()
        taken.append((worker.current, worker.batch()))
    assert taken == [
        ("001-0000-rate_extensions_1_a.yaml", [["x=3", "seed=0"]]),
        ("000-0000-a.yaml", [["x=1", "seed=0"]]),
        ("000-0001-b.yaml", []),
    ]
    assert (tmp_path / queue.PENDING / "notes.yaml").is_file()


def test_reference_fits_are_queued_before_costlier_families(tmp_path):
    """A reference fit's cost is the least predictable and it never splits into stacked groups,
    so a round queues it first, whatever its estimate: taken last, it kept one worker fitting
    while the other had nothing left."""
    references = Multirun(
        "references",
        ("approach=ordered_logit,glm_poisson",),
        tuple(RunKey("affine", a, seed=0) for a in ("ordered_logit", "glm_poisson")),
    )
    assert references.once and workers.cost(references) < workers.cost(_ordinal())
    ordinal, plain = _ordinal(0), _regression(0)
    for n in (1, 2):
        tasks = workers.tasks([plain, ordinal, references], tmp_path, workers=n)
        assert tasks[0].families == (references.family,)
        assert [t.families[0] for t in tasks[1:]][-1] == plain.family  # then the costliest first
    assert [job[0] for job in tasks[0].jobs] == ["approach=ordered_logit", "approach=glm_poisson"]
