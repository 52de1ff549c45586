"""The projections keep no cache of their own at module level: a projector's caches are made by whoever runs
it and handed down (`ProjectionCaches`), so two projectors in one process share nothing."""

from __future__ import annotations

import importlib
import pkgutil
from collections import OrderedDict

import infra.projections
from infra.lru import Lru
from infra.projections import ProjectionCaches
from infra.table_states import TableStates

CACHE_TYPES = (Lru, TableStates, ProjectionCaches, dict, list, set, OrderedDict)
# Module-level mappings that are tables of constants, not caches.
CONSTANT_TABLES = {("infra.projections.runner", "PROJECTIONS")}


def test_no_module_of_the_projections_holds_a_cache() -> None:
    found = []
    for info in pkgutil.iter_modules(infra.projections.__path__, "infra.projections."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.startswith("__") or (info.name, name) in CONSTANT_TABLES:
                continue
            if isinstance(value, CACHE_TYPES):
                found.append(f"{info.name}.{name}")
    assert found == []


def test_each_caches_object_is_its_own() -> None:
    first, second = ProjectionCaches(), ProjectionCaches()
    assert first.heads is not second.heads
    assert first.deal_players is not second.deal_players
    assert first.states is not second.states
