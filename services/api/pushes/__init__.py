"""Pushed views: the seat view streams' and long-polls' waits on the tables' Redis streams."""
