"""Tools for seeing what ran: memory statistics, debug modes, the profiler's report."""
