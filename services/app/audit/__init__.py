"""History, audit and reports: deal records, disputes, verification, ledgers, settlement reports, their HTML."""
