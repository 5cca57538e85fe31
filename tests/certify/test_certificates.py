"""MILP certificates equal brute force (retraining the SVM for every admissible flip)."""

import numpy as np
import pytest

from rewirekit.certify.bruteforce import attacks, enumerate_certificate
from rewirekit.certify.certificates import (
    PLAIN,
    Options,
    certify_binary,
    certify_collective,
    certify_multiclass,
)
from rewirekit.certify.milp import budget_bounds
from rewirekit.certify.ntk import Architecture, ntk
from rewirekit.errors import RewireError

ARCHS = {
    "gcn": Architecture("gcn"),
    "sgc": Architecture("sgc"),
    "sage": Architecture("sage"),
    "gin": Architecture("gin"),
    "appnp": Architecture("appnp", appnp_alpha=0.3),
    "mlp": Architecture("mlp"),
    "gcn_skip_alpha": Architecture("gcn", skip="alpha"),
}


def instance(seed, arch, num_classes=2, n=24, m=12, targets=6):
    """A small homophilous graph with class-shifted features; ``m`` labelled nodes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, num_classes, n)
    x = rng.normal(size=(n, 4))
    x[np.arange(n), y] += 1.0
    prob = np.where(y[:, None] == y[None, :], 0.25, 0.05)
    upper = np.triu(rng.random((n, n)) < prob, 1)
    gram = ntk(arch, x, (upper | upper.T).astype(float))
    labelled = rng.choice(n, m, replace=False)
    rest = np.setdiff1d(np.arange(n), labelled)[:targets]
    # scale C to the kernel so that some predictions are robust and some are not
    C = 0.5 / np.abs(gram[np.ix_(labelled, labelled)]).sum(axis=1).mean()
    return gram, labelled, rest, y[labelled], C


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("arch", sorted(ARCHS))
def test_binary_equals_brute_force(arch, seed):
    gram, lab, tgt, y, C = instance(seed, ARCHS[arch])
    C *= 4.0  # large enough that the bounds fix only some duals and MILPs are solved
    for budget in (1, 2):
        expected, collective = enumerate_certificate(gram, lab, tgt, y, C, budget)
        cert = certify_binary(gram, lab, tgt, y, C, budget)
        np.testing.assert_array_equal(cert.certified, expected)
        assert cert.num_timed_out == 0
        assert certify_collective(gram, lab, tgt, y, C, budget).num_certified == collective


@pytest.mark.parametrize("arch", ["gcn", "sgc", "mlp"])
def test_multiclass_equals_brute_force(arch):
    gram, lab, tgt, y, C = instance(3, ARCHS[arch], num_classes=3, m=9, targets=4)
    for budget in (1, 2):
        expected, collective = enumerate_certificate(gram, lab, tgt, y, C, budget)
        cert = certify_multiclass(gram, lab, tgt, y, C, budget)
        np.testing.assert_array_equal(cert.certified, expected)
        coll = certify_collective(gram, lab, tgt, y, C, budget, multiclass=True)
        assert coll.num_certified == collective


def test_plain_and_pairwise_formulations_agree():
    gram, lab, tgt, y, C = instance(5, ARCHS["gcn"])
    expected, _ = enumerate_certificate(gram, lab, tgt, y, C, 1)
    for options in (PLAIN, Options(products="pairwise"), Options(greedy_attack=False)):
        np.testing.assert_array_equal(
            certify_binary(gram, lab, tgt, y, C, 1, options).certified, expected
        )


def test_instances_are_not_trivial():
    """Across the binary instances some predictions are certified and some are not."""
    outcomes = []
    for arch in ARCHS.values():
        gram, lab, tgt, y, C = instance(0, arch)
        outcomes.extend(enumerate_certificate(gram, lab, tgt, y, C, 1)[0])
    assert 0 < np.mean(outcomes) < 1


def test_budget_zero_certifies_everything_and_timeouts_are_counted():
    gram, lab, tgt, y, C = instance(0, ARCHS["gcn"])
    assert certify_binary(gram, lab, tgt, y, C, 0).certified.all()
    no_time = Options(time_limit=1e-9, greedy_attack=False, big_m="tight")
    cert = certify_binary(gram, lab, tgt, y, C, 2, no_time)
    # nothing is proven in no time: every node counts as not certified, as a time-out
    assert not cert.certified.any() and cert.num_timed_out == len(tgt)


def test_attack_enumeration_counts():
    assert sum(1 for _ in attacks(np.zeros(5, int), 2, 2)) == 1 + 5 + 10
    assert sum(1 for _ in attacks(np.zeros(4, int), 1, 3)) == 1 + 4 * 2


def test_bad_input():
    gram, lab, tgt, y, C = instance(0, ARCHS["gcn"])
    with pytest.raises(RewireError, match="exceeds"):
        certify_binary(gram, lab, tgt, y, C, len(lab) + 1)
    with pytest.raises(RewireError, match="labelled nodes"):
        certify_binary(gram, lab[:0], tgt, y[:0], C, 1)
    with pytest.raises(RewireError, match="non-negative"):
        certify_binary(gram, lab, tgt, y, C, -1)
    with pytest.raises(RewireError, match="labels"):
        certify_binary(gram, lab, tgt, y[:-1], C, 1)
    with pytest.raises(RewireError, match="big_m"):
        Options(big_m=-1)


def test_budget_bounds_hold_for_every_admissible_labelling():
    gram, lab, _, y, C = instance(2, ARCHS["gcn"], m=8)
    train, labels = gram[np.ix_(lab, lab)], np.where(y > 0, 1.0, -1.0)
    rng = np.random.default_rng(0)
    for budget in (0, 1, 3):
        low, high = budget_bounds(train, labels, C, budget)
        assert np.all(low <= high)
        reached_low, reached_high = np.full(8, np.inf), np.full(8, -np.inf)
        for attacked in attacks((labels > 0).astype(int), budget, 2):
            signs = 2.0 * attacked - 1
            products = signs[:, None] * train * signs[None, :]
            # the extreme alphas: C where the product is positive (or negative), else 0
            for alpha in (C * (products > 0), C * (products < 0), rng.uniform(0, C, (8, 8))):
                q = (products * alpha).sum(axis=1)
                assert np.all(q <= high + 1e-12) and np.all(q >= low - 1e-12)
                reached_low, reached_high = np.minimum(reached_low, q), np.maximum(reached_high, q)
        # the bounds are attained (they are the exact extremes over labels and the box)
        np.testing.assert_allclose(reached_high, high)
        np.testing.assert_allclose(reached_low, low)


@pytest.mark.parametrize("scale", [0.3, 4.0])
@pytest.mark.parametrize("arch", ["gcn", "sgc", "gin"])
def test_fixed_duals_keep_the_certificate_exact(arch, scale):
    """Small C fixes every dual (nodes decided by bounds), larger C leaves MILPs to solve."""
    gram, lab, tgt, y, C = instance(0, ARCHS[arch])
    C *= scale
    decided = set()
    for budget in (1, 3):
        expected, collective = enumerate_certificate(gram, lab, tgt, y, C, budget)
        for options in (Options(), Options(big_m="tight"), Options(greedy_attack=False)):
            cert = certify_binary(gram, lab, tgt, y, C, budget, options)
            np.testing.assert_array_equal(cert.certified, expected)
        decided |= set(certify_binary(gram, lab, tgt, y, C, budget).decided_by)
        assert certify_collective(gram, lab, tgt, y, C, budget).num_certified == collective
    if scale < 1:  # no MILP was needed
        assert decided <= {"greedy", "bounds"} and "bounds" in decided
    else:
        assert decided & {"bound", "incumbent"}
