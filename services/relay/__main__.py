"""`python -m services.relay`: run a relay with DATABASE_URL and REDIS_URL until SIGTERM or SIGINT."""

from __future__ import annotations

import os
import signal
import threading
from types import FrameType

from services.logs import configure_logging
from services.relay.relay import run_relay


def main() -> None:
    configure_logging(os.environ.get("CARDLEDGER_LOG_LEVEL", "INFO"))
    stop = threading.Event()

    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, handle)
    signal.signal(signal.SIGINT, handle)
    run_relay(os.environ["DATABASE_URL"], os.environ["REDIS_URL"], stop)


if __name__ == "__main__":
    main()
