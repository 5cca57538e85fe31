"""Which classes the leaderboard's ``dense`` splits leave out of validation and test.

JDR's class-balanced rule (:class:`rewirekit.datasets.ClassBalancedSplit`) gives each class
``round(0.6·N/C)`` training nodes; a class no larger than that goes to training whole and is
never validated or tested. For each offline dataset this prints the class sizes, the
training quota per class, and the classes absent from the validation and the test sets of
splits ``0..splits-1`` (the leaderboard's ten), and the split the leaderboard evaluates the
dataset on (:func:`rewirekit.bench.leaderboard.protocol_split`): ``dense``, or
``stratified`` where a ``dense`` validation or test set holds one class only, with that
finding of :func:`rewirekit.datasets.single_class_split`; and, on that split, the share of
each test set's most frequent class (:func:`rewirekit.datasets.majority_class_accuracy`),
the accuracy of the best constant prediction, which a model's accuracy is read against::

    REWIREKIT_DATA=../shared/datasets python benchmarks/split_classes.py > docs/split_classes.txt
"""

from __future__ import annotations

import argparse

from rewirekit.bench.leaderboard import SPLIT_PRESET, protocol_split
from rewirekit.bench.runner import DatasetSpec
from rewirekit.datasets import (
    ClassBalancedSplit,
    get_split_preset,
    held_out_classes,
    list_datasets,
    majority_class_accuracy,
    single_class_split,
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=10)
    parser.add_argument("--datasets", nargs="+", help="default: every offline dataset")
    args = parser.parse_args(argv)
    preset = get_split_preset(SPLIT_PRESET)
    assert isinstance(preset, ClassBalancedSplit)
    print(f"split preset {SPLIT_PRESET!r}, splits 0..{args.splits - 1}")
    print(
        "dataset | class sizes | training quota per class | not in validation | not in test "
        "| leaderboard split | majority class of test (%)"
    )
    names = args.datasets or [d.name for d in list_datasets() if d.available_offline]
    for name in names:
        data = preset.prepare(DatasetSpec.named(name).load())
        sizes = data.y.bincount().tolist()
        quota = round(preset.train_rate * data.num_nodes / len(sizes))
        absent: dict[str, set[int]] = {"validation": set(), "test": set()}
        for _, part, present in held_out_classes(preset, data, name, args.splits):
            absent[part] |= set(range(len(sizes))) - set(present)
        problem = single_class_split(preset, data, name, args.splits)
        verdict = protocol_split(data, name, args.splits)
        floor = majority_class_accuracy(get_split_preset(verdict), data, name, args.splits)
        if problem is not None:
            verdict += f" ({problem})"
        print(
            f"{name} | {sizes} | {quota} | {sorted(absent['validation'])} | "
            f"{sorted(absent['test'])} | {verdict} | {floor:.2f}"
        )


if __name__ == "__main__":
    main()
