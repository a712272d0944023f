"""The sentences that call (or refuse to call) a comparison, shared by the headline tables and
the short answers: a clear winner, no clear winner with the difference the seeds could have
detected, no verdict for lack of convergence, a degenerate contender."""

from __future__ import annotations

from roundlab.report.selection import Configuration
from roundlab.report.stats import Interval
from roundlab.report.winner import Winner


def reference_stop(cfg: Configuration) -> str:
    """Why a reference's fit counts as not converged: LightGBM still improving on val at its
    last tree, or a statsmodels optimiser that stopped without converging (e.g. on separable
    data)."""
    return f"its fit did not converge: {_stopped(cfg)}"


def optimiser_stopped(cfg: Configuration) -> bool:
    """A statsmodels reference whose optimiser stopped without converging: its numbers depend on
    the machine.

    On separable labels (affine has no noise) the ordered logit's estimate does not exist: BFGS
    walks out along a ray until ``maxiter``, and where it stops depends on the CPU's BLAS
    kernels. Its test exact match on affine was 0.990 under OpenBLAS's Haswell and Zen kernels,
    0.987 under SkylakeX, 0.983 under Sandybridge and 0.980 under Prescott, on one machine
    (``OPENBLAS_CORETYPE``). A network that did not converge, or LightGBM at its last tree,
    stopped at a budget: its numbers do not move with the machine."""
    return cfg.is_reference and not cfg.converged and cfg.approach != "lightgbm"


def _stopped(cfg: Configuration) -> str:
    return (
        "statsmodels' optimiser stopped" if optimiser_stopped(cfg) else "LightGBM used every tree"
    )


def detectable(mdd: float | None) -> str:
    """``the smallest difference these seeds could detect is 0.042`` (or why there is none)."""
    if mdd is None:
        return "no detectable difference can be given (a side has fewer than 2 seeds)"
    return f"the smallest difference these seeds could detect is {mdd:.3f}"


def tied(a: Interval, b: Interval) -> bool:
    """Both the same value on every seed: nothing to detect, the two are equal."""
    return a.mean == b.mean and a.half_width == 0 and b.half_width == 0


def not_converged(configs: tuple[Configuration, ...] | list[Configuration]) -> str:
    """``no verdict: regression did not converge within 200 epochs`` (a reference: its
    statsmodels optimiser stopped without converging, e.g. on separable data)."""
    networks = [c for c in configs if not c.is_reference]
    parts = []
    if networks:
        budget = max((c.epochs for c in networks if c.epochs is not None), default=None)
        within = f"within {budget} epochs" if budget is not None else "within its epoch budget"
        parts.append(f"{' and '.join(c.title for c in networks)} did not converge {within}")
    references = [c for c in configs if c.is_reference]
    parts += [f"{c.title} did not converge ({_stopped(c)})" for c in references]
    return "no verdict: " + "; ".join(parts)


def degenerate(cfg: Configuration) -> str:
    """``no verdict: rounding · spiky is degenerate (...)``."""
    return (
        f"no verdict: {cfg.title} is degenerate (its val exact match is not above the "
        "constant baseline's)"
    )


def left_out(w: Winner) -> str:
    """`` (ordered_logit (reference) left out: its fit did not converge ...)``,
    or nothing when no reference was left out of the column."""
    if not w.left_out:
        return ""
    names = "; ".join(f"{c.label} left out: {reference_stop(c)}" for c in w.left_out)
    return f" ({names})"


def verdict(w: Winner) -> str:
    """The sentence under a headline table for one column, with the note on the references left
    out of it."""
    text = _verdict(w)
    return text[:-1] + left_out(w) + "." if w.left_out else text


def _verdict(w: Winner) -> str:
    what = w.column.title
    if w.leader is None:
        return f"{what}: no finished run has it."
    if w.refused:
        return f"{what}: {not_converged(w.unconverged)}."
    if w.runner_up is None:
        return f"{what}: only {w.leader.label} has a value; nothing to compare."
    lead, second = (c.metric(w.column.split, w.column.metric) for c in (w.leader, w.runner_up))
    if tied(lead, second):
        return (
            f"{what}: tied: {w.leader.label} and {w.runner_up.label} give {lead.mean:.3f} on "
            "every seed."
        )
    if w.clear:
        return (
            f"{what}: **{w.leader.label}** is best; its interval does not overlap "
            f"the runner-up's ({w.runner_up.label})."
        )
    return (
        f"{what}: no clear winner. {w.leader.label} leads on the mean, but "
        f"its interval overlaps the runner-up's ({w.runner_up.label}); "
        f"{detectable(w.detectable)}."
    )
