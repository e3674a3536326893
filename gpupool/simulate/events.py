"""The kinds of event a run's clock handles, in the order they are handled at one instant.

This module owns that order, the middle element of the ``(time, kind, sequence)`` key of the
loop's heap (``loop``): at one instant pods finish, pods of a draining node are evicted,
interrupted nodes go, nodes become ready and spot nodes are interrupted before waiting jobs are
woken and new jobs submitted; idle nodes are checked after the submits, then spot requests the
cloud could not fill are given up, and last come an observer's own calls
(``observers.RunView.call_at``). Every part that pushes an event names its kind here.
"""

from __future__ import annotations

FINISH, EVICT, GONE, READY, INTERRUPT, WAKE, SUBMIT, IDLE, UNFILLED, CALL = range(10)
