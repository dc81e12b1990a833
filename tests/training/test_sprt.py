"""``flockgym compare --sprt``'s sequential test: it keeps its error rates at
every draw rate (by simulation), decides nothing on a few drawn deals, plays
deal by deal exactly as its vectorised form, and its stopping-aware estimates
are fishtest's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from flockgym.evaluation import sprt as S

NOMINAL = 0.05
CEILING = 1.5 * NOMINAL


def error_rates(model: str, elo0: float, elo1: float, draws: float, runs: int, deals: int):
    """(alpha, beta) measured at the two hypotheses' own distributions."""
    make = S.trinomial_with if model == "normalized" else S.logistic_trinomial
    at_h0 = S.simulate(*make(draws, elo0), elo0, elo1, NOMINAL, NOMINAL, runs, deals, 1, model)
    at_h1 = S.simulate(*make(draws, elo1), elo0, elo1, NOMINAL, NOMINAL, runs, deals, 2, model)
    return at_h0.accept_h1, at_h1.accept_h0


# The hypotheses reach every draw rate listed: a trinomial with 95% drawn deals
# cannot be 60 normalised Elo apart, nor 20 logistic Elo from 90% on.
CASES = [
    ("normalized", 0, 60, 0.0),
    ("normalized", 0, 60, 0.5),
    ("normalized", 0, 60, 0.8),
    ("normalized", 0, 60, 0.9),
    ("normalized", 0, 30, 0.95),
]


@pytest.mark.parametrize(("model", "elo0", "elo1", "draws"), CASES)
def test_alpha_and_beta_stay_within_one_and_a_half_times_nominal(
    model: str, elo0: float, elo1: float, draws: float
) -> None:
    alpha, beta = error_rates(model, elo0, elo1, draws, runs=1000, deals=2500)
    assert alpha <= CEILING and beta <= CEILING, (alpha, beta)


@pytest.mark.slow
@pytest.mark.parametrize("draws", [0.0, 0.5, 0.8, 0.9])
def test_logistic_elo_keeps_its_error_rates_where_the_draw_rate_allows_it(draws: float) -> None:
    alpha, beta = error_rates("logistic", 0, 20, draws, runs=2000, deals=6000)
    assert alpha <= CEILING and beta <= CEILING, (alpha, beta)


def test_ten_drawn_deals_decide_nothing() -> None:
    """The old test could accept H0 at deal 10 on ten draws: the
    variance of ten equal scores is only the prior's."""
    bounds = S.sprt_bounds(0.05, 0.05)
    for model in S.ELO_MODELS:
        test = S.Sequential(0, 20, bounds, model)
        assert [test.add(0.5) for _ in range(10)] == [""] * 10
        # nine decisive deals among many draws are still not enough
        scores = [0.5] * 200 + [1.0] * 9
        test = S.Sequential(0, 20, bounds, model)
        assert {test.add(x) for x in scores} == {""}
    path = S.llr_path(np.full(10, 0.5), 0, 20, "logistic")
    assert path[-1] < bounds[0]  # the LLR alone would have "decided"


def test_the_deal_by_deal_test_is_the_vectorised_one() -> None:
    rng = np.random.default_rng(0)
    scores = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=(40, 600), p=[0.1, 0.1, 0.5, 0.15, 0.15])
    bounds = S.sprt_bounds(0.05, 0.1)
    for model in S.ELO_MODELS:
        played, decision = S.first_stop(scores, 0, 30, bounds, model)
        for row, n, d in zip(scores, played, decision, strict=True):
            test = S.Sequential(0, 30, bounds, model)
            said, count = "", 0
            while not said and count < len(row):
                said = test.add(float(row[count]))
                count += 1
            assert count == n and {"H1": 1, "H0": -1, "": 0}[said] == d
            assert test.llr == pytest.approx(S.llr_path(row[:n], 0, 30, model)[-1], rel=1e-9)


def test_stopping_aware_estimates_are_fishtests() -> None:
    """fishtest's stats/sprt.py, sprt(alpha=0.05, beta=0.05, elo0=0, elo1=20,
    elo_model=...).set_state([3, 10, 40, 12, 5]).analytics(0.05) gives Elo
    14.8992, CI [-20.7068, 50.8219], LOS 0.794009 in both models, and
    lelo_to_elo(14.8992) = 24.0903 normalised Elo (run on that pentanomial)."""
    scores = np.repeat([0.0, 0.25, 0.5, 0.75, 1.0], [3, 10, 40, 12, 5])
    for model in S.ELO_MODELS:
        got = S.analytics(scores, 0, 20, 0.05, 0.05, model)
        assert (got.elo, got.low, got.high) == pytest.approx(
            (14.899214934773713, -20.706805407157603, 50.82190128631182), abs=0.01
        )
        assert got.los == pytest.approx(0.7940093987993044, abs=1e-4)
        assert got.nelo == pytest.approx(24.09032343315654, abs=0.01)


def test_the_bounds_and_the_normalised_llr_on_hand_computed_inputs() -> None:
    assert S.sprt_bounds(0.05, 0.05) == (
        pytest.approx(math.log(0.05 / 0.95)),
        pytest.approx(math.log(0.95 / 0.05)),
    )
    scores = np.array([1.0, 0.5, 0.75, 0.5])
    n = 4.002
    mean = (2.75 + 0.001) / n
    var = (1 + 0.25 + 0.5625 + 0.25 + 0.001) / n - mean**2
    t = (mean - 0.5) / math.sqrt(2 * var)
    t1 = 20 / (800 / math.log(10))
    expected = n * math.log((1 + t**2) / (1 + (t - t1) ** 2))
    assert S.sprt_llr(scores, 0, 20) == pytest.approx(expected, rel=1e-12)
    s1 = 1 / (1 + 10 ** (-20 / 400))
    logistic = n * (s1 - 0.5) * (2 * mean - 0.5 - s1) / (2 * var)
    assert S.sprt_llr(scores, 0, 20, "logistic") == pytest.approx(logistic, rel=1e-12)


def test_the_docs_state_the_saved_error_rates() -> None:
    """docs/training.md's table is the saved simulation's, and every cell of the
    rule the command uses is within 1.5 times the nominal 0.05."""
    import json
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from script_loader import load_script

    root = Path(__file__).resolve().parent.parent.parent
    script = load_script("verdict_error_rates")
    saved = json.loads((root / "benchmarks/results/verdict_error_rates.json").read_text())
    docs = (root / "docs" / "training.md").read_text()
    assert f"<!-- verdict error rates -->\n{script.summary(saved)}\n<!-- end -->" in docs
    for design in saved["sprt"]:
        if design["rule"].endswith("decisive deals"):
            for rates in design["rates"]:
                assert not rates["reachable"] or max(rates["alpha"], rates["beta"]) <= CEILING


def test_the_docs_prose_states_the_saved_coverages() -> None:
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent.parent
    saved = json.loads((root / "benchmarks/results/verdict_error_rates.json").read_text())
    benchmark_md = " ".join((root / "docs" / "benchmark.md").read_text().split())
    five, ten = saved["iqm_coverage"]
    assert f"{five['coverage']:.1%} at 5 seeds x 4 games, {ten['coverage']:.1%} at 10 seeds" in (
        benchmark_md
    )
    training_md = " ".join((root / "docs" / "training.md").read_text().split())
    at_0, at_90 = (f"{c['coverage']:.1%}" for c in saved["stopping_aware_coverage"])
    assert f"{at_0} and {at_90} of A/A tests at 0% and 90% drawn deals" in training_md
