"""Bot players and a load generator over the REST API (`cardledger simulate`)."""

from services.cli.simulate.command import add_arguments, main, run_from_args
from services.cli.simulate.runner import SimulationConfig, SimulationResult, simulate

__all__ = ["SimulationConfig", "SimulationResult", "add_arguments", "main", "run_from_args", "simulate"]
