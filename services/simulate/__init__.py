"""Bot players and a load generator over the REST API (`cardledger simulate`)."""

from services.simulate.command import add_arguments, main, run_from_args
from services.simulate.runner import SimulationConfig, SimulationResult, simulate

__all__ = ["SimulationConfig", "SimulationResult", "add_arguments", "main", "run_from_args", "simulate"]
