"""A trained baseline: a small numpy policy learned from the environment, scored by the tournament.

The policy is a one-hidden-layer network (555 observation entries -> ``--hidden`` ReLU units ->
667 action logits, the illegal ones masked off) trained with numpy alone, in two stages:

1. **Imitation** (cross-entropy): every seat of ``--hands`` self-play hands of
   :func:`botkit.env.raw_env` is labelled with what the ``heuristic`` strategy would do there,
   and the network learns to give that action the highest probability. The hands are played by
   the labels, with a share ``--explore`` of random legal actions so it sees some states the
   heuristic would not reach.
2. **Policy gradient** (REINFORCE): ``--pg-hands`` hands of :class:`botkit.env.SingleAgentEnv`,
   the learner in one seat against ``--pg-opponents`` (default ``heuristic``), sampling its actions
   and reinforcing them by the hand's payout (less a running baseline).

Then it scores itself without writing a file: it registers the policy as a strategy
(``engine.bots.register``) and plays duplicate tournaments against ``random`` and ``heuristic``
with :func:`botkit.tournament.play.run_tournament`, printing each figure with its 95% interval.
Needs the extra (``pip install -e '.[rl]'``)::

    python examples/rl_train.py --save policy.npz          # 2 to 3 minutes on 2 cores

This file is also a strategy file: the saved policy plays wherever a strategy goes::

    sheepshead tournament --strategies examples/rl_train.py:weights=policy.npz,heuristic
    sheepshead bot HOST --strategy examples/rl_train.py:weights=policy.npz --create
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from typing import Any

# One BLAS thread: the matrices are small, and on a busy machine a second thread waiting for a
# core made each training step six times slower. (Set before numpy loads its BLAS.)
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402

from botkit.actions import ACTION_COUNT, action_index  # noqa: E402
from botkit.encode import OBSERVATION_SIZE, encode_view  # noqa: E402


class TrainedPolicy:
    """The policy as a strategy: ``choose(view, legal)`` plays the most likely legal action.

    ``weights`` is a file saved by ``--save`` (or the arrays themselves, as training passes
    them)."""

    name = "rl-train"

    def __init__(self, weights: Any = "policy.npz", seed: int | None = None) -> None:
        del seed  # greedy: the same view always gets the same answer
        if isinstance(weights, str):
            with np.load(weights) as saved:
                weights = {key: saved[key] for key in saved.files}
        self.net = Network.from_arrays(weights)

    def choose(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
        """The legal action of the highest logit."""
        logits = self.net.logits(encode_view(view)[None, :])[0]
        indices = [action_index(action) for action in legal]
        return legal[int(np.argmax(logits[indices]))]


class Network:
    """``obs -> ReLU(obs @ w1 + b1) @ w2 + b2``, trained with Adam on masked softmax losses."""

    def __init__(self, hidden: int, rng: np.random.Generator) -> None:
        self.params = {
            "w1": rng.normal(0, (2 / OBSERVATION_SIZE) ** 0.5, (OBSERVATION_SIZE, hidden)),
            "b1": np.zeros(hidden),
            "w2": rng.normal(0, (1 / hidden) ** 0.5, (hidden, ACTION_COUNT)),
            "b2": np.zeros(ACTION_COUNT),
        }
        self.params = {k: v.astype(np.float32) for k, v in self.params.items()}
        self.moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in self.params.items()}
        self.steps = 0

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Network:
        """A network with saved weights."""
        net = cls.__new__(cls)
        net.params = {k: np.asarray(arrays[k], dtype=np.float32) for k in ("w1", "b1", "w2", "b2")}
        return net

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The action logits of a batch of observations."""
        p = self.params
        return np.maximum(x @ p["w1"] + p["b1"], 0) @ p["w2"] + p["b2"]

    def probabilities(self, x: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The hidden layer and the softmax over the legal actions (``masks``: bool)."""
        p = self.params
        hidden = np.maximum(x @ p["w1"] + p["b1"], 0)
        logits = np.where(masks, hidden @ p["w2"] + p["b2"], -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return hidden, e / e.sum(axis=1, keepdims=True)

    def update(
        self, x: np.ndarray, masks: np.ndarray, actions: np.ndarray, weights: np.ndarray, lr: float
    ) -> float:
        """One Adam step on the loss ``-sum(weight * log pi(action))`` / batch; its value."""
        p = self.params
        hidden, probs = self.probabilities(x, masks)
        rows = np.arange(len(actions))
        loss = -float(np.mean(weights * np.log(probs[rows, actions] + 1e-12)))
        grad_logits = probs
        grad_logits[rows, actions] -= 1.0
        grad_logits *= (weights / len(actions))[:, None]
        grads = {"w2": hidden.T @ grad_logits, "b2": grad_logits.sum(axis=0)}
        grad_hidden = (grad_logits @ p["w2"].T) * (hidden > 0)
        grads["w1"] = x.T @ grad_hidden
        grads["b1"] = grad_hidden.sum(axis=0)
        self.steps += 1
        for key, grad in grads.items():
            m, v = self.moments[key]
            m *= 0.9
            m += 0.1 * grad
            v *= 0.999
            v += 0.001 * grad * grad
            m_hat = m / (1 - 0.9**self.steps)
            v_hat = v / (1 - 0.999**self.steps)
            p[key] -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        return loss


def imitation_batch(
    game: Any, teacher: Any, hands: int, explore: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations, masks and the teacher's action indices of every decision of ``hands``."""
    from engine.view import seat_view

    observations, masks, labels = [], [], []
    for _ in range(hands):
        game.reset()
        for agent in game.agent_iter():
            observation, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            view = seat_view(game.hand, int(agent[-1]))
            label = action_index(teacher.choose(view, view["legal"]))
            observations.append(observation["observation"])
            masks.append(observation["action_mask"])
            labels.append(label)
            if rng.random() < explore:
                game.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            else:
                game.step(label)
    return np.array(observations), np.array(masks, dtype=bool), np.array(labels)


def imitate(net: Network, args: argparse.Namespace, rng: np.random.Generator) -> None:
    """Stage 1: learn the heuristic's choices, ``--chunk`` hands at a time."""
    from botkit.env import raw_env
    from engine.bots import HeuristicStrategy

    game = raw_env()
    game.reset(seed=args.seed)
    teacher = HeuristicStrategy()
    done = 0
    while done < args.hands:
        chunk = min(args.chunk, args.hands - done)
        x, masks, labels = imitation_batch(game, teacher, chunk, args.explore, rng)
        ones = np.ones(len(labels), dtype=np.float32)
        for _ in range(args.passes):
            order = rng.permutation(len(labels))
            for start in range(0, len(order), args.batch):
                rows = order[start : start + args.batch]
                loss = net.update(x[rows], masks[rows], labels[rows], ones[rows], args.lr)
        done += chunk
        agree = float(np.mean(np.argmax(net.probabilities(x, masks)[1], axis=1) == labels))
        print(f"imitation: {done} hands, loss {loss:.3f}, agrees with heuristic {agree:.1%}")


def reinforce(net: Network, args: argparse.Namespace, rng: np.random.Generator) -> None:
    """Stage 2: REINFORCE in one seat against ``--pg-opponents``, ``--chunk`` hands a step."""
    from botkit.env import SingleAgentEnv

    single = SingleAgentEnv(seat=0, opponents=args.pg_opponents)
    baseline, done, first = 0.0, 0, True
    while done < args.pg_hands:
        chunk = min(args.chunk, args.pg_hands - done)
        xs, masks, actions, returns = [], [], [], []
        for _ in range(chunk):
            observation, _ = single.reset(seed=args.seed + 1 if first else None)
            first = False
            start, reward, over = len(actions), 0.0, False
            while not over:
                x = observation["observation"]
                mask = observation["action_mask"].astype(bool)
                probs = net.probabilities(x[None, :], mask[None, :])[1][0]
                action = int(rng.choice(ACTION_COUNT, p=probs))
                xs.append(x)
                masks.append(mask)
                actions.append(action)
                observation, reward, over, _, _ = single.step(action)
            returns += [float(reward)] * (len(actions) - start)
        payout = np.array(returns, dtype=np.float32)
        advantage = payout - baseline
        baseline = 0.9 * baseline + 0.1 * float(payout.mean())
        net.update(np.array(xs), np.array(masks), np.array(actions), advantage / 4.0, args.pg_lr)
        done += chunk
        print(f"policy gradient: {done} hands, mean payout {float(payout.mean()):+.3f}")


def score(net: Network, opponents: Sequence[str], args: argparse.Namespace) -> dict[str, Any]:
    """Duplicate tournaments of the policy against each of ``opponents`` (no files written)."""
    from botkit.tournament.play import run_tournament
    from botkit.tournament.stats import summarize
    from engine.bots import register
    from engine.rules import DEFAULT_PRESET, RuleSet

    weights = {k: v.copy() for k, v in net.params.items()}

    # Registered by name, the policy plays in the tournament's worker processes: forked ones (a
    # worker started afresh does not know it), which inherit the registration and the weights.
    @register("rl-train", "the policy of examples/rl_train.py")
    def build(seed: int | None = None) -> TrainedPolicy:
        return TrainedPolicy(weights, seed)

    del build
    rules = RuleSet.from_preset(DEFAULT_PRESET)
    results = {}
    for opponent in opponents:
        specs = ["rl-train", opponent]
        tallies, _ = run_tournament(specs, args.eval_deals, args.seed + 7, rules, args.jobs)
        summary = summarize(specs, tallies, {"seed": args.seed + 7})
        pair = summary["pairs"][0]
        mine = summary["strategies"]["rl-train"]
        low, high = pair["ci95"]
        print(
            f"vs {opponent}: {mine['mean']:+.3f} per seat-hand; difference "
            f"{pair['diff']:+.3f} [{low:+.3f}, {high:+.3f}] (95%, {args.eval_deals} deals)"
        )
        results[opponent] = {"mean": mine["mean"], "diff": pair["diff"], "ci95": pair["ci95"]}
    return results


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, save (``--save``), score; print and return the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=12000, help="imitation hands (12000)")
    parser.add_argument("--pg-hands", type=int, default=3000, help="REINFORCE hands (3000)")
    parser.add_argument(
        "--pg-opponents", default="heuristic", help="REINFORCE opponents (heuristic)"
    )
    parser.add_argument("--chunk", type=int, default=400, help="hands per batch of data (400)")
    parser.add_argument("--passes", type=int, default=2, help="passes over each batch (2)")
    parser.add_argument("--batch", type=int, default=256, help="minibatch size (256)")
    parser.add_argument("--hidden", type=int, default=128, help="hidden units (128)")
    parser.add_argument("--lr", type=float, default=1e-3, help="imitation learning rate")
    parser.add_argument("--pg-lr", type=float, default=1e-4, help="REINFORCE learning rate")
    parser.add_argument("--explore", type=float, default=0.1, help="random share in imitation")
    parser.add_argument("--eval-deals", type=int, default=300, help="deals per tournament (300)")
    parser.add_argument("--jobs", type=int, default=2, help="tournament processes (2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of everything (1)")
    parser.add_argument("--save", help="write the weights here (.npz)")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    net = Network(args.hidden, rng)
    started = time.monotonic()
    imitate(net, args, rng)
    if args.pg_hands:
        reinforce(net, args, rng)
    trained = time.monotonic() - started
    print(f"trained in {trained:.0f} s")
    if args.save:
        np.savez(args.save, **net.params)
        print(f"weights saved to {args.save}")
    results = score(net, ("random", "heuristic"), args)
    print(f"total {time.monotonic() - started:.0f} s")
    return {"train_s": trained, "results": results}


if __name__ == "__main__":
    main()
