"""PettingZoo's order-enforcing wrapper without the per-attribute detour.

``OrderEnforcingWrapper`` forwards every attribute through ``__getattr__``,
which Python only reaches after a failed normal lookup: in a training loop
``last()``, ``step()`` and ``agent_iter`` touch ``agents``,
``agent_selection``, ``_cumulative_rewards``, ``terminations``... about eight
times a step, which costs more than a whole Asrus step. This subclass keeps
every check of the original (errors before ``reset``, the warning after the
game, the ``agent_iter`` / ``step`` pairing) but reaches the env's attributes
through properties and calls ``last``/``step`` on the env directly; its
``agent_iter`` makes the same checks without going through those properties.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)


def _forwarded(name: str) -> property:
    """A property reading and writing ``self.env.<name>``, refused before reset."""

    def get(self: FlockOrderEnforcingWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    def set_(self: FlockOrderEnforcingWrapper, value: Any) -> None:
        setattr(self.env, name, value)

    return property(get, set_, doc=f"The wrapped env's ``{name}``.")


class FlockOrderEnforcingIterator(AECOrderEnforcingIterator):
    """PettingZoo's ``agent_iter`` iterator, reading the wrapped env directly.

    Same stop condition, same ``step``-between-agents assertion, same agent;
    it only skips the wrapper's forwarding properties, which would cost two
    property calls and a ``_has_reset`` check per step (the iterator exists only
    after ``reset``, which ``agent_iter`` already checks)."""

    def __next__(self) -> Any:
        wrapper: Any = self.env
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return env.agent_selection


class FlockOrderEnforcingIterable(AECOrderEnforcingIterable):
    """Hands out :class:`FlockOrderEnforcingIterator`."""

    def __iter__(self) -> FlockOrderEnforcingIterator:
        return FlockOrderEnforcingIterator(self.env, self.max_iter)


class FlockOrderEnforcingWrapper(OrderEnforcingWrapper):
    """Same checks as PettingZoo's ``OrderEnforcingWrapper``, with direct access."""

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.env._cumulative_rewards

    @_cumulative_rewards.setter
    def _cumulative_rewards(self, value: dict[str, float]) -> None:
        self.env._cumulative_rewards = value

    @property
    def possible_agents(self) -> list[str]:
        return self.env.possible_agents

    @possible_agents.setter
    def possible_agents(self, value: list[str]) -> None:
        self.env.possible_agents = value

    def agent_iter(self, max_iter: int = 2**63) -> FlockOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return FlockOrderEnforcingIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if observe and not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        env = self.env
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            env.step(action)
