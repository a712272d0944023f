"""Datasets built from data that scikit-learn ships (no download): digit_sum, diabetes."""

from __future__ import annotations

import numpy as np

from roundlab.data.sampling import Arrays, draw_until, inside, outside, rng_for
from roundlab.data.schemas import DigitSumConfig, require
from roundlab.data.splits import split_table
from roundlab.data.synthetic import Generated
from roundlab.data.table_schemas import DiabetesConfig


def digit_sum_dataset(cfg: DigitSumConfig) -> Generated:
    """Pairs of scikit-learn's 8×8 handwritten digits (1797 images); ``y = digit_a + digit_b``.

    Features: the two images side by side, 128 pixels scaled to [0, 1]. The images are first
    shuffled and cut into disjoint pools (``val_images``, ``test_images``, the rest for train),
    so no image of the val or test split is ever seen in training. Each split draws pairs from
    its own pool and keeps those whose sum lies in ``[train_label_min, train_label_max]``.
    Extrapolate: pairs from the test pool whose sum lies outside that window (e.g. 0, 1, 17, 18
    for the window 2..16): digits the network has seen (in other images) in combinations whose
    sum it never saw. Impossible when the window is all of 0..18 (refused unless
    ``n_extrapolate = 0``).

    Oracle: exact match 1 and MAE 0, assuming a perfect digit reader (each label is the exact
    sum of two labelled digits).
    """
    from sklearn.datasets import load_digits  # 3.6 s of import, paid only by who reads digits

    digits = load_digits()
    images = (digits.data / 16.0).astype(np.float32)
    labels = digits.target.astype(np.int64)
    rng = rng_for(cfg.seed)
    order = rng.permutation(len(labels))
    n_val = int(round(cfg.val_images * len(order)))
    n_test = int(round(cfg.test_images * len(order)))
    pools = {
        "train": order[n_val + n_test :],
        "val": order[:n_val],
        "test": order[n_val : n_val + n_test],
    }

    def pairs(pool: np.ndarray):
        def draw(rng: np.random.Generator, n: int) -> Arrays:
            a = pool[rng.integers(0, len(pool), n)]
            b = pool[rng.integers(0, len(pool), n)]
            return np.hstack([images[a], images[b]]), labels[a] + labels[b]

        return draw

    lo, hi = cfg.train_label_min, cfg.train_label_max
    failure = (
        f"the image pools hold no pair with the requested sums: enlarge val_images/test_images. "
        f"Received: val_images={cfg.val_images}, test_images={cfg.test_images}"
    )
    splits = {
        name: draw_until(rng, n, pairs(pools[name]), inside(lo, hi), failure)
        for name, n in (("train", cfg.n_train), ("val", cfg.n_val), ("test", cfg.n_test))
    }
    if cfg.n_extrapolate:
        splits["extrapolate"] = draw_until(
            rng, cfg.n_extrapolate, pairs(pools["test"]), outside(lo, hi), failure
        )
    names = [f"{side}_px{i}" for side in ("a", "b") for i in range(images.shape[1])]
    return Generated(splits, names)


def diabetes_dataset(cfg: DiabetesConfig) -> Generated:
    """scikit-learn's diabetes data (442 patients, 10 raw baseline features, ``scaled=False``);
    ``y`` = disease progression one year later, an integer 25..346.

    Extrapolate: the patients whose label lies below the ``extrapolate_quantile`` or above the
    ``1 − extrapolate_quantile`` label quantile (see :func:`roundlab.data.splits.split_table`);
    the rest are split into train/val/test by ``val_fraction``/``test_fraction``.

    No oracle: real data, with neither the rule nor the noise known.
    """
    from sklearn.datasets import load_diabetes  # as load_digits above

    data = load_diabetes(scaled=False)
    target = np.asarray(data.target)
    require(
        bool(np.all(target == np.round(target))),
        "the diabetes target must be integral (it is in scikit-learn's data)",
        first_non_integer=target[target != np.round(target)][:1].tolist(),
    )
    rng = rng_for(cfg.seed)
    splits = split_table(
        rng,
        data.data.astype(np.float32),
        target.astype(np.int64),
        cfg.val_fraction,
        cfg.test_fraction,
        cfg.extrapolate_quantile,
    )
    return Generated(splits, list(data.feature_names))
