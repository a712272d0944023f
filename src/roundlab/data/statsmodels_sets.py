"""Real integer-labelled data that statsmodels ships in its wheel (no download): randhie, anes96.

Each table is read with statsmodels' own loader (``statsmodels.datasets.<name>.load_pandas``),
its label checked to be integral, and split by :func:`roundlab.data.splits.split_table`:
the ``extrapolate_quantile`` label tails form the extrapolate split (none when the quantile is
0 or the tails are tied with the rest), the other rows are shuffled with ``seed`` and cut into
val, test and train by ``val_fraction``/``test_fraction``. meta.json's ``sources`` records the
SHA-256 of the CSV file inside statsmodels the rows come from, its ``provenance`` the source,
licence and citation as statsmodels documents them.

No oracle: real data, with neither the rule nor the noise known.

Also bundled, and left out: ``star98`` (303 school districts; its label NABOVE counts
students out of district sizes from 33 to 38,852, a binomial count that says more about the
district's size than about the covariates), ``committee`` (20 rows), ``cpunish`` (17 rows),
``fair`` (its label ``affairs`` is not an integer) and the rest (time series, binary labels or
too few rows).
"""

from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass
from importlib import resources

import numpy as np

from roundlab.data.sampling import rng_for
from roundlab.data.schemas import require
from roundlab.data.splits import split_table
from roundlab.data.synthetic import Generated
from roundlab.data.table_schemas import TableConfig


@dataclass(frozen=True)
class BundledTable:
    """One statsmodels dataset: its module and data file, the label and feature columns, and
    where it comes from (``provenance``, as statsmodels' module documents it)."""

    module: str
    file: str
    label: str
    features: tuple[str, ...]
    provenance: dict[str, str]


RANDHIE = BundledTable(
    module="statsmodels.datasets.randhie",
    file="randhie.csv",
    label="mdvis",
    # statsmodels' own covariates (exog) of the count model in Cameron and Trivedi (2005).
    features=("lncoins", "idp", "lpi", "fmde", "physlm", "disea", "hlthg", "hlthf", "hlthp"),
    provenance={
        "title": "RAND Health Insurance Experiment Data (a subset, 20,190 observations)",
        "label": "mdvis: number of outpatient visits to a medical doctor in the year (a count)",
        "source": "collected by the RAND Corporation in its Health Insurance Experiment (HIE); "
        "bundled with statsmodels as statsmodels.datasets.randhie",
        "licence": "public domain (statsmodels: 'This is in the public domain.')",
        "citation": "Cameron, A.C. and Trivedi, P.K. 2005. Microeconometrics: Methods and "
        "Applications. Cambridge University Press, New York.",
        "url": "http://cameron.econ.ucdavis.edu/mmabook/mmadata.html",
    },
)

ANES96 = BundledTable(
    module="statsmodels.datasets.anes96",
    file="anes96.csv",
    label="PID",
    # Every numeric covariate but popul (logpopul is its log) and vote (the expected vote
    # Clinton/Dole is a second answer of the same respondent, nearly the label itself).
    features=("logpopul", "TVnews", "selfLR", "ClinLR", "DoleLR", "age", "educ", "income"),
    provenance={
        "title": "American National Election Survey 1996 (a subset, 944 respondents)",
        "label": "PID: party identification, 0 strong Democrat .. 3 independent .. 6 strong "
        "Republican (ordinal)",
        "source": "the American National Election Studies; bundled with statsmodels as "
        "statsmodels.datasets.anes96",
        "licence": "public domain (statsmodels: 'This is public domain.')",
        "citation": "The American National Election Studies, 1996 Time Series Study.",
        "url": "http://www.electionstudies.org/",
    },
)

TABLES = {"randhie": RANDHIE, "anes96": ANES96}


def bundled_sources(cfg: TableConfig) -> dict[str, str]:
    """SHA-256 of the statsmodels data file, keyed by its path inside the installed package."""
    table = TABLES[cfg.generator]
    data = resources.files(table.module).joinpath(table.file).read_bytes()
    return {f"{table.module.replace('.', '/')}/{table.file}": hashlib.sha256(data).hexdigest()}


def bundled_dataset(cfg: TableConfig) -> Generated:
    """The rows of the statsmodels table ``cfg.generator`` (randhie or anes96), split as the
    module docstring says."""
    table = TABLES[cfg.generator]
    frame = importlib.import_module(table.module).load_pandas().data
    target = frame[table.label].to_numpy(dtype=np.float64)
    require(
        bool(np.all(target == np.round(target))),
        f"the label {table.label} of {table.module} must be integral",
        first_non_integer=target[target != np.round(target)][:1].tolist(),
    )
    x = frame[list(table.features)].to_numpy(dtype=np.float64).astype(np.float32)
    splits = split_table(
        rng_for(cfg.seed),
        x,
        target.astype(np.int64),
        cfg.val_fraction,
        cfg.test_fraction,
        cfg.extrapolate_quantile,
    )
    return Generated(splits, list(table.features), dict(table.provenance))
